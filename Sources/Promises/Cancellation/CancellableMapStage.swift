import Dispatch

/// The promise behind a member that `map` adds to a cancellable chain (and `compactMap`, `done`
/// and `get`, which are built on it): the member's promise and its transform in one object.
///
/// Like ``MapStage``, it waits in its parent's callbacks as itself
/// (``PromiseCallback/stage(_:_:)``), so the stage allocates no closure context; a member costs
/// this object and its ``CancellablePromise``.
@usableFromInline
final class CancellableMapStage<Input: Sendable, T: Sendable>: Promise<T>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `transform` and `context` are written before the stage is
  // registered on its parent and taken once by the parent's callback, which the core runs exactly
  // once and only after that registration (through the parent's lock); nothing else touches them.
  // The state inherited from `Promise` is guarded by its lock.

  /// The transform, until the parent's callback takes it (see ``MapStage``: nothing it captures
  /// outlives the run).
  @usableFromInline @exclusivity(unchecked) var transform: (@Sendable (Input) throws -> T)?
  /// The chain, until the parent's callback takes it: no transform starts once a cancel was
  /// attempted. Released after the run, so that a kept promise does not keep the chain's source
  /// alive. (Its source, not its context: the context's source keeps this stage's parent, so a
  /// stage holding the context would keep a dropped pending chain alive.)
  @usableFromInline @exclusivity(unchecked) var context: ChainState?

  @inlinable
  init(_ transform: @escaping @Sendable (Input) throws -> T) {
    self.transform = transform
    super.init(pending: ())
  }

  /// Makes the stage a member of `context`, registers it on `parent` (`transform` runs on
  /// `queue`, on the resolving thread when `nil`) and returns the new member of the chain.
  /// Consuming: the caller's reference to the new stage becomes its parent's callback.
  @inlinable
  consuming func attach(
    to parent: Promise<Input>, in context: CancelContext, on queue: DispatchQueue?, flags: DispatchFlags
  )
    -> CancellablePromise<T>
  {
    self.context = context.chain
    let member = CancellablePromise(unsharedMember: copy self, context: context)
    if let queue {
      parent.pipe { [self] result in
        switch result {
        case .success(let value):
          queue.async(flags) { self.run(value) }
        case .failure(let error):
          guard let (_, context) = takeWork() else { return }
          context.settle(self, with: .failure(error))
        }
      }
    } else {
      // The stage itself waits: no closure context is allocated, and a stage that settles can
      // hand its delivery back.
      parent.observe(
        .stage(consume self) { stage, result, queue in
          // As in `MapStage`: captures nothing, and `stage` is the callback's reference.
          let stage = unsafeDowncast(consume stage, to: CancellableMapStage<Input, T>.self)
          guard stage.receive(result, handingBackOn: queue) else { return nil }
          return Promise<T>.readyDelivery(of: stage)
        })
    }
    return member
  }

  /// Takes (and so releases from the stage) the transform and the context; `nil` if taken before.
  @inlinable
  func takeWork() -> (@Sendable (Input) throws -> T, ChainState)? {
    guard let transform = transform.take(), let context = context.take() else { return nil }
    return (transform, context)
  }

  /// Called once with the parent's result, on the resolving thread. Returns whether the caller
  /// hands this stage's delivery back (see `Promise.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let (transform, context) = takeWork() else { return false }
    switch consume result {
    case .success(let value):
      guard !context.cancelStarted else { return false }
      return settleMember(Swift.Result { try transform(value) }, in: context, handingBackOn: queue)
    case .failure(let error):
      // Checked before the failure is wrapped again: a cancel passes through a long chain here.
      guard context.cancelStarted else { return settle(.failure(error), handingBackOn: queue) }
      // The parent was rejected by this cancel (the way a cancel passes down a chain) when its
      // error is the cancel error itself: keep it rather than read the reason again. Any other
      // error loses to the cancel error.
      guard context.isCancelled(by: ErrorIdentity(error)) else {
        return settleCancelled(in: context, handingBackOn: queue)
      }
      return settleCancelled(with: error, in: context, handingBackOn: queue)
    }
  }

  /// `CancelContext.settle(_:with:)` (the cancel error wins once a cancel started) for this stage,
  /// handing its delivery back when it may.
  @inlinable
  func settleMember(_ result: Swift.Result<T, Error>, in context: ChainState, handingBackOn queue: ThreadDeliveryQueue?)
    -> Bool
  {
    guard context.cancelStarted else { return settle(result, handingBackOn: queue) }
    return settleCancelled(in: context, handingBackOn: queue)
  }

  /// Rejects this stage with the chain's cancel error (it wins once a cancel started), handing its
  /// delivery back when it may. This is how a cancel reaches most of a long chain: the context
  /// rejects its oldest pending member and each stage passes the rejection on from here.
  @inlinable
  func settleCancelled(in context: ChainState, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let reason = context.cancelReason else { return false }
    return settleCancelled(with: reason, in: context, handingBackOn: queue)
  }

  /// ``settleCancelled(in:handingBackOn:)`` with the chain's cancel error at hand.
  @inlinable
  func settleCancelled(
    with reason: consuming any Error, in context: ChainState, handingBackOn queue: ThreadDeliveryQueue?
  )
    -> Bool
  {
    // `CancelContext.reject(_:cancelledWith:)` with a hand-back, written out: one shared function
    // with an optional queue costs a retain and a release more per stage of a cancelled chain.
    // Keep the two in step.
    switch settleLeavingDelivery(.failure(consume reason)) {
    case .alreadySettled: return false
    case .settled:
      context.markRejected()
      return false
    case .deliver:
      context.markRejected()
      return handsBackDelivery(on: queue)
    }
  }

  /// Runs `transform` unless the chain's cancel has started (its handler rejects this member).
  @inlinable
  func run(_ value: Input) {
    guard let (transform, context) = takeWork(), !context.cancelStarted else { return }
    context.settle(self, with: Swift.Result { try transform(value) })
  }
}
