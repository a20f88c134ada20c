/// Events sent from many threads that must be handled one at a time, never under a lock: the
/// first sender becomes the *drainer* and handles events, its own first, until none is left; the
/// others only leave their event and return.
///
/// It is the state of a serial executor with a mailbox: ``SerialDrain`` hosts it beside a
/// `CoreLock`, calls `request(_:)` and `finishedRun()` under the lock, and performs the runs —
/// which may call user code — after unlocking. Events are handled in the order they were left,
/// each run happens after the lock release that ended the previous one, and an event's sender
/// returns before its event is handled when another thread drains.
///
/// A plain value with no lock and no user code. It never releases an event (only moves them out),
/// so nothing of a sender's is freed under the host's lock.
@usableFromInline
package struct SerialDrainStateMachine<Event> {
  /// Whether a drainer is running.
  @usableFromInline var isDraining = false
  /// Events left while a drainer runs, oldest first from `head`; a taken slot holds `nil`.
  @usableFromInline var waiting: ContiguousArray<Event?> = []
  /// The index of the oldest event not taken yet.
  @usableFromInline var head = 0

  /// No event, no drainer.
  @inlinable
  package init() {}

  /// Leaves `event`. Returns it if the caller must now drain: run it, then call `finishedRun()`
  /// and run what it returns, until it returns `nil`. Returns `nil` if a drainer is already
  /// running; that drainer will run the event.
  @inlinable
  package mutating func request(_ event: Event) -> Event? {
    guard isDraining else {
      isDraining = true
      return event
    }
    waiting.append(event)
    return nil
  }

  /// The drainer finished one run. Returns the next event to run, oldest first; `nil` when none
  /// is left and the caller stopped being the drainer.
  @inlinable
  package mutating func finishedRun() -> Event? {
    precondition(isDraining, "finishedRun() without a drainer")
    guard head < waiting.count else {
      isDraining = false
      return nil
    }
    var next: Event?
    swap(&next, &waiting[head])
    head += 1
    if head == waiting.count {
      // Every slot is `nil` now: emptying frees no event.
      waiting.removeAll(keepingCapacity: true)
      head = 0
    }
    return next
  }
}

extension SerialDrainStateMachine: Sendable where Event: Sendable {}
