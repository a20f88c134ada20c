/// Runs work that may start more work of its kind without nesting it on the stack.
///
/// A cancel request runs user code (a producer's request handler) that may request again — the
/// next future of a chain, the one that requested it, the whole batch it belongs to. Carried out
/// in place, each such request would run inside the previous one, a frame or more per handler,
/// and a long enough chain or ring would overflow the stack. Instead, each thread keeps a queue:
/// the first ``run(_:_:)`` on a thread performs its work at once; a `run` made while that work is
/// running on the same thread (from anything it calls) only queues its work, and the first call
/// performs the queue in order, oldest first, once the current work returns. The stack then stays
/// a few frames deep whatever the depth, and all the work is still done on the calling thread
/// before the outermost `run` returns.
///
/// Thread-confined, like `SettleDelivery` and `IterativeRelease`: no lock, no atomic. Its queue is
/// its own, so work queued here never waits behind a delivery, nor a delivery behind it.
package enum ReentrantRun {
  /// Performs `perform(work)` now, or, inside another `run` on this thread, queues it for that
  /// `run` to perform when its current work returns.
  ///
  /// Only a queued call keeps `perform` and `work` (one allocation); the outermost call keeps
  /// nothing, so pass a closure that captures nothing and put what it needs in `work`.
  package static func run<Work>(_ work: Work, _ perform: @escaping (Work) -> Void) {
    ThreadRunQueue.withCurrent { queue in
      guard !queue.isRunning else {
        queue.pending.append { perform(work) }
        return
      }
      queue.isRunning = true
      perform(work)
      if !queue.pending.isEmpty { queue.drain() }
      queue.isRunning = false
    }
  }
}

/// One thread's queue of work waiting for the `ReentrantRun.run` running on it. Thread-confined:
/// only its own thread touches it.
//
// The dynamic exclusivity checks are switched off, as in `ThreadReleaseQueue`: only the owning
// thread accesses the queue, and `drain()` runs no work while an access to `pending` is in
// progress (it swaps the queued work out first).
final class ThreadRunQueue {
  @exclusivity(unchecked) var isRunning = false
  @exclusivity(unchecked) var pending: [() -> Void] = []

  /// Performs the queued work, oldest first, including work queued meanwhile.
  func drain() {
    var batch: [() -> Void] = []
    while !pending.isEmpty {
      // Everything queued while `batch` runs was queued after it: first in, first out.
      swap(&batch, &pending)
      for work in batch { work() }
      batch.removeAll(keepingCapacity: batch.capacity <= 64)
    }
  }

  /// Calls `body` with the calling thread's queue, created on first use and released when the
  /// thread exits.
  static func withCurrent(_ body: (ThreadRunQueue) -> Void) {
    threadRunQueues.withCurrent(make: { ThreadRunQueue() }, body)
  }
}

/// The thread-local slot holding each thread's `ThreadRunQueue`.
private let threadRunQueues = ThreadLocalObject<ThreadRunQueue>()
