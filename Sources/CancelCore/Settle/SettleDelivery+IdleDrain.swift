extension SettleDelivery {
  /// `deliver(_:)`, without the queue's clean-up when nothing was queued meanwhile.
  ///
  /// Same semantics as `deliver(_:)`: the first delivery on a thread runs at once, deliveries
  /// started from inside it are queued and run in order before this returns. The difference is
  /// cost: `deliver(_:)` always ends with `ThreadDeliveryQueue.drain()`, whose final
  /// `removeAll(keepingCapacity:)` measured about 290 instructions per call even on an empty queue —
  /// about a tenth of building, cancelling and freeing a token join. Here the drain runs only if
  /// something was queued. (Folding this guard into `deliver(_:)` itself would give every settle
  /// the same saving.)
  package static func deliverSkippingIdleDrain(_ host: any DeferredDelivery) {
    let queue = ThreadDeliveryQueue.current
    if queue.isDelivering {
      queue.pending.append(host)
      return
    }
    queue.isDelivering = true
    host.deliverCallbacks()
    if !queue.pending.isEmpty { queue.drain() }
    queue.isDelivering = false
  }
}
