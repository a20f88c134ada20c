/// How a stage of a cancellable chain (``CancellableMapStage``, ``CancellableThenStage``) settles
/// itself from a callback running in a delivery, handing its own delivery back when it may (see
/// `Promise.settle(_:handingBackOn:)`). Each returns whether the caller hands it back.
extension Promise {
  /// Passes on the rejection of the stage's parent (or a failure of its own), with the chain's
  /// cancel error once a cancel started.
  @inlinable @inline(__always)
  func settleMemberRejected(
    with error: consuming any Error, in context: ChainState, handingBackOn queue: ThreadDeliveryQueue?
  ) -> Bool {
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

  /// `CancelContext.settle(_:with:)` (the cancel error wins once a cancel started) for this stage.
  @inlinable
  func settleMember(_ result: Swift.Result<T, Error>, in context: ChainState, handingBackOn queue: ThreadDeliveryQueue?)
    -> Bool
  {
    guard context.cancelStarted else { return settle(result, handingBackOn: queue) }
    return settleCancelled(in: context, handingBackOn: queue)
  }

  /// Rejects this stage with the chain's cancel error (it wins once a cancel started). This is how
  /// a cancel reaches most of a long chain: the context rejects its oldest pending member and each
  /// stage passes the rejection on from here.
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
}
