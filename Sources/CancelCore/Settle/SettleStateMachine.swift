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
  @usableFromInline
  enum State {
    /// Not settled; callbacks wait in the table.
    case pending
    /// Settled with the value; a thread is delivering the table's callbacks batch by batch.
    case delivering(Value)
    /// Settled with the value; every callback registered so far was handed out.
    case settled(Value)
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

  @usableFromInline var state: State
  @usableFromInline var callbacks = RegistrationTable<Callback>()

  /// A pending value with no callbacks; allocates nothing.
  @inlinable package init() {
    state = .pending
  }

  /// A value settled from the start.
  @inlinable package init(settled value: Value) {
    state = .settled(value)
  }

  /// The value, once settled.
  @inlinable package var value: Value? {
    switch state {
    case .pending: return nil
    case .delivering(let value), .settled(let value): return value
    }
  }

  /// Whether `settle` has happened.
  @inlinable package var isSettled: Bool {
    if case .pending = state { return false }
    return true
  }

  /// The number of callbacks waiting (not yet handed out).
  @inlinable package var waitingCount: Int { callbacks.count }

  /// Offers a callback: it waits, or (once the value was delivered) is handed back to run now.
  @inlinable
  package mutating func observe(_ callback: Callback) -> ObserveAction {
    switch state {
    case .pending, .delivering: return .queued(callbacks.insert(callback))
    case .settled(let value): return .runNow(callback, value)
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
    guard case .pending = state else { return .alreadySettled }
    if callbacks.count == 0 {
      state = .settled(value)
      return .settled
    }
    state = .delivering(value)
    return .deliver
  }

  /// The next callbacks to deliver, with the value; `nil` (and the state becomes `.settled`) once
  /// none remain. Only the delivering thread calls it.
  @inlinable
  package mutating func nextBatch() -> (callbacks: DrainedRegistrations<Callback>, value: Value)? {
    guard case .delivering(let value) = state else { return nil }
    if callbacks.count == 0 {
      state = .settled(value)
      return nil
    }
    return (callbacks.drain(), value)
  }
}

extension SettleStateMachine: Sendable where Value: Sendable, Callback: Sendable {}
extension SettleStateMachine.State: Sendable where Value: Sendable, Callback: Sendable {}
