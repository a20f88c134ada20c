/// Frees structures of any depth without recursing on the stack.
///
/// A pending promise or future holds the stages waiting on it, each stage the stages waiting on
/// it, and so on: dropping the root of a million pending stages would free them one `deinit`
/// inside the other, a million frames deep. Instead, a host being freed hands what it still holds
/// downstream (its waiting callbacks, or its link upstream) to ``release(_:)``. The first such
/// call on a thread frees it at once; any call made while that runs (by the `deinit` of something
/// it freed) only queues its value, and the first call frees the queue in a loop. The stack then
/// stays a few frames deep whatever the depth, and everything is still freed before the first
/// call returns, on the same thread.
///
/// Only `deinit`s of hosts that still hold something call it, so work that settled normally (its
/// callbacks ran and were released then) never pays for it.
package enum IterativeRelease {
  /// Frees `value` now, or (inside another release on this thread) queues it for that release to
  /// free when the current step returns.
  ///
  /// Generic only in what it must be (freeing or queueing `value`); the queue's bookkeeping is
  /// non-generic, so a call that runs unspecialized (a host's `deinit` often does) does little
  /// generic work.
  @inlinable
  package static func release<Value>(_ value: consuming Value) {
    guard ThreadReleaseQueue.startReleasing() else { return ThreadReleaseQueue.enqueue(value) }
    discard(consume value)  // may run `deinit`s that queue more
    ThreadReleaseQueue.finishReleasing()
  }

  /// Frees `value` before returning: a function's consumed parameter ends with its call, so the
  /// freeing happens while this thread is marked as releasing, in every build (the end of a
  /// local's lifetime is the optimizer's to place).
  @inlinable
  static func discard<Value>(_ value: consuming Value) {}
}

/// One thread's queue of values waiting to be freed. Thread-confined: only its own thread touches
/// it.
//
// The dynamic exclusivity checks (a runtime call and a thread-local lookup on every access) are
// switched off: only the owning thread accesses the queue, and `release(_:)` never frees a value
// (which may run a `deinit` that queues more) while an access to `pending` is in progress.
@usableFromInline
final class ThreadReleaseQueue {
  @exclusivity(unchecked) var isReleasing = false
  @exclusivity(unchecked) var pending: [Any] = []

  /// The calling thread's queue, created on first use and released when the thread exits.
  private static var current: ThreadReleaseQueue {
    threadReleaseQueues.current(make: { ThreadReleaseQueue() })
  }

  /// Marks this thread as releasing and returns `true`, or returns `false` if a release is already
  /// running on it (the value must then be queued).
  @usableFromInline
  static func startReleasing() -> Bool {
    let queue = current
    if queue.isReleasing { return false }
    queue.isReleasing = true
    return true
  }

  /// Queues `value` for the release running on this thread.
  @usableFromInline
  static func enqueue(_ value: Any) {
    current.pending.append(value)
  }

  /// Frees what was queued meanwhile, in a loop, then marks this thread as not releasing.
  @usableFromInline
  static func finishReleasing() {
    let queue = current
    // `popLast()` ends its access to `pending` before the popped value is freed at the end of
    // each turn, so a `deinit` that queues more finds the array free to append to.
    while let next = queue.pending.popLast() { _ = next }
    queue.isReleasing = false
  }
}

/// The thread-local slot holding each thread's `ThreadReleaseQueue`.
private let threadReleaseQueues = ThreadLocalObject<ThreadReleaseQueue>()
