/// The phase and the waiting callbacks of a settle-once value whose host stores the value itself:
/// `SettleStateMachine` without the value, for promises.
///
/// Why the value lives outside: a host generic over its value type (`Promise<T>`) that stores a
/// struct containing the value pays, on every deallocation, a runtime lookup of that struct's
/// type metadata (about 330 instructions, measured), because its unspecialized `deinit` cannot
/// know the struct's layout. This machine's layout does not depend on the value type, and the host
/// keeps the value in a field typed by a generic parameter of its own class, which needs no lookup.
///
/// The rules are `SettleStateMachine`'s: `settle` wins once; callbacks are delivered once, in
/// registration order, on the delivering thread, and callbacks offered while a thread delivers
/// queue behind the ones being delivered; once delivered, a new callback is handed back to run at
/// once. The host writes the value in the same lock section as a `settle` that did not report
/// `.alreadySettled`, and reads it for `.runNow` and for each batch.
///
/// A plain value: no lock and no user code; its host calls it inside its `CoreLock`.
@usableFromInline
package struct SettlePhaseStateMachine<Callback> {
  /// See `SettleStateMachine.Phase`.
  @usableFromInline
  enum Phase {
    case pending
    case delivering
    case settled
  }

  /// What to do with a callback just offered.
  @usableFromInline
  package enum ObserveAction {
    /// It waits for the value.
    case queued
    /// The value is already delivered: run the callback now, on this thread, with the host's value.
    case runNow(Callback)
  }

  /// What to do after `settle()`.
  @usableFromInline
  package enum SettleAction {
    /// This call settled the value and callbacks wait: deliver them (`nextDelivery()` until `nil`)
    /// through `SettleDelivery.deliver`, so that nested deliveries do not recurse.
    case deliver
    /// This call settled the value and nobody was waiting.
    case settled
    /// The value had already been settled; nothing changed (do not store the new value).
    case alreadySettled
  }

  // The list first and the one-byte phase last, so that a host's next small field packs into the
  // padding after the phase.
  @usableFromInline var callbacks = CallbackList<Callback>()
  @usableFromInline var phase: Phase

  /// Pending, with no callbacks; allocates nothing.
  @inlinable package init() {
    phase = .pending
  }

  /// Settled from the start (the host stores the value).
  @inlinable package init(settled: Void) {
    phase = .settled
  }

  /// Whether `settle()` has happened.
  @inlinable package var isSettled: Bool { phase != .pending }

  /// The number of callbacks waiting (not yet handed out).
  @inlinable package var waitingCount: Int { callbacks.count }

  /// Offers a callback: it waits, or (once the value was delivered) is handed back to run now.
  /// Consuming, so that a callback that owns a reference (a promise's stage) moves in unretained.
  @inlinable
  package mutating func observe(_ callback: consuming Callback) -> ObserveAction {
    switch phase {
    case .pending, .delivering:
      callbacks.append(callback)
      return .queued
    case .settled:
      return .runNow(callback)
    }
  }

  /// Offers a callback that may leave before the value is settled: it waits under the returned
  /// key (see ``remove(_:)``), or (once the value was delivered) is handed back to run now.
  @inlinable
  package mutating func observeRemovably(_ callback: consuming Callback) -> RemovableObserveAction {
    switch phase {
    case .pending, .delivering: return .queued(callbacks.insertRemovable(callback))
    case .settled: return .runNow(callback)
    }
  }

  /// What to do with a removable callback just offered.
  @usableFromInline
  package enum RemovableObserveAction {
    /// It waits under this key.
    case queued(RegistrationKey)
    /// The value is already delivered: run the callback now, on this thread, with the host's value.
    case runNow(Callback)
  }

  /// Removes a callback offered with ``observeRemovably(_:)`` while it waits and returns it
  /// (release it outside the lock); `nil` if it was already handed out or removed.
  @inlinable
  package mutating func remove(_ key: RegistrationKey) -> Callback? {
    callbacks.remove(key)
  }

  /// Settles if still pending. On anything but `.alreadySettled`, the host stores the value.
  @inlinable
  package mutating func settle() -> SettleAction {
    guard phase == .pending else { return .alreadySettled }
    if callbacks.count == 0 {
      phase = .settled
      return .settled
    }
    phase = .delivering
    return .deliver
  }

  /// Whether callbacks wait (not yet handed out).
  @inlinable package var hasWaiting: Bool { callbacks.first != nil }

  /// Hands over the waiting callbacks without delivering them, for a host being freed (see
  /// `IterativeRelease`).
  @inlinable
  package mutating func takeWaiting() -> CallbackList<Callback> {
    var taken = CallbackList<Callback>()
    swap(&taken, &callbacks)
    return taken
  }

  /// The callbacks `nextDelivery()` hands out.
  @usableFromInline
  package enum Delivery {
    /// The only callback waiting (the common case: no array is touched).
    case one(Callback)
    /// Several callbacks, oldest first.
    case batch(CallbackBatch<Callback>)
  }

  /// The next callbacks to deliver; `nil` (and the phase becomes settled) once none remain. Only
  /// the delivering thread calls it, until it returns `nil`.
  @inlinable
  package mutating func nextDelivery() -> Delivery? {
    guard phase == .delivering else { return nil }
    if callbacks.count == 0 {
      phase = .settled
      return nil
    }
    if let only = callbacks.takeOnlyInline() { return .one(only) }
    return .batch(callbacks.drain())
  }
}

extension SettlePhaseStateMachine: Sendable where Callback: Sendable {}
extension SettlePhaseStateMachine.Phase: Sendable {}
