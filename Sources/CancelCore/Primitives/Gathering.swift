/// Collects the values of a combinator's inputs as they arrive, on any threads, and hands them
/// over, in input order, once every input arrived: a ``Countdown`` that keeps the values too.
///
/// A `GatheringStateMachine` beside a `CoreLock`; the lock section only stores the value and
/// counts, and the values are handed over after unlocking. The inputs' callbacks hold this rather
/// than the inputs themselves: a callback of a pending input that held the other inputs would make
/// the pending inputs keep each other alive for ever once nothing else holds them (a dropped
/// pending combination). The Promises facade's `when` composes it.
//
// Safety of `@unchecked Sendable`: `machine` is read and written only inside `lock.withLock`.
@usableFromInline
package final class Gathering<Value: Sendable>: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) @usableFromInline var lockStorage = CoreLockStorage()
  @exclusivity(unchecked) @usableFromInline var machine: GatheringStateMachine<Value>

  /// A gathering of `count` values (at least one).
  @inlinable
  package init(count: Int) {
    machine = GatheringStateMachine(count: count)
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Records input `index`'s value; returns every value, in input order, exactly once: to the
  /// arrival that completed the gathering.
  @inlinable
  package func arrive(_ index: Int, _ value: Value) -> [Value]? {
    let complete = lock.withLock { machine.arrive(index, value) }
    return complete.map { $0.map { $0! } }
  }
}
