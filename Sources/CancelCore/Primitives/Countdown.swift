/// Counts the inputs of a combinator as they arrive, on any threads, and reports once when the
/// decisive one arrived: the last of the counted ones, or the first one that decides alone.
///
/// A `CountdownStateMachine` beside a `CoreLock`; the lock section only calls the machine, and the
/// caller acts on the answer after unlocking. It holds nothing of the inputs, so an input's
/// callback may hold it without making the pending inputs keep each other alive. The facades'
/// `race`, `when` of mixed thenables and future joins compose it.
//
// Safety of `@unchecked Sendable`: `machine` is read and written only inside `lock.withLock`.
@usableFromInline
package final class Countdown: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) @usableFromInline var lockStorage = CoreLockStorage()
  @exclusivity(unchecked) @usableFromInline var machine: CountdownStateMachine

  /// A countdown over `count` inputs (at least one).
  @inlinable
  package init(count: Int) {
    machine = CountdownStateMachine(count: count)
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Records that one input arrived; returns `true` exactly once, to the decisive arrival: the
  /// one that completed the count, or the first one with `counted: false`.
  @inlinable
  package func arrive(counted: Bool = true) -> Bool {
    lock.withLock { machine.arrive(counted: counted) }
  }
}
