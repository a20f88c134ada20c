/// One object waiting on a source as a *member* of its group: the core's primitive for a chain
/// of pending objects that one cancel rejects (the Promises facade makes one per pending promise
/// of a `CancelContext`). It holds the ``target`` it stands for (retained) and one capture-free
/// ``Action``; final and not public, a facade composes it and does not subclass it.
///
/// A member joins with `CancelStorage.addMember(_:)` and leaves with ``leaveSource()``. A cancel
/// runs each waiting member's action with ``Event/cancelled(_:)``, a close with ``Event/closed``
/// (then releases the member), oldest first, after the source's handlers (a close inside a cancel
/// loop on the same thread: members first), on the ending thread, outside the lock. A target may
/// refer to its member unretained only if it leaves the source and forgets the member on
/// ``Event/closed`` under a lock the action takes too (`Verification/ChainMembership.pml`).
/// Why: docs/architecture.md, "Who owns synchronization" (a member group instead of handlers).
//
// Safety of `@unchecked Sendable` (and of `@exclusivity(unchecked)`, which saves a runtime call per
// access): `next`, `previous` and `isLinked` are read and written only by `MemberList`, which its
// owning `CancelStorage` calls under its lock (and, once the source ended, only by the one thread
// that took the list from the state machine); `hasLeft` is atomic (its storage, the first stored
// property, is only reached through its handle after `init`); `source`, `target` and `action` are
// immutable.
@usableFromInline
package final class CancelMember: @unchecked Sendable {
  /// What happens to a member.
  @usableFromInline package enum Event: Sendable {
    /// The source was cancelled with the reason while the member waited: reject the target.
    case cancelled(any Error)
    /// The source closed while the member waited: it will never be cancelled, and the closing
    /// thread releases it once the action returned. A target that refers to its member without
    /// retaining it must forget it now (the closing thread still holds it).
    case closed
  }

  /// What a member does on each ``Event``; it gets the member (and so ``target``) back.
  @usableFromInline package typealias Action = @Sendable (CancelMember, Event) -> Void

  /// The storage of ``hasLeft``. It must stay the first stored property (the handle finds it at
  /// the start of the object), and `isLinked` the second, in what would otherwise be padding.
  @exclusivity(unchecked) @usableFromInline var hasLeftStorage = CoreAtomicStorage<Bool>(false)
  /// Whether the member is in its source's list right now.
  @usableFromInline @exclusivity(unchecked) var isLinked = false
  /// Set (under the source's lock) when this member was the last one a released source waited
  /// for (see `CancelStorage.release()`): the thread that took it out closes the source after
  /// unlocking (``closeSourceIfDrained()``). In what would otherwise be padding.
  @usableFromInline @exclusivity(unchecked) var drainedItsSource = false

  /// The source whose group this member joins, retained: a member that a cancel took may outlive
  /// every other holder of the source, and it leaves the source through this reference.
  @usableFromInline package let source: CancelStorage
  /// The object the member stands for (a facade's pending object), kept alive while the member
  /// waits, so a cancel reaches it even when nobody else holds it.
  @usableFromInline package let target: AnyObject
  /// Called with ``Event/cancelled(_:)`` or ``Event/closed``, at most once, while the member waited.
  @usableFromInline let action: Action
  /// The next (newer) waiting member. Strong: the list keeps waiting members alive.
  @usableFromInline @exclusivity(unchecked) var next: CancelMember?
  /// The previous (older) waiting member, not retained: the list's `next` references keep it
  /// alive.
  @usableFromInline @exclusivity(unchecked) var previous: Unmanaged<CancelMember>?
  /// Set when the member leaves (its target settled) after a cancel took the list: the cancel then
  /// skips it instead of running the action for nothing (the action must be harmless on a member
  /// that left, since the cancel may read this before it is set). It is also the leaving thread's
  /// last access to the member and its source: seeing it, the cancel may release both, so it is
  /// stored releasing and loaded acquiring (see ``leaveSource()``).
  @inlinable @inline(__always) var hasLeft: CoreAtomic<Bool> {
    CoreAtomic(firstStoredProperty(of: self, as: CoreAtomicStorage<Bool>.self))
  }

  /// A member of `source`'s group standing for `target`; it does not join until
  /// `CancelStorage.addMember(_:)`.
  @inlinable
  package init(source: CancelStorage, target: AnyObject, action: @escaping Action) {
    self.source = source
    self.target = target
    self.action = action
    precondition(
      withUnsafeMutablePointer(to: &hasLeftStorage) {
        $0 == firstStoredProperty(of: self, as: CoreAtomicStorage<Bool>.self)
      },
      "hasLeft is not where its handle looks")
  }

  /// Leaves the source (see `CancelStorage.unlinkMember(_:)`): out of the list if it waits, else,
  /// if a cancel took the list, marked as having left (``hasLeft``), which is then this call's last
  /// access to the member and to its source: the cancel may free both as soon as it sees the mark.
  /// The caller keeps the member alive until then (a strong reference, or a lock under which it
  /// is alive), and holds no reference whose release after the mark could be the last.
  ///
  /// Returns the list's reference, if it was waiting, for the caller to release outside its locks.
  @inlinable @discardableResult
  package func leaveSource() -> CancelMember? {
    // Its own statement, so that whatever the call holds of the source (a build without
    // optimization holds a reference to it for the call) is let go before the mark below.
    let unlinking = source.unlinkMember(self)
    switch consume unlinking {
    case .unlinked(let held): return held
    case .takenByCancel:
      // Releasing, paired with the cancel's acquiring load, so that every access above comes
      // first.
      hasLeft.store(true, ordering: .releasing)
      return nil
    case .notWaiting: return nil
    }
  }

  /// After ``leaveSource()``, outside every lock, by the thread that left: closes the source if
  /// this member was the last one it waited for and its owner had released it (see
  /// `CancelStorage.release()`). One load when it was not.
  @inlinable
  package func closeSourceIfDrained() {
    if drainedItsSource { _ = source.close(.drained) }
  }
}

