import Dispatch
import Foundation

/// Blocks the calling thread until a callback fires: the one blocking primitive of the package,
/// for synchronous APIs such as `Promise.wait()`.
package enum BlockingWait {
  /// Calls `register` with a `done` closure and blocks until `done` has been called once.
  ///
  /// Called inside a handler of ours, it first runs the deliveries queued on this thread (see
  /// `SettleDelivery.runQueuedDeliveries()`), so waiting for a stage that the handler itself
  /// settled returns instead of waiting for the handler to return.
  ///
  /// On the main thread it runs the main run loop while it waits, which runs the main queue's
  /// blocks (on Linux too): a chain whose bodies run on the main queue (the default queue, or
  /// bodies isolated to the main actor, as in a program's top-level code) can then settle while
  /// the main thread waits for it, where blocking would wait forever. Elsewhere, never call it on
  /// the thread or queue that must run `done` later: it would wait forever.
  package static func wait(_ register: (_ done: @escaping @Sendable () -> Void) -> Void) {
    SettleDelivery.runQueuedDeliveries()
    let semaphore = DispatchSemaphore(value: 0)
    guard Thread.isMainThread else {
      register { semaphore.signal() }
      semaphore.wait()
      return
    }
    // The empty block wakes the run loop after the signal. Inside a block of the main queue the
    // run loop cannot run the main queue's blocks (that one included), so it also wakes every
    // 10 ms to look. What this thread queued meanwhile (also by the handlers the run loop ran)
    // runs after each turn, as before the wait.
    register {
      semaphore.signal()
      DispatchQueue.main.async {}
    }
    while semaphore.wait(timeout: .now()) == .timedOut {
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
      SettleDelivery.runQueuedDeliveries()
    }
  }
}
