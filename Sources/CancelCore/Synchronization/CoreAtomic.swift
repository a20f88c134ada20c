import Atomics

// The core's atomics. They are swift-atomics' (apple/swift-atomics) rather than the standard
// library's `Atomic`, which needs macOS 15 / iOS 18: the same machine instructions and memory
// orderings, the storage laid out the same way (a `Bool` or `UInt8` is one byte, a `UInt` one
// word), and ThreadSanitizer sees them as atomics. Only this folder imports `Atomics`: the rest of
// the core names these types and orderings.

/// The inline storage of an atomic value: a field of the struct a host object keeps as its first
/// stored property (see ``firstStoredProperty(of:as:)``), reached only through a ``CoreAtomic``
/// handle after initialization.
@usableFromInline
package struct CoreAtomicStorage<Value: CoreAtomicValue> {
  @usableFromInline var representation: Value.CoreAtomicRepresentation

  /// Storage holding `initial`.
  @inlinable package init(_ initial: Value) {
    representation = Value.makeAtomicRepresentation(initial)
  }
}

/// An atomic value in its host object, by address (see ``CoreAtomicStorage``): the operations of
/// the standard library's `Atomic` that the core uses, with the same orderings. A handle is only
/// valid while its host is alive: use it where it is made, never store it.
@usableFromInline
package struct CoreAtomic<Value: CoreAtomicValue> {
  @usableFromInline let storage: UnsafeMutablePointer<Value.CoreAtomicRepresentation>

  /// The value stored at `storage`.
  @inlinable @inline(__always)
  package init(_ storage: UnsafeMutablePointer<CoreAtomicStorage<Value>>) {
    self.storage = UnsafeMutableRawPointer(storage).assumingMemoryBound(to: Value.CoreAtomicRepresentation.self)
  }

  /// Atomically loads the value.
  @inlinable @inline(__always)
  package func load(ordering: CoreAtomicLoadOrdering) -> Value {
    Value.atomicLoad(at: storage, ordering: ordering)
  }

  /// Atomically stores `desired`.
  @inlinable @inline(__always)
  package func store(_ desired: Value, ordering: CoreAtomicStoreOrdering) {
    Value.atomicStore(desired, at: storage, ordering: ordering)
  }

  /// Atomically stores `desired` and returns the value it replaced.
  @inlinable @inline(__always)
  package func exchange(_ desired: Value, ordering: CoreAtomicUpdateOrdering) -> Value {
    Value.atomicExchange(desired, at: storage, ordering: ordering)
  }

  /// Atomically replaces the value with `desired` if it is `expected`.
  @inlinable @inline(__always)
  package func compareExchange(
    expected: Value, desired: Value, ordering: CoreAtomicUpdateOrdering
  ) -> (exchanged: Bool, original: Value) {
    Value.atomicCompareExchange(expected: expected, desired: desired, at: storage, ordering: ordering)
  }
}

/// The orderings of an atomic load (the C++ model's, as the standard library's `Atomic` names them).
@usableFromInline
package enum CoreAtomicLoadOrdering: Sendable {
  case relaxed, acquiring
}

/// The orderings of an atomic store.
@usableFromInline
package enum CoreAtomicStoreOrdering: Sendable {
  case relaxed, releasing
}

/// The orderings of an atomic read-modify-write.
@usableFromInline
package enum CoreAtomicUpdateOrdering: Sendable {
  case relaxed, acquiring, releasing, acquiringAndReleasing
}

/// A type the core keeps in a ``CoreAtomicStorage``: `Bool`, `UInt8`, `UInt32` and `UInt`.
///
/// Every operation takes its ordering as a value and passes swift-atomics a constant one; inlined
/// with a constant ordering, as every call in the core is, the `switch` folds away.
@usableFromInline
package protocol CoreAtomicValue: Equatable {
  /// How the value is stored: swift-atomics' representation.
  associatedtype CoreAtomicRepresentation
  static func makeAtomicRepresentation(_ value: Self) -> CoreAtomicRepresentation
  static func atomicLoad(
    at storage: UnsafeMutablePointer<CoreAtomicRepresentation>, ordering: CoreAtomicLoadOrdering
  ) -> Self
  static func atomicStore(
    _ desired: Self, at storage: UnsafeMutablePointer<CoreAtomicRepresentation>, ordering: CoreAtomicStoreOrdering)
  static func atomicExchange(
    _ desired: Self, at storage: UnsafeMutablePointer<CoreAtomicRepresentation>, ordering: CoreAtomicUpdateOrdering
  ) -> Self
  static func atomicCompareExchange(
    expected: Self, desired: Self, at storage: UnsafeMutablePointer<CoreAtomicRepresentation>,
    ordering: CoreAtomicUpdateOrdering
  ) -> (exchanged: Bool, original: Self)
}

