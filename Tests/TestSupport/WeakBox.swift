/// A weak reference to an object, to check from a test that the object was freed.
public final class WeakBox<Object: AnyObject & Sendable>: Sendable {
  // `nonisolated(unsafe)`: written once by the initializer; a test reads it afterwards, after
  // awaiting or settling everything that could release the object.
  /// The object, or `nil` once it was freed.
  nonisolated(unsafe) public weak var value: Object?

  /// A weak reference to `value`.
  public init(_ value: Object) {
    self.value = value
  }
}
