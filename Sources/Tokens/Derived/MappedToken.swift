/// The state behind `token.map(transform)`: completes `derived` once `source` has.
///
/// `source` cancelled: `transform()` decides — `true` cancels `derived` with `source`'s reason,
/// `false` completes it without cancellation. `source` completed without cancellation: so does
/// `derived`.
///
/// The node is held only by its handler in `source` (and, briefly, by the delivery queue), so it
/// lives exactly until it has completed `derived`. It completes `derived` through
/// `SettleDelivery`, so a chain of derived tokens of any length completes in constant stack.
final class MappedToken: DeferredDelivery, Sendable {
  let derived = CancelStorage()
  let source: CancelStorage
  let transform: @Sendable () -> Bool

  private init(source: CancelStorage, transform: @escaping @Sendable () -> Bool) {
    self.source = source
    self.transform = transform
  }

  /// Creates `derived` and waits for `source`. Returns `derived`.
  static func make(source: CancelStorage, transform: @escaping @Sendable () -> Bool) -> CancelStorage {
    let node = MappedToken(source: source, transform: transform)
    _ = source.register(.onComplete { _ in SettleDelivery.deliver(node) })
    return node.derived
  }

  /// Delivered once, after `source` completed: its state is final.
  func deliverCallbacks() {
    if let reason = source.reason, transform() {
      _ = derived.cancel(reason: reason, cause: .link(source))
    } else {
      _ = derived.close()
    }
  }
}
