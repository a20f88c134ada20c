/// A value settled exactly once, with callbacks delivered in registration order: the state
/// machine behind every promise, guarantee and future of the facades.
///
/// It is a plain value with no lock and no user code: the object that hosts it (a promise, a
/// future) keeps it beside a `CoreLock`, calls it only inside `lock.withLock`, and does what it
/// returns after unlocking. Callbacks are opaque `Callback` values chosen by the host (wrap
/// closures in a struct; see `RegistrationTable`).
///
/// Delivery rules it encodes:
/// - `settle` wins once; later settles report `.alreadySettled` and change nothing.
/// - While a thread delivers callbacks (`.delivering`), newly observed callbacks queue behind the
///   ones being delivered instead of running at once, so every callback of one value runs in
///   registration order, on the delivering thread, one at a time.
/// - Once delivered (`.settled`), a new callback is handed back to run at once on the observing
///   thread.
@usableFromInline
package struct SettleStateMachine<Value, Callback> {
  /// The phase, kept apart from the value: it is a trivial enum, so checking it never copies
  /// the value (with the value inside the enum, each check copied the whole state, value
  /// included, through its value witnesses when the value is an existential).
  @usableFromInline
  enum Phase {
    /// Not settled; callbacks wait in the table.
    case pending
    /// Settled; a thread is delivering the table's callbacks batch by batch.
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

  @usableFromInline var phase: Phase
  /// The value; `nil` exactly while `phase` is `.pending`.
  @usableFromInline var settledValue: Value?
  @usableFromInline var callbacks = RegistrationTable<Callback>()

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

  /// The number of callbacks waiting (not yet handed out).
  @inlinable package var waitingCount: Int { callbacks.count }

  /// Offers a callback: it waits, or (once the value was delivered) is handed back to run now.
  @inlinable
  package mutating func observe(_ callback: Callback) -> ObserveAction {
    switch phase {
    case .pending, .delivering: return .queued(callbacks.insert(callback))
    case .settled: return .runNow(callback, settledValue!)
    }
  }

  /// Removes a waiting callback and returns it (release it outside the lock); `nil` if it is not
  /// waiting any more.
  @inlinable
  package mutating func remove(_ key: RegistrationKey) -> Callback? {
    callbacks.remove(key)
  }

  /// Removes a waiting callback only if other callbacks are waiting too. Futures use it to let a
  /// consumer leave a shared parent without cancelling it for the others.
  @inlinable
  package mutating func removeUnlessLast(_ key: RegistrationKey) -> RemoveUnlessLastResult {
    guard callbacks.contains(key) else { return .notWaiting }
    guard callbacks.count > 1, let removed = callbacks.remove(key) else { return .isLast }
    return .removed(removed)
  }

  /// Settles with `value` if still pending.
  @inlinable
  package mutating func settle(_ value: Value) -> SettleAction {
    guard phase == .pending else { return .alreadySettled }
    settledValue = value
    if callbacks.count == 0 {
      phase = .settled
      return .settled
    }
    phase = .delivering
    return .deliver
  }

  /// The next callbacks to deliver, with the value; `nil` (and the state becomes `.settled`) once
  /// none remain. Only the delivering thread calls it.
  @inlinable
  package mutating func nextBatch() -> (callbacks: DrainedRegistrations<Callback>, value: Value)? {
    guard phase == .delivering else { return nil }
    if callbacks.count == 0 {
      phase = .settled
      return nil
    }
    return (callbacks.drain(), settledValue!)
  }
}

extension SettleStateMachine: Sendable where Value: Sendable, Callback: Sendable {}
extension SettleStateMachine.Phase: Sendable {}
