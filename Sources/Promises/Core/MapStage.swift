import Dispatch

/// The promise `map` returns (and `compactMap`, `done` and `get`, which are built on it): the
/// derived promise and its transform in one object.
///
/// It waits in its parent's callbacks as itself (``PromiseCallback/stage(_:_:)``): a synchronous
/// (`on: nil`) stage on a ``Promise`` costs one allocation instead of two (the promise plus a
/// context holding the transform and the promise), and an `Int` stage stays within the allocator's
/// 128-byte fast bins. (A stage with a queue keeps the queue in its parent's closure, and a stage
/// on another thenable waits through its `pipe`: both allocate a closure context, as dispatching
/// allocates anyway.)
@usableFromInline
final class MapStage<Input: Sendable, T: Sendable>: Promise<T>, ParentWaitingStage, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `transform` is written by the initializer and taken once by
  // the parent's callback, which the core runs exactly once and only after the registration it
  // follows (so after the initializer, through the parent's lock); nothing else touches it. The
  // state inherited from `Promise` is guarded by its lock.

  /// The transform, until the parent's callback takes it: released as soon as the stage ran, so
  /// that nothing it captures outlives the run (the promise `map` returns is often kept, for
  /// example by an object its transform captures).
  @usableFromInline @exclusivity(unchecked) var transform: (@Sendable (Input) throws -> T)?

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
        case .success(let value):
          queue.async(flags) { self.run(value) }
        case .failure(let error):
          transform = nil
          settle(.failure(error))
        }
      }
    } else {
      wait(on: parent)
    }
    return self
  }

  /// Called once with the parent's result, on the resolving thread. Returns whether the caller
  /// hands this stage's delivery back (see `Promise.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let transform = transform.take() else { return false }
    switch consume result {
    case .success(let value): return settle(Swift.Result { try transform(value) }, handingBackOn: queue)
    case .failure(let error): return settle(.failure(consume error), handingBackOn: queue)
    }
  }

  /// Runs `transform` (taking it) and settles with what it returns or throws.
  @inlinable
  func run(_ value: Input) {
    guard let transform = transform.take() else { return }
    settle(Swift.Result { try transform(value) })
  }
}
