import Dispatch

/// The promise `map` returns (and `compactMap`, `done` and `get`, which are built on it): the
/// derived promise and its transform in one object.
///
/// It waits in its parent's callbacks through a closure that captures only this object, which
/// Swift stores without a closure context: a synchronous (`on: nil`) stage costs one allocation
/// instead of two (the promise plus a context holding the transform and the promise), and an
/// `Int` stage stays within the allocator's 128-byte fast bins. (A stage with a queue keeps the
/// queue in its parent's closure: dispatching allocates anyway.)
@usableFromInline
final class MapStage<Input: Sendable, T: Sendable>: Promise<T>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the one stored property added here is immutable; the state
  // inherited from `Promise` is guarded by its lock.

  @usableFromInline let transform: @Sendable (Input) throws -> T

  @inlinable
  init(_ transform: @escaping @Sendable (Input) throws -> T) {
    self.transform = transform
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns it: `transform` runs on `queue` (on the resolving
  /// thread when `nil`) once `parent` is fulfilled; a rejection passes through without hopping.
  @inlinable
  func attach<Parent: Thenable>(to parent: Parent, on queue: DispatchQueue?, flags: DispatchFlags) -> Promise<T>
  where Parent.T == Input {
    if let queue {
      parent.pipe { [self] result in
        switch result {
        case .success(let value): queue.async(flags) { self.run(value) }
        case .failure(let error): settle(.failure(error))
        }
      }
    } else {
      // Captures only the stage: no closure context is allocated.
      parent.pipe { [self] result in receive(result) }
    }
    return self
  }

  /// Called once with the parent's result, on the resolving thread.
  @inlinable
  func receive(_ result: Result<Input, Error>) {
    switch result {
    case .success(let value): run(value)
    case .failure(let error): settle(.failure(error))
    }
  }

  /// Runs `transform` and settles with what it returns or throws.
  @inlinable
  func run(_ value: Input) {
    settle(Result { try transform(value) })
  }
}
