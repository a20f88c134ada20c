/// Callbacks waiting for a settle-once value, in registration order, that are only ever added and
/// then all handed out: the compact counterpart of `RegistrationTable` for hosts that never remove
/// a single callback (promises).
///
/// The first callback lives inline, so the common single-callback value never allocates an array.
/// It is 24 bytes against the table's 64 (no keys, no free list, no sequence numbers), which keeps
/// a promise small enough for the allocator's fastest size classes.
///
/// It is a plain value: no locks, no user code. Its owner calls it under its lock.
@usableFromInline
package struct CallbackList<Callback> {
  /// The oldest callback; `nil` only when the list is empty.
  @usableFromInline var first: Callback?
  /// Callbacks added after `first`, oldest first.
  @usableFromInline var rest: ContiguousArray<Callback?> = []

  /// An empty list; allocates nothing.
  @inlinable package init() {}

  /// The number of callbacks waiting.
  @inlinable package var count: Int { first == nil ? 0 : 1 + rest.count }

  /// Adds `callback` behind every callback already waiting.
  @inlinable
  package mutating func append(_ callback: consuming Callback) {
    if first == nil {
      first = callback  // the list is empty (`rest` is empty whenever `first` is nil)
    } else {
      rest.append(callback)
    }
  }

  /// Empties the list and returns its callbacks.
  @inlinable
  package mutating func drain() -> CallbackBatch<Callback> {
    let batch = CallbackBatch(first: first.take(), rest: rest)
    if !rest.isEmpty { rest = [] }
    return batch
  }
}

extension CallbackList: Sendable where Callback: Sendable {}

/// The callbacks of a drained `CallbackList`, handed out oldest first. Each is released from here
/// as it is handed out, so a closure lives no longer than its own run.
@usableFromInline
package struct CallbackBatch<Callback> {
  @usableFromInline var first: Callback?
  @usableFromInline var rest: ContiguousArray<Callback?>
  /// The next index of `rest` that `popOldest()` hands out.
  @usableFromInline var front = 0

  @inlinable
  init(first: Callback?, rest: ContiguousArray<Callback?>) {
    self.first = first
    self.rest = rest
  }

  /// Whether callbacks may remain (`false` once every one was handed out).
  @inlinable package var mayHaveMore: Bool { first != nil || front < rest.count }

  /// The oldest callback not yet handed out.
  @inlinable
  package mutating func popOldest() -> Callback? {
    if let callback = first.take() { return callback }
    guard front < rest.count else { return nil }
    defer { front += 1 }
    return rest[front].take()
  }
}

extension CallbackBatch: Sendable where Callback: Sendable {}
