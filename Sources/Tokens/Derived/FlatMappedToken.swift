/// The state behind `token.flatMap(transform)`: completes `derived` once `source` has and, if
/// `source` was cancelled, once the token `transform()` returned has.
///
/// `source` cancelled: `derived` follows `transform()`'s token — cancelled with its reason when it
/// is cancelled, completed without cancellation when it is. `source` completed without
/// cancellation: so does `derived`, and `transform` never runs.
final class FlatMappedToken: DeferredDelivery, Sendable {
  let derived = CancelStorage()
  let source: CancelStorage
  let transform: @Sendable () -> CancellationToken

  private init(source: CancelStorage, transform: @escaping @Sendable () -> CancellationToken) {
    self.source = source
    self.transform = transform
  }

  /// Creates `derived` and waits for `source`. Returns `derived`.
  static func make(source: CancelStorage, transform: @escaping @Sendable () -> CancellationToken) -> CancelStorage {
    let node = FlatMappedToken(source: source, transform: transform)
    _ = source.register(.onComplete { _ in SettleDelivery.deliver(node) })
    return node.derived
  }

  /// Delivered once, after `source` completed: its state is final.
  func deliverCallbacks() {
    guard source.isCancelled else {
      _ = derived.close()
      return
    }
    let inner = transform().storage
    // The inner token's cancellation reaches `derived` through a core link, which carries the
    // reason and is removed when `derived` ends; its completion without cancellation through a
    // handler. Each registration is linearized by the inner token's lock, so whichever way and
    // whenever it completes, exactly one of them acts.
    _ = derived.link(to: inner)
    let derived = derived
    _ = inner.register(.onComplete { cancelled in if !cancelled { _ = derived.close() } })
  }
}
