/// The state of a countdown: how many counted arrivals are still awaited, and whether the
/// decisive arrival came.
///
/// Each input of a combinator arrives once. A *counted* arrival counts down, and the one that
/// reaches zero decides; an arrival that is not counted decides alone, at once. Whatever arrives
/// after the decision is ignored, so exactly one arrival decides.
///
/// A plain value with no lock and no user code: ``Countdown`` and ``Gathering`` host it beside a
/// `CoreLock`. Counting under one lock is what makes "all of them arrived" exact when inputs
/// arrive on several threads at once.
@usableFromInline
package struct CountdownStateMachine: Sendable {
  /// Counted arrivals still awaited.
  @usableFromInline var remaining: Int
  /// Set by the decisive arrival; stays set.
  @usableFromInline var isDecided = false

  /// A countdown over `count` inputs (at least one), none arrived.
  @inlinable
  package init(count: Int) {
    precondition(count >= 1, "a countdown needs at least one input")
    remaining = count
  }

  /// Records one arrival; returns `true` exactly once: for the arrival that decides (the last
  /// counted one, or the first one not counted).
  @inlinable
  package mutating func arrive(counted: Bool) -> Bool {
    guard !isDecided else { return false }
    if counted {
      remaining -= 1
      guard remaining == 0 else { return false }
    }
    isDecided = true
    return true
  }
}