extension CoreAtomicValue
where Self: AtomicValue, Self.AtomicRepresentation.Value == Self, CoreAtomicRepresentation == UnsafeAtomic<Self>.Storage
{
  @inlinable @inline(__always)
  package static func makeAtomicRepresentation(_ value: Self) -> CoreAtomicRepresentation {
    CoreAtomicRepresentation(value)
  }

  @inlinable @inline(__always)
  package static func atomicLoad(
    at storage: UnsafeMutablePointer<CoreAtomicRepresentation>, ordering: CoreAtomicLoadOrdering
  ) -> Self {
    switch ordering {
    case .relaxed: CoreAtomicRepresentation.atomicLoad(at: storage, ordering: .relaxed)
    case .acquiring: CoreAtomicRepresentation.atomicLoad(at: storage, ordering: .acquiring)
    }
  }

  @inlinable @inline(__always)
  package static func atomicStore(
    _ desired: Self, at storage: UnsafeMutablePointer<CoreAtomicRepresentation>, ordering: CoreAtomicStoreOrdering
  ) {
    switch ordering {
    case .relaxed: CoreAtomicRepresentation.atomicStore(desired, at: storage, ordering: .relaxed)
    case .releasing: CoreAtomicRepresentation.atomicStore(desired, at: storage, ordering: .releasing)
    }
  }

  @inlinable @inline(__always)
  package static func atomicExchange(
    _ desired: Self, at storage: UnsafeMutablePointer<CoreAtomicRepresentation>, ordering: CoreAtomicUpdateOrdering
  ) -> Self {
    switch ordering {
    case .relaxed: CoreAtomicRepresentation.atomicExchange(desired, at: storage, ordering: .relaxed)
    case .acquiring: CoreAtomicRepresentation.atomicExchange(desired, at: storage, ordering: .acquiring)
    case .releasing: CoreAtomicRepresentation.atomicExchange(desired, at: storage, ordering: .releasing)
    case .acquiringAndReleasing:
      CoreAtomicRepresentation.atomicExchange(desired, at: storage, ordering: .acquiringAndReleasing)
    }
  }

  @inlinable @inline(__always)
  package static func atomicCompareExchange(
    expected: Self, desired: Self, at storage: UnsafeMutablePointer<CoreAtomicRepresentation>,
    ordering: CoreAtomicUpdateOrdering
  ) -> (exchanged: Bool, original: Self) {
    switch ordering {
    case .relaxed:
      CoreAtomicRepresentation.atomicCompareExchange(
        expected: expected, desired: desired, at: storage, ordering: .relaxed)
    case .acquiring:
      CoreAtomicRepresentation.atomicCompareExchange(
        expected: expected, desired: desired, at: storage, ordering: .acquiring)
    case .releasing:
      CoreAtomicRepresentation.atomicCompareExchange(
        expected: expected, desired: desired, at: storage, ordering: .releasing)
    case .acquiringAndReleasing:
      CoreAtomicRepresentation.atomicCompareExchange(
        expected: expected, desired: desired, at: storage, ordering: .acquiringAndReleasing)
    }
  }
}

extension Bool: CoreAtomicValue {
  @usableFromInline package typealias CoreAtomicRepresentation = UnsafeAtomic<Bool>.Storage
}

extension UInt8: CoreAtomicValue {
  @usableFromInline package typealias CoreAtomicRepresentation = UnsafeAtomic<UInt8>.Storage
}

extension UInt32: CoreAtomicValue {
  @usableFromInline package typealias CoreAtomicRepresentation = UnsafeAtomic<UInt32>.Storage
}

extension UInt: CoreAtomicValue {
  @usableFromInline package typealias CoreAtomicRepresentation = UnsafeAtomic<UInt>.Storage
}
