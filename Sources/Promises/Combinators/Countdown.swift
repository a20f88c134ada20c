import CancelCore

/// Counts the inputs of a combinator as they resolve and reports, once, when the decisive input
/// arrived: the last of the counted ones, or the first one that decides alone.
///
/// It hosts the core's `CancelJoinStateMachine` beside a `CoreLock` (the hosting exception of
/// docs/architecture.md): the machine's "operands" are the combinator's inputs, and counting them
/// under one lock is what makes "all of them resolved" exact when inputs resolve on several
/// threads at once. No handler of the join is registered on any source, so there is nothing to
/// remove when the decision is taken. No user code runs under the lock.
@usableFromInline
final class Countdown: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `machine` is read and written only inside `lock.withLock`.

  @exclusivity(unchecked) private var machine: CancelJoinStateMachine

  /// A countdown over `count` inputs (at least one). Under `.allCancelled`, an arrival marked
  /// `counted: true` is counted and the last one decides; `counted: false` decides alone.
  @usableFromInline
  init(count: Int) {
    machine = CancelJoinStateMachine(rule: .allCancelled, operandCount: count)
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Records that input `index` resolved; returns `true` exactly once: for the arrival that
  /// completed the count (or for the first `counted: false` arrival).
  @usableFromInline
  func arrive(_ index: Int, counted: Bool = true) -> Bool {
    lock.withLock {
      guard machine.operandCompleted(index, cancelled: counted) != nil else { return false }
      return machine.takeDecision() != nil
    }
  }
}
