/// A value settled exactly once, with callbacks delivered in registration order, each removable
/// by key while it waits: the one state machine behind every promise, guarantee and future of the
/// facades and the core's `SettleCell`. A plain value with no lock and no user code: its host (a
/// `SettleHost`) calls it only inside `lock.withLock` and does what it returns after unlocking.
/// Callbacks are opaque values the host chooses (a struct or enum: see `RegistrationTable`).
///
/// - `settle` wins once; later settles report `.alreadySettled` and change nothing.
/// - While a thread delivers (`.delivering`), new callbacks queue behind the ones being delivered:
///   every callback of one value runs in registration order, on that thread, one at a time.
/// - Once delivered (`.settled`), a new callback is handed back to run at once on its thread.
///
/// A host that keeps its value itself uses `Value == Void`: it writes the value in the lock section
/// of a `settle(())` that did not report `.alreadySettled`, and reads it for `.runNow` and each
/// delivery. Why: docs/architecture.md, "Modules" (the hosts of a settle-once value).
@usableFromInline
package struct SettleStateMachine<Value, Callback> {
  /// The phase, kept apart from the value: it is a trivial enum, so checking it never copies the
  /// value.
  @usableFromInline
  enum Phase: UInt8 {
    /// Not settled; callbacks wait.
    case pending
    /// Settled; a thread is delivering the waiting callbacks batch by batch.
    case delivering
    /// Settled; every callback registered so far was handed out.
    case settled
  }

  /// What to do with a callback just offered.
  @usableFromInline
  package enum ObserveAction {
    /// It waits in the table under this key.
    case queued(RegistrationKey)
    /// The value is already delivered: run the callback now, on this thread, with this value.
    case runNow(Callback, Value)
  }

  /// What to do after `settle`.
  @usableFromInline
  package enum SettleAction {
    /// This call settled the value and callbacks wait: deliver them (`nextBatch()` until `nil`),
    /// through `SettleDelivery.deliver` so that nested deliveries do not recurse.
    case deliver
    /// This call settled the value and nobody was waiting.
    case settled
    /// The value had already been settled; nothing changed.
    case alreadySettled
  }

  /// What `removeUnlessLast` found.
  @usableFromInline
  package enum RemoveUnlessLastResult {
    /// Removed; other callbacks remain.
    case removed(Callback)
    /// The callback is the only one waiting; it was left in place.
    case isLast
    /// The callback is not waiting (already handed out, removed, or never there).
    case notWaiting
  }

  // Fields are ordered so that the phase and the tag share the padding behind a value of up to
  // nine bytes (one word and a tag byte, as a future's erased result, or `Void?`'s one byte).
  /// The value (`()` for a host that stores the value itself); `nil` exactly while `phase` is
  /// `.pending`.
  @usableFromInline var settledValue: Value?
  @usableFromInline var phase: Phase
  /// The tag of the inline callback's key; incremented for each callback placed there.
  @usableFromInline var firstTag: UInt32 = 0
  /// The oldest waiting callback. Used only when nothing waits, so it is always the oldest.
  @usableFromInline var first: Callback?
  /// Callbacks behind `first`; allocated when a second callback waits at once.
  @usableFromInline var more: OverflowCallbacks<Callback>?

  /// A pending value with no callbacks; allocates nothing.
  @inlinable package init() {
    phase = .pending
    settledValue = nil
  }

  /// A value settled from the start.
  @inlinable package init(settled value: Value) {
    phase = .settled
    settledValue = value
  }

  /// The value, once settled.
  @inlinable package var value: Value? { settledValue }

  /// Whether `settle` has happened.
  @inlinable package var isSettled: Bool { phase != .pending }

  /// Whether a callback offered now runs at once: settled, and every callback registered before
  /// was handed out (not while a delivery still runs them, which a new one must not overtake).
  @inlinable package var runsCallbacksAtOnce: Bool { phase == .settled }

  /// The number of callbacks waiting (not yet handed out).
  @inlinable package var waitingCount: Int {
    (first == nil ? 0 : 1) + (more?.table.count ?? 0)
  }

  /// Whether callbacks wait (not yet handed out).
  @inlinable package var hasWaiting: Bool { first != nil || more != nil }

  /// Hands over the waiting callbacks without delivering them, for a host being freed (see
  /// `IterativeRelease`).
  @inlinable
  package mutating func takeWaiting() -> SettleCallbackBatch<Callback> {
    var table = more.take()?.table ?? RegistrationTable<Callback>()
    return SettleCallbackBatch(first: first.take(), rest: table.drain())
  }

  /// Offers a callback: it waits (under the returned key), or, once the value was delivered, it
  /// is handed back to run now with the value. Consuming, so that a callback that owns a
  /// reference (a promise's stage) moves in without a retain.
  @inlinable
  package mutating func observe(_ callback: consuming Callback) -> ObserveAction {
    switch phase {
    case .pending, .delivering: return .queued(insert(callback))
    case .settled: return .runNow(callback, settledValue!)
    }
  }

  @inlinable
  mutating func insert(_ callback: consuming Callback) -> RegistrationKey {
    if first == nil, more == nil || more!.table.count == 0 {
      firstTag &+= 1
      first = callback
      return RegistrationKey(index: 0, tag: firstTag)
    }
    if more == nil { more = OverflowCallbacks() }
    let key = more!.table.insert(callback)
    return RegistrationKey(index: key.index &+ 1, tag: key.tag)
  }

  /// Whether `key` refers to a callback still waiting.
  @inlinable
  package func contains(_ key: RegistrationKey) -> Bool {
    if key.index == 0 { return first != nil && firstTag == key.tag }
    guard let more else { return false }
    return more.table.contains(RegistrationKey(index: key.index &- 1, tag: key.tag))
  }

  /// Removes a waiting callback and returns it (release it outside the lock); `nil` if it is not
  /// waiting any more.
  @inlinable
  package mutating func remove(_ key: RegistrationKey) -> Callback? {
    if key.index == 0 {
      guard firstTag == key.tag else { return nil }
      return first.take()
    }
    guard let more else { return nil }
    return more.table.remove(RegistrationKey(index: key.index &- 1, tag: key.tag))
  }

  /// Removes a waiting callback only if other callbacks are waiting too. Futures use it to let a
  /// consumer leave a shared parent without cancelling it for the others.
  @inlinable
  package mutating func removeUnlessLast(
    _ key: RegistrationKey
  ) -> RemoveUnlessLastResult {
    guard contains(key) else { return .notWaiting }
    guard waitingCount > 1, let removed = remove(key) else { return .isLast }
    return .removed(removed)
  }

  /// Settles with `value` if still pending. Consuming, so that a value that is reference counted
  /// (an error a cancel hands every stage of a chain) moves in without a retain.
  @inlinable
  package mutating func settle(_ value: consuming Value) -> SettleAction {
    guard phase == .pending else { return .alreadySettled }
    settledValue = consume value
    if first == nil && (more == nil || more!.table.count == 0) {
      phase = .settled
      return .settled
    }
    phase = .delivering
    return .deliver
  }

  /// The next callbacks to deliver (the host reads its value in the same lock section); `nil` (and
  /// the state becomes `.settled`) once none remain. Only the delivering thread calls it, until it
  /// returns `nil`.
  @inlinable
  package mutating func takeNextCallbacks() -> SettleCallbacks<Callback>? {
    guard phase == .delivering else { return nil }
    if more == nil || more!.table.count == 0 {
      if let only = first.take() { return .one(only) }
      phase = .settled
      return nil
    }
    return .many(SettleCallbackBatch(first: first.take(), rest: more!.table.drain()))
  }
}

