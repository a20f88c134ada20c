import CancelCore

/// Collects the values of a combinator's inputs as they arrive and hands them over, in input
/// order, once every input arrived: a ``Countdown`` that keeps the values too.
///
/// The inputs' callbacks hold this rather than the inputs themselves: a callback of a pending
/// input that held the other inputs would make the pending inputs keep each other alive for ever
/// once nothing else holds them (a dropped pending combination). It hosts the core's
/// `CancelJoinStateMachine` and the values beside a `CoreLock`, as `Countdown` does (the hosting
/// exception of docs/architecture.md). No user code runs under the lock.
@usableFromInline
final class Gathering<Value: Sendable>: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `machine` and `values` are read and written only inside
  // `lock.withLock`.

  @exclusivity(unchecked) private var machine: CancelJoinStateMachine
  @exclusivity(unchecked) private var values: ContiguousArray<Value?>

  /// A gathering of `count` values (at least one).
  @usableFromInline
  init(count: Int) {
    machine = CancelJoinStateMachine(rule: .allCancelled, operandCount: count)
    values = ContiguousArray(repeating: nil, count: count)
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Records input `index`'s value; returns every value, in input order, exactly once: to the
  /// arrival that completed the gathering.
  @usableFromInline
  func arrive(_ index: Int, _ value: Value) -> [Value]? {
    let complete = lock.withLock { () -> ContiguousArray<Value?>? in
      values[index] = value
      guard machine.operandCompleted(index, cancelled: true) != nil, machine.takeDecision() != nil else { return nil }
      defer { values = [] }
      return values
    }
    return complete.map { $0.map { $0! } }
  }
}
