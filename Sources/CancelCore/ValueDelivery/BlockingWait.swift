import Dispatch

/// Blocks the calling thread until a callback fires: the one blocking primitive of the package,
/// for synchronous APIs such as `Promise.wait()`.
package enum BlockingWait {
  /// Calls `register` with a `done` closure and blocks until `done` has been called once.
  ///
  /// Called inside a handler of ours, it first runs the deliveries queued on this thread (see
  /// `SettleDelivery.runQueuedDeliveries()`), so waiting for a stage that the handler itself
  /// settled returns instead of waiting for the handler to return. Never call it on the thread or
  /// queue that must run `done` later: it would wait forever.
  package static func wait(_ register: (_ done: @escaping @Sendable () -> Void) -> Void) {
    SettleDelivery.runQueuedDeliveries()
    let semaphore = DispatchSemaphore(value: 0)
    register { semaphore.signal() }
    semaphore.wait()
  }
}