extension SettleStateMachine: Sendable where Value: Sendable, Callback: Sendable {}
extension SettleStateMachine.Phase: Sendable {}

/// Callbacks handed out for delivery by `SettleStateMachine.takeNextCallbacks()`.
@usableFromInline
package enum SettleCallbacks<Callback> {
  /// Exactly one callback (the common case: a chain's next stage).
  case one(Callback)
  /// Several callbacks, oldest first.
  case many(SettleCallbackBatch<Callback>)
}

extension SettleCallbacks: Sendable where Callback: Sendable {}

/// The callbacks of a `SettleStateMachine` behind its inline one, kept out of line so that
/// the machine stays small.
///
/// Its machine's host reads and writes it only under its `CoreLock`, and only that machine holds
/// it.
@usableFromInline
package final class OverflowCallbacks<Callback>: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: only the `SettleStateMachine` that made it holds it, and
  // that machine's host calls it only inside its lock.
  @exclusivity(unchecked) @usableFromInline var table = RegistrationTable<Callback>()

  @inlinable init() {}
}

/// Callbacks drained from a `SettleStateMachine`, handed out oldest first; each is released
/// from here as it is handed out, so a closure lives no longer than its own run.
@usableFromInline
package struct SettleCallbackBatch<Callback> {
  @usableFromInline var first: Callback?
  @usableFromInline var rest: DrainedRegistrations<Callback>

  @inlinable
  init(first: Callback?, rest: DrainedRegistrations<Callback>) {
    self.first = first
    self.rest = rest
  }

  /// The oldest callback not yet handed out.
  @inlinable
  package mutating func popOldest() -> Callback? {
    if let callback = first.take() { return callback }
    return rest.popOldest()
  }
}

extension SettleCallbackBatch: Sendable where Callback: Sendable {}
