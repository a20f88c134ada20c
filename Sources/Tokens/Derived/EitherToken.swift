/// The state behind `first || second`: cancelled as soon as either operand is (with that
/// operand's reason), completed without cancellation once both completed without cancellation.
///
/// Why no counter: two operands completing on two threads, each handler checking the other's
/// state with separate atomic loads, can both miss (a store-buffer race). Instead the handler on
/// `second` is registered only after `first` completed without cancellation, and registering is
/// linearized by `second`'s lock against `second` completing: either the handler is in the table
/// when `second` completes, or `second` has completed and the handler runs at once. `second`'s
/// cancellation travels through a core link, registered up front.
final class EitherToken: DeferredDelivery, Sendable {
  let derived = CancelStorage()
  let first: CancelStorage
  let second: CancelStorage

  private init(first: CancelStorage, second: CancelStorage) {
    self.first = first
    self.second = second
  }

  /// Creates `derived` and waits for the operands. Returns `derived`.
  static func make(first: CancelStorage, second: CancelStorage) -> CancelStorage {
    let node = EitherToken(first: first, second: second)
    // `first` before the link: if both are already cancelled, `first`'s reason wins.
    let watch = first.register(.onComplete { _ in SettleDelivery.deliver(node) })
    _ = node.derived.link(to: second)
    // If the result ends through `second` while `first` is pending, the handler left in `first`
    // would wait there until `first` completes: a long-lived `first` (an app-wide token combined
    // with one token per operation) would collect them. The link in `second` is removed by the
    // core when the result ends; this removes the handler in `first`.
    if watch.isActive { _ = node.derived.register(.onComplete { _ in watch.unregister() }) }
    return node.derived
  }

  /// Delivered when `first` completed, and again when `second` completed without cancellation
  /// after `first` had.
  func deliverCallbacks() {
    guard first.isCompleted, !derived.isCompleted else { return }
    if let reason = first.reason {
      _ = derived.cancel(reason: reason)
      return
    }
    // `first` completed without cancellation: `derived` now follows `second` alone.
    if second.isCompleted {
      // A cancelled `second` has cancelled (or is cancelling) `derived` through the link.
      if !second.isCancelled { _ = derived.close() }
      return
    }
    _ = second.register(.onComplete { [self] cancelled in if !cancelled { SettleDelivery.deliver(self) } })
  }
}
