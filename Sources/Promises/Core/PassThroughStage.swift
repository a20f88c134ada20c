import CancelCore

/// The promise `ensure(on: nil)` and `tap(on: nil)` return: a promise settled like its parent
/// once a body ran, holding the body and waiting in its parent's callbacks as itself (as
/// ``MapStage`` does).
///
/// A stage costs this one allocation, instead of the promise and a closure context holding the
/// body and the promise; a stage that settles inside its parent's delivery hands its own delivery
/// back. (With a queue, `ensure` and `tap` keep the closures: dispatching allocates anyway.)
@usableFromInline
final class PassThroughStage<T: Sendable>: Promise<T>, ParentWaitingStage, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `body` is written by the initializer and taken once by the
  // parent's callback, which the core runs exactly once and only after the registration it follows
  // (so after the initializer, through the parent's lock); nothing else touches it. The state
  // inherited from `Promise` is guarded by its lock.

  /// What runs before the stage settles.
  @usableFromInline
  enum Body: Sendable {
    /// `ensure`'s clean-up, which does not see the result.
    case ensure(@Sendable () -> Void)
    /// `tap`'s look at the result.
    case tap(@Sendable (Result<T>) -> Void)
  }

  /// The body, until the parent's callback takes it (nothing it captures outlives the run).
  @usableFromInline @exclusivity(unchecked) var body: Body?

  @inlinable
  init(_ body: Body) {
    self.body = body
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns it.
  @inlinable
  func attach<Parent: Thenable>(to parent: Parent) -> Promise<T> where Parent.T == T {
    wait(on: parent)
    return self
  }

  /// Called once with the parent's result: runs the body, then settles with the same result.
  /// Returns whether the caller hands this stage's delivery back (see
  /// `Promise.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ result: consuming Swift.Result<T, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    // Read and cleared, not moved out with `Optional.take()`: through that generic method a
    // closure of a concrete type is reabstracted, which allocates (see `CatchStage`).
    guard let body else { return false }
    self.body = nil
    switch body {
    case .ensure(let cleanUp): cleanUp()
    case .tap(let look): look(Result(copy result))
    }
    return settle(result, handingBackOn: queue)
  }
}
