import Synchronization

/// An object that a source cancels after its handlers, without a handler closure: a facade's
/// member of a cancellable chain (a pending promise of a `CancelContext`).
///
/// Not for use outside the library: it is public (and open) only so that the Promises facade's
/// members, which its inlinable code makes, can inherit from it. Members join a source with `CancelStorage.addMember(_:)`
/// and leave it with `removeMember(_:)`; while they wait they are linked into the source's
/// ``MemberList`` through the two fields below, so joining and leaving allocate nothing and cost
/// one short lock section each, however many members wait (a registration table would grow, and
/// each growth copies every entry).
///
/// When the source is cancelled, every waiting member's `cancelAction` runs with the reason,
/// oldest member first, after the source's handlers, on the cancelling thread and outside the
/// lock. When the source closes, the members are only released.
///
/// The source's list holds the only reference a source needs: while a member waits, the list
/// keeps it alive, and once a cancel took the list, the cancelling thread does until it has called
/// `cancelAction` (or seen `hasLeft`). An object that refers to its member without retaining it (a
/// `Promise` does) must leave the source while nothing else can release the member: a promise
/// leaves under its own lock, which the member's `cancelAction` takes too. (A close releases the
/// waiting members: the Promises facade closes a context's source when nothing can cancel the
/// chain any more, and its members then let go of their pending promises.)
//
// Safety of `@unchecked Sendable` (and of `@exclusivity(unchecked)`, which saves a runtime call per
// access): `next`, `previous` and `isLinked` are read and written only by
// `MemberList`, which its owning `CancelStorage` calls under its lock (and, once the source ended,
// only by the one thread that took the list from the state machine); `hasLeft` is atomic;
// `source` and `cancelAction` are immutable.
open class _CancelMember: @unchecked Sendable {
  /// The source this member joins. Not retained: the subclass keeps the source alive (a
  /// `CancellablePromise` holds its `CancelContext`, which owns it), which saves a retain and a
  /// release per member, and `Unmanaged`, so that calling it costs no retain either.
  @usableFromInline package final let source: Unmanaged<CancelStorage>
  /// Called once with the reason if the source is cancelled while this member waits.
  @usableFromInline package final let cancelAction: @Sendable (_CancelMember, any Error) -> Void
  /// The next (newer) waiting member. Strong: the list keeps waiting members alive.
  @usableFromInline @exclusivity(unchecked) final var next: _CancelMember?
  /// The previous (older) waiting member, not retained: the list's `next` references keep it
  /// alive.
  @usableFromInline @exclusivity(unchecked) final var previous: Unmanaged<_CancelMember>?
  /// Whether the member is in its source's list right now.
  @usableFromInline @exclusivity(unchecked) final var isLinked = false
  /// Set when the member leaves (its promise settled) after a cancel took the list: the cancel then
  /// skips it instead of calling `cancelAction` for nothing (`cancelAction` must be harmless on a
  /// member that left, since the cancel may read it before it is set). It is also the leaving
  /// thread's last access to the member and its source: seeing it, the cancel may release both,
  /// so it is stored releasing and loaded acquiring (see `CancelStorage.removeMember(_:)`).
  @usableFromInline package final let hasLeft = Atomic<Bool>(false)

  /// A member of `source` that `cancelAction` cancels (it gets this object back). The subclass
  /// must keep the source alive for as long as the member lives. The source comes unmanaged so
  /// that a subclass's initializer can pass it on without a retain and a release of it.
  @inlinable
  package init(
    source: Unmanaged<CancelStorage>, cancelAction: @escaping @Sendable (_CancelMember, any Error) -> Void
  ) {
    self.source = source
    self.cancelAction = cancelAction
  }

  /// The source this member joins.
  @inlinable package final var storage: CancelStorage { source.takeUnretainedValue() }

  /// Leaves the source: see `CancelStorage.removeMember(_:)`. Returns a strong reference to this
  /// member, for the caller to release outside its locks.
  @inlinable @discardableResult
  package final func leaveSource() -> _CancelMember {
    source._withUnsafeGuaranteedRef { $0.removeMember(self) }
  }
}

/// The members waiting on one source, oldest first: an intrusive doubly linked list.
///
/// A plain value with no lock of its own: `CancelStateMachine` holds it and `CancelStorage` calls
/// it under its lock. Removing a member hands the list's strong reference back to the caller, to be
/// released after unlocking (releasing a member can run a `deinit`, and through it user code).
struct MemberList: Sendable {
  private var head: _CancelMember?
  /// The newest member, not retained (the list's `next` references keep it alive). `Unmanaged`,
  /// like `previous`, so that linking never retains and releases a neighbour just to look at it.
  private var tail: Unmanaged<_CancelMember>?

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

  /// Appends `member` (the newest).
  mutating func append(_ member: _CancelMember) {
    precondition(!member.isLinked, "a member joins its source once")
    member.isLinked = true
    member.previous = tail
    if let tail {
      tail._withUnsafeGuaranteedRef { $0.next = member }
    } else {
      head = member
    }
    tail = Unmanaged.passUnretained(member)
  }

  /// Unlinks `member` if it is linked and returns the reference the list held, for the caller to
  /// release after unlocking; `nil` if it was not linked.
  mutating func remove(_ member: _CancelMember) -> _CancelMember? {
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
  private var head: _CancelMember?

  init(head: _CancelMember?) {
    self.head = head
  }

  /// Whether there are none.
  var isEmpty: Bool { head == nil }

  /// Detaches and returns the oldest member. Members are released one at a time as the caller
  /// drops them, so a list of any length is freed without recursion.
  mutating func popOldest() -> _CancelMember? {
    guard let member = head.take() else { return nil }
    head = member.next.take()
    head?.previous = nil  // the popped member may be freed next
    member.previous = nil
    member.isLinked = false
    return member
  }
}
