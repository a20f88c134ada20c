/// The state behind `first && second`: cancelled once both operands are (with `second`'s reason),
/// completed without cancellation as soon as either completes without cancellation.
///
/// Why no counter: two cancellations on two threads, each handler checking the other's state
/// with separate atomic loads, could both miss. Instead, once `first` is cancelled, `derived` is
/// linked to `second`; the link registration is linearized by `second`'s lock against `second`
/// ending, so `second`'s cancellation reaches `derived` whether it happened before or after. The
/// "either completed without cancellation" side needs no coordination: each operand's handler
/// closes `derived`, and closing twice is harmless.
final class BothToken: DeferredDelivery, Sendable {
  let derived = CancelStorage()
  let first: CancelStorage
  let second: CancelStorage

  private init(first: CancelStorage, second: CancelStorage) {
    self.first = first
    self.second = second
  }

  /// Creates `derived` and waits for the operands. Returns `derived`.
  static func make(first: CancelStorage, second: CancelStorage) -> CancelStorage {
    let node = BothToken(first: first, second: second)
    let watchFirst = first.register(.onComplete { _ in SettleDelivery.deliver(node) })
    let watchSecond = second.register(.onComplete { cancelled in if !cancelled { SettleDelivery.deliver(node) } })
    // Once the result has ended, the handler left in the operand that did not end it is useless;
    // remove it, so a long-lived operand does not collect one per result.
    _ = node.derived.register(
      .onComplete { _ in
        watchFirst.unregister()
        watchSecond.unregister()
      })
    return node.derived
  }

  /// Delivered when `first` completed, and when `second` completed without cancellation.
  func deliverCallbacks() {
    guard !derived.isCompleted else { return }
    if first.isClosed || second.isClosed {
      _ = derived.close()
    } else if first.isCancelled {
      // Cancels `derived` at once if `second` is already cancelled; refused if `derived` ended.
      _ = derived.link(to: second)
    }
  }
}

extension CancelStorage {
  /// Whether the source completed without cancellation. Final once `true`.
  var isClosed: Bool { isCompleted && !isCancelled }
}
