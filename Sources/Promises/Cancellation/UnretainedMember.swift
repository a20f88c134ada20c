import CancelCore

/// A pending promise's member in its cancellable chain's source, referred to **without being
/// retained**: the one owner of chain membership (joining, attaching, leaving, forgetting,
/// claiming a cancel, the settle step of a member). The rule: **while the promise's lock is held
/// and this refers to a member, that member is alive and not being freed**, so it may be used, and
/// retained, there; a reference that could be the last is released after unlocking.
///
/// Lock order: the promise's lock, then the source's (leaving, and reading a cancel's reason).
/// One word (`Promise.member`), accessed only under the promise's lock, except while the promise is
/// not yet shared (``Promise/joinUnshared(source:)``).
/// Why the rule holds: docs/architecture.md, "Who owns synchronization" (a member group) and "The
/// checked model of chain membership".
@usableFromInline
struct UnretainedMember {
  @usableFromInline var reference: Unmanaged<CancelMember>?

  /// No member.
  @inlinable init() {
    reference = nil
  }

  /// Takes the member out, retained (it is alive: see the type), for the caller to release after
  /// unlocking. Under the promise's lock.
  @inlinable @inline(__always)
  mutating func take() -> CancelMember? {
    reference.take()?.takeUnretainedValue()
  }

  /// Takes the member out without retaining it, for a caller that uses it only while the
  /// promise's lock is still held (where it is alive: see the type) and releases nothing.
  @inlinable @inline(__always)
  mutating func takeUnretained() -> Unmanaged<CancelMember>? {
    reference.take()
  }

  /// Refers to `member` from now on. Under the promise's lock, or before the promise is shared.
  @inlinable @inline(__always)
  mutating func set(_ member: CancelMember) {
    reference = Unmanaged.passUnretained(member)
  }

  /// Forgets `member` if it is still the one referred to: its source closed (the closing thread
  /// still holds it). Under the promise's lock.
  @inlinable
  mutating func forget(_ member: CancelMember) {
    if reference?.toOpaque() == Unmanaged.passUnretained(member).toOpaque() { reference = nil }
  }

  /// The cancel claim of a member that settles on its own (a resolver, a stage, a settler of the
  /// chain), ``ChainState/claimCancel(for:)`` for its source. Under the promise's lock, with the
  /// member `take()` returned, so that a cancel flipping the source at the same time either finds
  /// the promise settled or is seen here.
  @inlinable @inline(__always)
  static func claimCancel<T>(of member: CancelMember, for result: inout Swift.Result<T, Error>?) {
    ChainState(source: member.source).claimCancel(for: &result)
  }

}

/// A promise's side of chain membership (see ``UnretainedMember``).
extension Promise {
  /// A new member of the chain whose source is `source`, standing for this promise; it joins with
  /// `CancelStorage.addMember(_:)`. The member holds the promise (the source's list holds the
  /// member), so a pending member nobody else holds stays reachable by a cancel for as long as the
  /// chain can be cancelled, and is let go when the context goes away.
  @inlinable
  func makeMember(of source: CancelStorage) -> CancelMember {
    CancelMember(source: source, target: self, action: Self.actAsMember)
  }

  /// This promise's side of its member: the chain's cancel rejects it if still pending; a close
  /// makes it forget the member. A static function, so that (specialized in the client) it needs
  /// no closure context.
  @inlinable
  static func actAsMember(_ member: CancelMember, _ event: CancelMember.Event) {
    let promise = unsafeDowncast(member.target, to: Promise<T>.self)
    switch event {
    case .cancelled(let reason): ChainState(source: member.source).reject(promise, cancelledWith: reason)
    case .closed: promise.forgetMember(member)
    }
  }

  /// Makes this promise, pending and not yet shared, a member waiting in `source`: its member is
  /// set without the lock, before it joins (once in the list, a cancel may reject the promise and
  /// read it at once).
  @inlinable
  func joinUnshared(source: CancelStorage) {
    joinUnshared(source: source, action: Self.actAsMember)
  }

  /// ``joinUnshared(source:)`` with the member's `action` (a stage whose member does more than
  /// ``actAsMember(_:_:)``, see ``FollowStage``).
  @inlinable
  func joinUnshared(source: CancelStorage, action: @escaping CancelMember.Action) {
    let member = CancelMember(source: source, target: self, action: action)
    self.member.set(member)
    // The only reference moves into the list: once there, a cancel on another thread may take and
    // free the member, so it is not touched here again.
    if !source.addMember(consume member) { self.member = UnretainedMember() }
  }

  /// Keeps `member` (this promise's place in a cancel context, already waiting in it) until this
  /// promise settles, then takes it out of its context; at once if the promise has already
  /// settled.
  ///
  /// A promise keeps one member. If it already had one (the same promise wrapped twice, with
  /// `CancellablePromise(task:promise:resolver:)`), the earlier member leaves its context through a
  /// callback when the promise settles, so that neither context keeps a finished member. (It then
  /// claims only the newer chain's cancel when it settles.)
  @inlinable
  final func attachMember(_ member: CancelMember) {
    let (settled, earlier) = lock.withLock { () -> (Bool, CancelMember?) in
      if machine.isSettled { return (true, nil) }
      // Retained, under the lock, where a member referred to is alive (see `UnretainedMember`);
      // the callback keeps the reference.
      let earlier = self.member.take()
      // A closed source has told (or is telling) its members, this one included: it must not be
      // kept, nothing would forget it.
      let source = member.source
      if !(source.isCompleted && !source.isCancelled) { self.member.set(member) }
      return (false, earlier)
    }
    // The caller holds `member`, so it may leave outside the lock.
    if settled { member.leaveSource()?.closeSourceIfDrained() }
    if let earlier { observe(.run { _ in earlier.leaveSource()?.closeSourceIfDrained() }) }
  }

  /// Forgets `member` if it is still this promise's member: its source closed (see
  /// ``UnretainedMember``). Under the lock, so a settle that is leaving through the member right
  /// now finishes first.
  @usableFromInline
  final func forgetMember(_ member: CancelMember) {
    lock.withLock { self.member.forget(member) }
  }
}
