/// Two countdowns over the same inputs under one lock, with the immutable context that the
/// deciding arrivals act on: *first*, decided by the first arrival that is not counted or by the
/// last counted one, and *all*, decided once every input arrived.
///
/// Two `CountdownStateMachine`s beside a `CoreLock`; one arrival is one lock section for both,
/// and the caller acts on the decisions after unlocking. One object carries both countdowns and
/// the context, so a combinator that waits on its inputs this way costs one allocation. The
/// Futures facade's joins are these (`FutureJoin`).
//
// Safety of `@unchecked Sendable`: `first` and `all` are read and written only inside
// `lock.withLock`; `context` is immutable.
@usableFromInline
package final class CountdownPair<Context: Sendable>: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  @exclusivity(unchecked) private var first: CountdownStateMachine?
  @exclusivity(unchecked) private var all: CountdownStateMachine?
  /// What the deciding arrivals act on.
  package let context: Context

  /// Countdowns over `count` inputs (at least one): *first* if `first`, *all* if `all`.
  package init(count: Int, first: Bool, all: Bool, context: Context) {
    self.first = first ? CountdownStateMachine(count: count) : nil
    self.all = all ? CountdownStateMachine(count: count) : nil
    self.context = context
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Records that one input arrived (`counted` for *first*; *all* counts every arrival) and
  /// returns which countdowns it decided; each is decided exactly once.
  package func arrive(counted: Bool) -> (first: Bool, all: Bool) {
    lock.withLock {
      (first?.arrive(counted: counted) ?? false, all?.arrive(counted: true) ?? false)
    }
  }
}
