import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The package's one lock: every other type that needs mutual exclusion uses this one.
///
/// It guards only short, bounded critical sections that never run user code (handlers run after
/// unlock, removed closures are released after unlock), so waiting is always brief.
///
/// - On Darwin it is the standard library's `Mutex` (an `os_unfair_lock`, which donates priority).
/// - Elsewhere it is a test-and-test-and-set lock on one `Atomic<UInt32>`, cheaper there than
///   `Mutex` (a priority-inheritance futex on Linux) and `pthread_mutex`, uncontended and with two
///   threads contending (docs/performance.md has the figures). A waiter spins briefly and then
///   yields its core, so a preempted holder gets to run.
///
/// The lock is `~Copyable`: it lives inline in the object it protects.
@usableFromInline
package struct CoreLock: ~Copyable, Sendable {
  #if canImport(Darwin)
    @usableFromInline let mutex = Mutex<Void>(())

    /// Creates an unlocked lock.
    @inlinable package init() {}

    /// Runs `body` with the lock held. `body` must not call user code or take this lock again.
    @inlinable @inline(__always)
    package func withLock<Result, Failure: Error>(
      _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
      try mutex.withLock { (_: inout Void) throws(Failure) -> Result in try body() }
    }
  #else
    /// 0 = unlocked, 1 = locked.
    @usableFromInline let word = Atomic<UInt32>(0)

    /// Creates an unlocked lock.
    @inlinable package init() {}

    /// Runs `body` with the lock held. `body` must not call user code or take this lock again.
    @inlinable @inline(__always)
    package func withLock<Result, Failure: Error>(
      _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
      if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
        lockContended()
      }
      defer { word.store(0, ordering: .releasing) }
      return try body()
    }

    /// The slow path: spin on plain loads (so waiters don't bounce the cache line), then yield.
    @usableFromInline @inline(never)
    func lockContended() {
      var spins = 0
      while true {
        if word.load(ordering: .relaxed) == 0,
          word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
        {
          return
        }
        spins += 1
        if spins >= 100 { sched_yield() }
      }
    }
  #endif
}
