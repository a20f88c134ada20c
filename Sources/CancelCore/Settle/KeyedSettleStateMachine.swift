/// `SettleStateMachine` in 40 bytes for a value of up to 9 bytes (against its 80): a settle-once value and its callbacks, each
/// callback removable by key, for hosts that must stay small (a future's derived stage).
///
/// Why a separate type: a host object of at most 104 bytes is served by glibc's fastbins even
/// under package-benchmark's malloc interposer (16 bytes per allocation); a larger one, allocated
/// by the thousand before any is freed (a chain built, then completed), takes malloc's and free's
/// slow paths (measured: about twice the instructions per pair). `SettleStateMachine` keeps a
/// whole `RegistrationTable` (64 bytes) inline; this machine keeps only the first callback and
/// its tag inline, and everything behind it in a `RegistrationTable` allocated on first need (a
/// value observed more than once), so the common single-callback value never allocates for it.
///
/// The rules are `SettleStateMachine`'s: `settle` wins once; callbacks are delivered once, in
/// registration order, on the delivering thread; callbacks offered while a thread delivers queue
/// behind the ones being delivered; once delivered, a new callback is handed back to run at once.
/// Keys are `RegistrationKey`s: index 0 is the inline callback (its tag counts the callbacks
/// that held the slot, so a stale key never matches), `i + 1` the overflow table's key `i`.
///
/// A plain value: no lock and no user code; its host calls it inside its `CoreLock`.
@usableFromInline
package struct KeyedSettleStateMachine<Value, Callback> {
  /// See `SettleStateMachine.Phase`.
  @usableFromInline
  enum Phase: UInt8 {
    case pending
    case delivering
    case settled
  }

  /// Callbacks handed out for delivery by `takeNextCallbacks()`.
  @usableFromInline
  package enum Callbacks {
    /// Exactly one callback (the common case: a chain's next stage).
    case one(Callback)
    /// Several callbacks, oldest first.
    case many(KeyedCallbackBatch<Callback>)
  }

  // Fields are ordered so that the phase and the tag share the word after the value's first
  // word: with a value of one word plus a tag byte (9 bytes), the machine is still 40 bytes.
  /// The value; `nil` exactly while `phase` is `.pending`.
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

  /// The number of callbacks waiting (not yet handed out).
  @inlinable package var waitingCount: Int {
    (first == nil ? 0 : 1) + (more?.table.count ?? 0)
  }

  /// Offers a callback: it waits (under the returned key), or, once the value was delivered, it
  /// is handed back to run now with the value.
  @inlinable
  package mutating func observe(_ callback: Callback) -> SettleStateMachine<Value, Callback>.ObserveAction {
    switch phase {
    case .pending, .delivering: return .queued(insert(callback))
    case .settled: return .runNow(callback, settledValue!)
    }
  }

  @inlinable
  mutating func insert(_ callback: Callback) -> RegistrationKey {
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

  /// Removes a waiting callback only if other callbacks are waiting too (see
  /// `SettleStateMachine.removeUnlessLast`).
  @inlinable
  package mutating func removeUnlessLast(
    _ key: RegistrationKey
  ) -> SettleStateMachine<Value, Callback>.RemoveUnlessLastResult {
    guard contains(key) else { return .notWaiting }
    guard waitingCount > 1, let removed = remove(key) else { return .isLast }
    return .removed(removed)
  }

  /// Settles with `value` if still pending.
  @inlinable
  package mutating func settle(_ value: Value) -> SettleStateMachine<Value, Callback>.SettleAction {
    guard phase == .pending else { return .alreadySettled }
    settledValue = value
    if first == nil && (more == nil || more!.table.count == 0) {
      phase = .settled
      return .settled
    }
    phase = .delivering
    return .deliver
  }

  /// The next callbacks to deliver (the host reads `value` once, in the same lock section as the
  /// first call); `nil` (and the state becomes `.settled`) once none remain. Only the delivering
  /// thread calls it, until it returns `nil`.
  @inlinable
  package mutating func takeNextCallbacks() -> Callbacks? {
    guard phase == .delivering else { return nil }
    if more == nil || more!.table.count == 0 {
      if let only = first.take() { return .one(only) }
      phase = .settled
      return nil
    }
    return .many(KeyedCallbackBatch(first: first.take(), rest: more!.table.drain()))
  }
}

extension KeyedSettleStateMachine: Sendable where Value: Sendable, Callback: Sendable {}
extension KeyedSettleStateMachine.Phase: Sendable {}
extension KeyedSettleStateMachine.Callbacks: Sendable where Callback: Sendable {}

/// The callbacks of a `KeyedSettleStateMachine` behind its inline one, kept out of line so that
/// the machine stays small.
///
/// Its machine's host reads and writes it only under its `CoreLock`, and only that machine holds
/// it.
@usableFromInline
package final class OverflowCallbacks<Callback>: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: only the `KeyedSettleStateMachine` that made it holds it, and
  // that machine's host calls it only inside its lock.
  @exclusivity(unchecked) @usableFromInline var table = RegistrationTable<Callback>()

  @inlinable init() {}
}

/// Callbacks drained from a `KeyedSettleStateMachine`, handed out oldest first; each is released
/// from here as it is handed out.
@usableFromInline
package struct KeyedCallbackBatch<Callback> {
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

extension KeyedCallbackBatch: Sendable where Callback: Sendable {}
