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
  /// Inlinable, and generic only in what it must be (freeing or queueing `value`): the queue's
  /// bookkeeping is non-generic. A host's `deinit` runs unspecialized, and a generic function it
  /// reaches unspecialized looks up `Value`'s metadata at run time; where the caller knows
  /// `Value`, this is specialized and looks nothing up.
  @inlinable
  package static func release<Value>(_ value: consuming Value) {
    guard startReleasing() else {
      enqueue(value)
      return
    }
    _ = consume value  // may run `deinit`s that queue more
    finishReleasing()
  }

  /// The steps of ``release(_:)``, for a caller that frees its value in its own code (so that it
  /// is compiled for the value's type where the caller knows it): marks this thread as releasing
  /// and returns `true`; returns `false` if a release is already running on this thread, and the
  /// value must then be queued with ``enqueue(_:)``.
  @usableFromInline
  package static func startReleasing() -> Bool {
    ThreadReleaseQueue.startReleasing()
  }

  /// Queues `value` for the release running on this thread (see ``startReleasing()``).
  @usableFromInline
  package static func enqueue(_ value: Any) {
    ThreadReleaseQueue.enqueue(value)
  }

  /// After the caller freed its value (see ``startReleasing()``): frees what was queued meanwhile,
  /// in a loop, then marks this thread as not releasing.
  @usableFromInline
  package static func finishReleasing() {
    ThreadReleaseQueue.finishReleasing()
  }
}

/// One thread's queue of values waiting to be freed. Thread-confined: only its own thread touches
/// it.
//
// The dynamic exclusivity checks (a runtime call and a thread-local lookup on every access) are
// switched off: only the owning thread accesses the queue, and `release(_:)` never frees a value
// (which may run a `deinit` that queues more) while an access to `pending` is in progress.
final class ThreadReleaseQueue {
  @exclusivity(unchecked) var isReleasing = false
  @exclusivity(unchecked) var pending: [Any] = []

  /// The calling thread's queue, created on first use and released when the thread exits.
  private static var current: ThreadReleaseQueue {
    threadReleaseQueues.current(make: { ThreadReleaseQueue() })
  }

  /// Marks this thread as releasing and returns `true`, or returns `false` if a release is already
  /// running on it (the value must then be queued).
  static func startReleasing() -> Bool {
    let queue = current
    if queue.isReleasing { return false }
    queue.isReleasing = true
    return true
  }

  /// Queues `value` for the release running on this thread.
  static func enqueue(_ value: Any) {
    current.pending.append(value)
  }

  /// Frees what was queued meanwhile, in a loop, then marks this thread as not releasing.
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
