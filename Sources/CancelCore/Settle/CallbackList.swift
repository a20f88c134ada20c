/// Callbacks waiting for a settle-once value, in registration order, all handed out when the value
/// is settled: the compact counterpart of `RegistrationTable` for hosts whose callbacks rarely
/// leave early (promises).
///
/// The first callback lives inline, so the common single-callback value never allocates. It is 24
/// bytes against the table's 64, which keeps a promise small enough for the allocator's fastest
/// size classes. Callbacks behind it, and every callback that may leave before the value is
/// settled (``insertRemovable(_:)``: an await its task's cancellation ends), wait in a
/// `RegistrationTable` allocated on first need, whose freed slots are reused: a long-lived pending
/// value whose waiters keep leaving stays small.
///
/// It is a plain value: no locks, no user code. Its owner calls it under its lock.
@usableFromInline
package struct CallbackList<Callback> {
  /// The oldest callback, added while the list was empty; it never leaves early. `nil` when
  /// empty or when the oldest waits in `more`.
  @usableFromInline var first: Callback?
  /// Callbacks behind `first`, and every removable one; allocated on first need.
  @usableFromInline var more: OverflowCallbacks<Callback>?

  /// An empty list; allocates nothing.
  @inlinable package init() {}

  /// The number of callbacks waiting.
  @inlinable package var count: Int { (first == nil ? 0 : 1) + (more?.table.count ?? 0) }

  /// Whether only the inline callback (if any) waits.
  @inlinable var hasNoMore: Bool { more == nil || more!.table.count == 0 }

  /// Adds `callback` behind every callback already waiting.
  @inlinable
  package mutating func append(_ callback: consuming Callback) {
    if first == nil && hasNoMore {
      first = callback  // the list is empty: the inline slot holds the oldest
    } else {
      _ = insertIntoMore(callback)
    }
  }

  /// Adds `callback` behind every callback already waiting and returns the key that removes it
  /// with ``remove(_:)`` while it waits.
  @inlinable
  package mutating func insertRemovable(_ callback: consuming Callback) -> RegistrationKey {
    insertIntoMore(callback)
  }

  @inlinable
  mutating func insertIntoMore(_ callback: consuming Callback) -> RegistrationKey {
    if more == nil { more = OverflowCallbacks() }
    return more!.table.insert(callback)
  }

  /// Removes a callback added with ``insertRemovable(_:)`` and returns it (release it outside
  /// the lock); `nil` if it no longer waits.
  @inlinable
  package mutating func remove(_ key: RegistrationKey) -> Callback? {
    guard more != nil else { return nil }
    return more!.table.remove(key)
  }

  /// Takes the only callback waiting, if exactly the inline one waits.
  @inlinable
  package mutating func takeOnlyInline() -> Callback? {
    guard hasNoMore else { return nil }
    return first.take()
  }

  /// Empties the list and returns its callbacks.
  @inlinable
  package mutating func drain() -> CallbackBatch<Callback> {
    CallbackBatch(first: first.take(), rest: more?.table.drain() ?? .empty)
  }
}

extension CallbackList: Sendable where Callback: Sendable {}

/// The callbacks of a drained `CallbackList`, handed out oldest first. Each is released from here
/// as it is handed out, so a closure lives no longer than its own run.
@usableFromInline
package struct CallbackBatch<Callback> {
  @usableFromInline var first: Callback?
  @usableFromInline var rest: DrainedRegistrations<Callback>

  @inlinable
  init(first: Callback?, rest: DrainedRegistrations<Callback>) {
    self.first = first
    self.rest = rest
  }

  /// Whether callbacks may remain (conservative: `true` may be followed by a `nil`).
  @inlinable package var mayHaveMore: Bool { first != nil || rest.mayHaveMore }

  /// The oldest callback not yet handed out.
  @inlinable
  package mutating func popOldest() -> Callback? {
    if let callback = first.take() { return callback }
    return rest.popOldest()
  }
}

extension CallbackBatch: Sendable where Callback: Sendable {}
