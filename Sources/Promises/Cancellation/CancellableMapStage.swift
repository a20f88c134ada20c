import Dispatch

/// The promise behind a member that `map` adds to a cancellable chain (and `compactMap`, `done`
/// and `get`, which are built on it): the member's promise and its transform in one object.
///
/// Like ``MapStage``, it waits in its parent's callbacks through a closure that captures only this
/// object, so the stage allocates no closure context; a member costs this object and its
/// ``CancellablePromise``.
@usableFromInline
final class CancellableMapStage<Input: Sendable, T: Sendable>: Promise<T>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the stored properties added here are immutable; the state
  // inherited from `Promise` is guarded by its lock.

  @usableFromInline let transform: @Sendable (Input) throws -> T
  /// The chain: no transform starts once a cancel was attempted.
  @usableFromInline let context: CancelContext

  @inlinable
  init(context: CancelContext, transform: @escaping @Sendable (Input) throws -> T) {
    self.transform = transform
    self.context = context
    super.init(pending: ())
  }

  /// Registers the stage on `parent` (`transform` runs on `queue`, on the resolving thread when
  /// `nil`) and returns the new member of the chain.
  @inlinable
  func attach(to parent: Promise<Input>, on queue: DispatchQueue?, flags: DispatchFlags) -> CancellablePromise<T> {
    let member = CancellablePromise(member: self, context: context)
    if let queue {
      parent.pipe { [self] result in
        switch result {
        case .success(let value): queue.async(flags) { self.run(value) }
        case .failure(let error): settleMember(.failure(error))
        }
      }
    } else {
      // Captures only the stage: no closure context is allocated, and a stage that settles can
      // hand its delivery back.
      parent.observe(.stage { [self] result, queue in receive(result, handingBackOn: queue) })
    }
    return member
  }

  /// Called once with the parent's result, on the resolving thread; hands back this stage's
  /// delivery when it may (see `Promise.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ result: Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> ReadyDelivery? {
    switch result {
    case .success(let value):
      guard !context.cancelAttempted else { return nil }
      return settleMember(Result { try transform(value) }, handingBackOn: queue)
    case .failure(let error):
      return settleMember(.failure(error), handingBackOn: queue)
    }
  }

  /// `settleMember(_:)`, handing this stage's delivery back when it may.
  @inlinable
  func settleMember(_ result: Result<T, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> ReadyDelivery? {
    if context.cancelAttempted {
      settleMember(result)  // the cancel error wins (rare: delivered the ordinary way)
      return nil
    }
    return settle(result, handingBackOn: queue)
  }

  /// Runs `transform` unless the chain's cancel has started (its handler rejects this member).
  @inlinable
  func run(_ value: Input) {
    guard !context.cancelAttempted else { return }
    settleMember(Result { try transform(value) })
  }

  /// `CancellablePromise.settle(_:)` for this member: the cancel error wins once a cancel started.
  @inlinable
  func settleMember(_ result: Result<T, Error>) {
    if context.cancelAttempted, let reason = context.cancelledError {
      if settle(.failure(reason)) { context.markRejected() }
    } else {
      settle(result)
    }
  }
}
