/// Work that handles events one at a time: the state ``SerialDrain`` advances.
///
/// The work is a value the drain owns; only the drainer touches it, so it needs no lock and need
/// not be `Sendable` (it may hold a user's iterator).
@usableFromInline
package protocol SerialDrainWork {
  /// What a sender asks the work to handle.
  associatedtype Event: Sendable

  /// Handles one event. Called by the drainer, never under a lock and never while another run
  /// of the same drain is running; it may call user code, and it may send `drain` more events
  /// (they run after this run returns).
  mutating func run(_ event: Event, in drain: SerialDrain<Self>)
}

/// Where events are sent: a ``SerialDrain`` seen without its work's type, for a callback that
/// must not capture that type (a work generic over a user's non-`Sendable` iterator).
package protocol SerialDrainMailbox<Event>: AnyObject, Sendable {
  /// What a sender sends.
  associatedtype Event: Sendable

  /// Sends `event` (see ``SerialDrain/send(_:)``).
  func send(_ event: Event)
}

/// Runs a ``SerialDrainWork`` for events sent from many threads, one event at a time, never
/// under a lock: a serial executor with a mailbox, with no queue or thread of its own.
///
/// A `SerialDrainStateMachine` beside a `CoreLock`: the sender that finds nobody draining becomes
/// the drainer and runs every event, its own first, until none is left (each run after unlocking);
/// the others leave their event under the lock and return. Everything the work holds is touched
/// by one thread at a time, in event order. The Promises facade's `when(_:concurrently:)` pulls
/// with it (the iterator is the work's).
//
// Safety of `@unchecked Sendable`: `machine` is read and written only inside `lock.withLock`;
// `work` only by the drainer, and runs never overlap: the machine makes one thread at a time the
// drainer, and each run starts after the lock release that ended the previous one.
@usableFromInline
package final class SerialDrain<Work: SerialDrainWork>: CoreLockHost, SerialDrainMailbox, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) @usableFromInline var lockStorage = CoreLockStorage()
  @exclusivity(unchecked) @usableFromInline var machine = SerialDrainStateMachine<Work.Event>()
  @usableFromInline var work: Work

  /// A drain of `work`, with no event yet.
  @inlinable
  package init(_ work: Work) {
    self.work = work
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Sends `event`: runs it (and every event sent meanwhile) now if nobody is draining;
  /// otherwise leaves it to the drainer and returns.
  @inlinable
  package func send(_ event: Work.Event) {
    guard var next = lock.withLock({ machine.request(event) }) else { return }
    while true {
      work.run(next, in: self)
      guard let following = lock.withLock({ machine.finishedRun() }) else { return }
      next = following
    }
  }
}