/// The members waiting on one source, oldest first: an intrusive doubly linked list.
///
/// A plain value with no lock of its own: `CancelStateMachine` holds it and `CancelStorage` calls
/// it under its lock. Removing a member hands the list's strong reference back to the caller, to be
/// released after unlocking (releasing a member can run a `deinit`, and through it user code).
struct MemberList: Sendable {
  private var head: CancelMember?
  /// The newest member, not retained (the list's `next` references keep it alive). `Unmanaged`,
  /// like `previous`, so that linking never retains and releases a neighbour just to look at it.
  private var tail: Unmanaged<CancelMember>?

  /// An empty list.
  init() {}

  /// Whether no member waits.
  var isEmpty: Bool { head == nil }

  /// The number of members, counted (for tests and diagnostics: no field is kept for it, since
  /// every source carries this list).
  var count: Int {
    var count = 0
    var member = head
    while let current = member {
      count += 1
      member = current.next
    }
    return count
  }

  /// Appends `member` (the newest); the caller's reference becomes the list's.
  mutating func append(_ member: consuming CancelMember) {
    precondition(!member.isLinked, "a member joins its source once")
    member.isLinked = true
    member.previous = tail
    let newest = Unmanaged.passUnretained(member)
    if let tail {
      var moving = Optional(member)
      tail._withUnsafeGuaranteedRef { $0.next = moving.take() }
    } else {
      head = consume member
    }
    tail = newest
  }

  /// Unlinks `member` if it is linked and returns the reference the list held, for the caller to
  /// release after unlocking; `nil` if it was not linked.
  mutating func remove(_ member: CancelMember) -> CancelMember? {
    guard member.isLinked else { return nil }
    member.isLinked = false
    let previous = member.previous
    let next = member.next.take()
    member.previous = nil
    if let next { next.previous = previous } else { tail = previous }
    guard let previous else {
      let held = head.take()
      head = next
      return held
    }
    return previous._withUnsafeGuaranteedRef { previous in
      let held = previous.next.take()
      previous.next = next
      return held
    }
  }

  /// Empties the list and returns its members, oldest first, for the caller to walk outside the
  /// lock (see ``TakenMembers``).
  mutating func takeAll() -> TakenMembers {
    tail = nil
    return TakenMembers(head: head.take())
  }
}

/// Members taken from an ended source, oldest first. Only the thread that took them walks them.
struct TakenMembers: Sendable {
  private var head: CancelMember?

  init(head: CancelMember?) {
    self.head = head
  }

  /// Whether there are none.
  var isEmpty: Bool { head == nil }

  /// Detaches and returns the oldest member. Members are released one at a time as the caller
  /// drops them, so a list of any length is freed without recursion.
  mutating func popOldest() -> CancelMember? {
    guard let member = head.take() else { return nil }
    head = member.next.take()
    head?.previous = nil  // the popped member may be freed next
    member.previous = nil
    member.isLinked = false
    return member
  }
}
