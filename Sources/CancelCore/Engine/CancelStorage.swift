/// The shared state of one source: what `CancelSource` owns and every `CancelSignal` observes.
///
/// Facades build their own owner objects around one of these (so a token request or a promise
/// chain costs no more than a `CancelSource`); that is why it is `package` and not public.
///
/// It owns a `CoreLock` and a `CancelStateMachine`: each event runs the state machine under the
/// lock and then does what it returned after unlocking. Handlers and the release of removed
/// closures therefore never happen under the lock, so a handler may re-enter any source freely.
///
/// `status` mirrors the phase in one atomic byte so `isCancelled` is a single load.
//
// Safety of `@unchecked Sendable`: `machine` is read and written only inside `lock.withLock`;
// `status` is atomic, written only while the lock is held (so it never disagrees with `machine` for
// a lock holder) and read without it; `cancelledMember` and `reasonIdentity` are atomic; all four
// live in `words`, which is only reached through their handles after `init`.
@usableFromInline
package final class CancelStorage: CoreLockHost, @unchecked Sendable {
  @usableFromInline static let active: UInt8 = 0
  @usableFromInline static let cancelled: UInt8 = 1
  @usableFromInline static let closed: UInt8 = 2

  /// The lock and the atomics, in one struct that is the first stored property (see
  /// ``CoreLockHost``), 16 bytes as the standard library's `Mutex` and `Atomic`s were.
  @usableFromInline struct Words {
    /// First: the host's lock.
    @usableFromInline var lock = CoreLockStorage()
    /// The phase: `active`, `cancelled` or `closed`.
    @usableFromInline var status = CoreAtomicStorage<UInt8>(CancelStorage.active)
    /// The member group's one fact: whether the cancel rejected a member (see
    /// ``hasCancelledMember``). It sits in what would be padding after `status`, so it costs no
    /// space.
    @usableFromInline var cancelledMember = CoreAtomicStorage<Bool>(false)
    /// The identity of the reason (see ``ErrorIdentity``) once cancelled, 0 before: written under
    /// the lock before `status` says cancelled, read without it by ``isCancelled(by:)``.
    @usableFromInline var reasonIdentity = CoreAtomicStorage<UInt>(0)

    @inlinable init() {}
  }

  /// Must stay the first stored property: `lock`, `status`, `cancelledMember` and
  /// `reasonIdentity` find it at the start of the object. Never accessed as a property after
  /// `init`.
  @exclusivity(unchecked) @usableFromInline var words = Words()
  // Exclusive access is guaranteed by `lock`, so the dynamic exclusivity check (a runtime call on
  // every access) is switched off for this property. No default value: each initializer sets it
  // once (a default, then an assignment, would build, copy and destroy a machine more).
  @exclusivity(unchecked) var machine: CancelStateMachine

  @inlinable @inline(__always) var status: CoreAtomic<UInt8> {
    CoreAtomic(firstStoredProperty(of: self, as: Words.self).pointer(to: \.status)!)
  }

  @inlinable @inline(__always) var cancelledMember: CoreAtomic<Bool> {
    CoreAtomic(firstStoredProperty(of: self, as: Words.self).pointer(to: \.cancelledMember)!)
  }

  @inlinable @inline(__always) var reasonIdentity: CoreAtomic<UInt> {
    CoreAtomic(firstStoredProperty(of: self, as: Words.self).pointer(to: \.reasonIdentity)!)
  }

  /// Creates an active source.
  package init() {
    machine = CancelStateMachine()
    precondition(hostsLock(at: &words.lock), "the lock is not where CoreLockHost.lock looks")
  }

  /// Creates an active source named `label` in cancellation records (see ``cancellationRecord``);
  /// no label (and nothing stored for one) when `label` is `nil`.
  package init(label: String?) {
    if let label { machine = CancelStateMachine(label: label) } else { machine = CancelStateMachine() }
    precondition(hostsLock(at: &words.lock), "the lock is not where CoreLockHost.lock looks")
  }

  /// Creates an active source that is a part of the larger object `whole` is part of (or is the
  /// main source of): a cancellable chain made of several sources, say. It carries the object's
  /// label, and records show consecutive sources of one object as one hop (see
  /// ``cancellationRecord``). A part never gets a deadline.
  package init(partOf whole: CancelStorage) {
    let (main, label) = whole.lock.withLock { (whole.machine.whole, whole.machine.label) }
    machine = CancelStateMachine(partOf: main ?? Unmanaged.passUnretained(whole), label: label)
    precondition(hostsLock(at: &words.lock), "the lock is not where CoreLockHost.lock looks")
  }

  deinit {
    // A source cancelled through a link or a join keeps the source the cancel came from, for its
    // record. Freeing a long path one `deinit` inside the other would recurse once per source, so
    // while this is the last reference to the next source, take that source's own reference
    // first: it is then freed with nothing left to free, and the loop goes on from here.
    guard status.load(ordering: .relaxed) == Self.cancelled, var previous = machine.takePreviousSource() else {
      return
    }
    while isKnownUniquelyReferenced(&previous) {
      // Unique: no other thread can reach it, so its state machine needs no lock.
      guard let next = previous.machine.takePreviousSource() else { return }
      previous = next
    }
  }

  /// Creates a source that is already closed (used for signals that can never be cancelled).
  package init(closed: Void) {
    machine = CancelStateMachine()
    precondition(hostsLock(at: &words.lock), "the lock is not where CoreLockHost.lock looks")
    _ = machine.close()
    status.store(Self.closed, ordering: .releasing)
  }

  // MARK: Reading

  /// Whether the source was cancelled. One atomic load, no lock.
  @inlinable package var isCancelled: Bool { status.load(ordering: .acquiring) == Self.cancelled }

  /// Whether the source ended, cancelled or closed. One atomic load, no lock.
  @inlinable package var isCompleted: Bool { status.load(ordering: .acquiring) != Self.active }

  /// The current phase, with the reason if cancelled.
  package var phase: CancelPhase {
    switch status.load(ordering: .acquiring) {
    case Self.active: return .active
    case Self.closed: return .closed
    default: return .cancelled(reason: cancelledReason)
    }
  }

  /// The reason, if cancelled.
  @usableFromInline package var reason: (any Error)? {
    guard isCancelled else { return nil }
    return cancelledReason
  }

  /// Whether the source was cancelled with the error `error` identifies (the same error object,
  /// not an equal one): two atomic loads, no lock, no copy of the reason. A cancel passed along a
  /// member group arrives as its members' rejections; this tells such a rejection from any other
  /// failure, keeping the error already at hand instead of reading the reason again.
  @inlinable package func isCancelled(by error: ErrorIdentity) -> Bool {
    isCancelled && reasonIdentity.load(ordering: .relaxed) == error.bits
  }

  /// The reason of a source whose `status` was seen `cancelled`. Read under the lock: `machine` as
  /// a whole is only ever accessed under it (Swift's exclusivity is per variable, so reading even
  /// its final phase without the lock would race, formally, with a locked mutation elsewhere in it).
  private var cancelledReason: any Error {
    lock.withLock {
      guard case .cancelled(let reason) = machine.phase else {
        preconditionFailure("status says cancelled but the state machine does not")
      }
      return reason
    }
  }

  /// The number of handlers and child links waiting on this source (0 once it ended).
  package var registrationCount: Int { lock.withLock { machine.registrationCount } }

  /// How many links to parents this source keeps (0 once it ended). For tests.
  package var parentLinkCount: Int { lock.withLock { machine.parentLinkCount } }

  // MARK: Registering

  /// Registers `handler`. On an ended source the handler runs at once on this thread (completion
  /// handlers, and cancel handlers if cancelled) or is released at once, and the registration is
  /// inert.
  package func register(_ handler: CancelHandler) -> CancelRegistration {
    switch lock.withLock({ machine.register(handler) }) {
    case .registered(let key):
      return CancelRegistration(storage: self, key: key)
    case .runCancelled(let handler, let reason):
      runAsHandler(handler, reason: reason)
      return .inert
    case .runClosed(let handler):
      Self.run(handler, reason: nil)
      return .inert
    }
  }

  /// Removes a registration; `true` if it was still waiting (so its handler will now never run).
  /// Never waits for a running handler.
  package func unregister(_ key: RegistrationKey) -> Bool {
    let removed = lock.withLock { machine.unregister(key) }
    return removed != nil  // the removed closure is released here, after unlocking
  }

  // MARK: The member group

  /// The number of members (see ``CancelMember``) waiting on this source (0 once it ended).
  package var memberCount: Int { lock.withLock { machine.memberCount } }

  /// Whether the cancel rejected at least one member of this source's group: recorded by
  /// ``recordCancelledMember()``, which a member's target calls when the cancel settles it (or
  /// through ``claimCancelReason()``). `false` on a source that was cancelled after
  /// every member had settled. One atomic load, no lock.
  @inlinable package var hasCancelledMember: Bool { cancelledMember.load(ordering: .acquiring) }

  /// For a member's target settling on its own while its group may be cancelled: if this source's
  /// cancel has started, records that the cancel rejected a member (``hasCancelledMember``) and
  /// returns the reason the target must settle with; `nil` if the source was not cancelled.
  /// Lock-free while the source is not cancelled.
  @inlinable
  package func claimCancelReason() -> (any Error)? {
    guard isCancelled, let reason else { return nil }
    recordCancelledMember()
    return reason
  }

  /// Records that the cancel rejected a member of this group (see ``hasCancelledMember``), before
  /// that member's rejection is delivered, so its handlers already see it. Returns whether this
  /// call recorded it first.
  @inlinable @discardableResult
  package func recordCancelledMember() -> Bool {
    // The load first: recording it again needs no read-modify-write.
    guard !cancelledMember.load(ordering: .relaxed) else { return false }
    return !cancelledMember.exchange(true, ordering: .acquiringAndReleasing)
  }

  /// Adds `member` to the objects this source cancels (after its handlers, oldest member first).
  /// On a cancelled source the member is cancelled at once, on this thread; on a closed one it is
  /// not added. Returns whether it now waits.
  @discardableResult
  @usableFromInline package func addMember(_ member: consuming CancelMember) -> Bool {
    precondition(member.source === self, "a member joins the source it was made for")
    // Moved into the list when added (the caller's reference becomes the list's: no retain), and
    // kept here otherwise.
    var offered = Optional(member)
    switch lock.withLock({ machine.addMember(&offered) }) {
    case .added: return true
    case .cancelled(let reason):
      let member = offered.take()!
      member.action(member, .cancelled(reason))
      return false
    case .closed: return false
    }
  }

  /// How a member's leaving found it (see `unlinkMember(_:)`).
  @usableFromInline package enum Unlinking {
    /// It waited, and is out of the list: the list's reference, for the leaving thread to release
    /// outside its locks.
    case unlinked(CancelMember)
    /// A cancel took the list: the member must mark that it left (`hasLeft`) for that cancel to
    /// skip it.
    case takenByCancel
    /// Nothing to do: it was not waiting, or a close took the list (the close tells every member
    /// it took).
    case notWaiting
  }

  /// Takes `member` out of the list if it waits (it will then never be cancelled by this source);
  /// the leaving half of `CancelMember.leaveSource()`, which marks the member when a cancel took
  /// the list. Never waits for a cancel in progress: a member the cancel already took may still be
  /// cancelled (a cancel that has not reached it yet skips it once marked).
  @usableFromInline package func unlinkMember(_ member: CancelMember) -> Unlinking {
    // An ended source's list belongs to the thread that ended it: nothing to remove (and no lock
    // to take, which matters when a cancel settles every member of a long chain).
    if !isCompleted, let held = lock.withLock({ machine.removeMember(member) }) { return .unlinked(held) }
    return isCancelled ? .takenByCancel : .notWaiting
  }

  // MARK: Ending

  /// Cancels with `reason` if still active and runs the handlers. Returns whether this call did it.
  ///
  /// `origin` is where the cancel was asked for and `cause` what started it; both go into the
  /// source's cancellation record (see ``cancellationRecord``).
  @usableFromInline
  package func cancel(reason: any Error, origin: CancelOrigin = .unknown, cause: CancelCause = .call) -> Bool {
    guard let ended = beginCancel(reason: reason, origin: origin, cause: cause) else { return false }
    Self.finish(ended, observed: CancellationObservers.isObserving)
    return true
  }

  /// Runs `handler` of this cancelled source now, as the cancel loop would: a cancel made through
  /// `cancel(dueTo:)` inside it is recorded as arriving from this source. Out of line: registering
  /// on a source that was cancelled already is rare, and this would weigh on every registration.
  @inline(never)
  private func runAsHandler(_ handler: CancelHandler, reason: any Error) {
    ThreadCancelLoop.withCurrent { loop in
      let outer = loop.handlerSource
      loop.handlerSource = Unmanaged.passUnretained(self)
      Self.run(handler, reason: reason, from: self)
      loop.handlerSource = outer
    }
  }

  /// Cancels with `reason`, as a `cancel(dueTo:)` does (a protocol requirement, which cannot
  /// capture its caller): made inside a cancel handler of another source, which a bridge
  /// registers (a token's `register(cancelable:)`, say), the cancel is recorded as arriving from
  /// that source through a link; otherwise as a call with no origin. Returns whether this call
  /// did it.
  package func cancel(dueTo reason: any Error) -> Bool {
    cancel(reason: reason, cause: Self.runningHandlerSource.map { .link($0) } ?? .call)
  }

  /// The source whose cancel handler is running on this thread, inside that source's cancel
  /// (where a bridge's handler runs); `nil` elsewhere. For records: what such a handler cancels
  /// arrived from that source.
  package static var runningHandlerSource: CancelStorage? {
    var from: CancelStorage?
    ThreadCancelLoop.withCurrent { loop in from = loop.handlerSource?.takeUnretainedValue() }
    return from
  }

  /// Cancels with the shared default reason (`CancellationError()`, boxed once), as
  /// `CancelSource.cancel()` does; returns whether this call cancelled. Owner objects of every
  /// facade that cancel without a reason call this one function.
  package func cancelWithDefaultReason(origin: CancelOrigin = .unknown, cause: CancelCause = .call) -> Bool {
    cancel(reason: defaultCancellationReason, origin: origin, cause: cause)
  }

  /// Closes if still active: completion handlers run with `false`, the rest are released.
  /// Returns whether this call did it.
  package func close() -> Bool {
    close(.always)
  }

  /// When ``close(_:)`` closes.
  @usableFromInline enum CloseCondition {
    /// Whenever the source is active.
    case always
    /// Only once it is released and nothing needs it open any more (see ``release()``).
    case drained
    /// Only if it is released (see ``release()``), members waiting or not.
    case released
  }

  /// Closes if still active and `condition` holds. Returns whether this call did it.
  @usableFromInline func close(_ condition: CloseCondition) -> Bool {
    if status.load(ordering: .relaxed) != Self.active { return false }
    var ended: EndedSource? = nil
    let didClose = lock.withLock { () -> Bool in
      switch condition {
      case .always: break
      case .drained: if !machine.isDrained { return false }
      case .released: if !machine.isReleased { return false }
      }
      // A source nothing waits on (a cancel context whose members all settled, say) ends without
      // building the list of things to do after unlocking.
      if machine.closeIfIdle() {
        status.store(Self.closed, ordering: .releasing)
        return true
      }
      guard let taken = machine.close() else { return false }
      status.store(Self.closed, ordering: .releasing)
      ended = taken
      return true
    }
    // Moved out, not copied: a copy left here would keep the handlers that `finish` hands to the
    // iterative release, and free them when this frame ends, one closing source inside the other.
    guard var taken = ended.take() else { return didClose }
    let members = taken.takeMembers()
    Self.finish(consume taken)
    Self.finishClosed(members)
    return true
  }

  // MARK: Released sources

  /// The owner lets go of the source without closing it: it stays open (a cancel of a parent still
  /// reaches its members) while members wait on it or released dependents pin it (``pin()``), and
  /// closes as soon as neither is left — when the last member leaves (the leaving thread closes
  /// it, see ``CancelMember/closeSourceIfDrained()``) or the last pin goes — or when something
  /// closes it. At once if nothing needs it now.
  ///
  /// For a source whose owner goes away while a parent can still cancel it: the caller makes sure
  /// that the source closes when no parent can any more (a parent's completion handler that closes
  /// it, say), or its waiting members are kept until they leave.
  package func release() {
    if status.load(ordering: .relaxed) != Self.active { return }
    if lock.withLock({ machine.release() }) { _ = close(.drained) }
  }

  /// Closes the source if it was released (``release()``), even with members waiting: nothing can
  /// cancel it any more. Returns whether this call closed it.
  @usableFromInline package func closeIfReleased() -> Bool {
    close(.released)
  }

  /// Whether members wait on this source or released dependents pin it (``pin()``); `false` once
  /// it ended.
  package var isNeeded: Bool { lock.withLock { machine.isNeeded } }

  /// Keeps a released source open for a dependent (a released source it cancels) until
  /// ``unpin()``. Returns `false` (and keeps nothing) if the source already ended.
  package func pin() -> Bool {
    if status.load(ordering: .relaxed) != Self.active { return false }
    return lock.withLock { machine.pin() }
  }

  /// Ends a ``pin()``: a released source nothing else needs closes now.
  package func unpin() {
    if lock.withLock({ machine.unpin() }) { _ = close(.drained) }
  }

  /// Tells each member of a closed source that it closed (``CancelMember/Event/closed``), oldest
  /// first, while this thread still holds it, then releases it: a target that refers to its
  /// member without retaining it forgets it before anything could free it.
  static func finishClosed(_ members: consuming TakenMembers) {
    var members = members
    while let member = members.popOldest() {
      member.action(member, .closed)
      // Released one at a time, through the core's iterative release: a member may hold the last
      // reference to an object whose `deinit` closes another source (see `finish`).
      IterativeRelease.release(member)
    }
  }

  /// Flips the state to cancelled and hands back what must be done, without doing it.
  /// Always inlined: out of line it returns the ended source through memory, which costs every
  /// cancel of a core source (the optimizer does not inline it on its own).
  @inline(__always)
  func beginCancel(reason: any Error, origin: CancelOrigin, cause: CancelCause) -> EndedSource? {
    if status.load(ordering: .relaxed) != Self.active { return nil }
    // Read before locking: the clock is a system call's worth of work the lock need not cover.
    let facts = CancelFactsFields(origin: origin, cause: cause)
    return lock.withLock {
      guard let ended = machine.cancel(reason: reason, facts: facts, source: self) else { return nil }
      reasonIdentity.store(ErrorIdentity(reason).bits, ordering: .relaxed)
      status.store(Self.cancelled, ordering: .releasing)
      return ended
    }
  }

  // MARK: Links and deadlines

  /// Makes this source a child of `parent`: cancelling `parent` cancels this source with the same
  /// reason. The link is removed when this source ends. Returns `false` if no link was kept (this
  /// source or the parent already ended — a cancelled parent cancels this source at once — or the
  /// parent is this source).
  ///
  /// The link holds `keeping` while it exists: until `parent` ends (cancelled: until the cancel
  /// loop that went through the link is done) or this source ends and leaves `parent`. Nothing of
  /// it stays in either source once one of them ended (a closed parent's link leaves this source's
  /// list of parents by the time it adds another).
  @usableFromInline package func link(to parent: CancelStorage, keeping: (any AnyObject & Sendable)? = nil) -> Bool {
    guard parent !== self, !isCompleted else { return false }
    let registration = parent.register(.link(self, keeping: keeping))
    guard registration.isActive else { return false }
    if let refused = lock.withLock({ machine.adoptParentLink(registration) }) {
      refused.unregister()
      return false
    }
    return true
  }

  /// Cancels with a ``TimeoutError`` after `delay`, replacing any earlier deadline. The timer is
  /// stopped (and its closure released) as soon as the source ends another way.
  package func cancel(after delay: Duration, scheduler: some DeadlineScheduler, origin: CancelOrigin = .unknown) {
    guard !isCompleted else { return }
    arm(at: ContinuousClock.now.saturatingAdvanced(by: delay), delay: delay, scheduler: scheduler, origin: origin)
  }

  /// Cancels with a ``TimeoutError`` when `instant` passes (at once if it has), replacing any
  /// earlier deadline. `scheduler` measures the time left from now.
  package func cancel(
    at instant: ContinuousClock.Instant, scheduler: some DeadlineScheduler, origin: CancelOrigin = .unknown
  ) {
    guard !isCompleted else { return }
    arm(at: instant, delay: ContinuousClock.now.delay(until: instant), scheduler: scheduler, origin: origin)
  }

  private func arm(
    at instant: ContinuousClock.Instant, delay: Duration, scheduler: some DeadlineScheduler, origin: CancelOrigin
  ) {
    // The timer holds the storage strongly; ending the source stops the timer, which breaks that
    // reference, so nothing outlives the source's end.
    let timer = scheduler.schedule(after: delay) { [self] in
      _ = self.cancel(reason: TimeoutError(timeout: delay), origin: origin, cause: .deadline)
    }
    let stale = lock.withLock { machine.replaceDeadline(ArmedDeadline(instant: instant, timer: timer)) }
    stale?.stop()
  }

  /// The earliest pending deadline of this source and of every source it is linked to, directly
  /// or through other links; `nil` if none has one, or once this source ended.
  ///
  /// Each source's lock is taken on its own, never two at once; the walk is a loop (a chain of
  /// any depth reads in constant stack) and visits each source once.
  package var deadline: ContinuousClock.Instant? {
    let (own, parents) = lock.withLock { machine.deadlineAndParents }
    if case .none = parents { return own }  // the common case: no links, nothing to walk
    var earliest = own
    var visited: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
    var toVisit = parents.storages
    for parent in toVisit { visited.insert(ObjectIdentifier(parent)) }
    while let storage = toVisit.popLast() {
      let (own, parents) = storage.lock.withLock { storage.machine.deadlineAndParents }
      if let own, earliest.map({ own < $0 }) ?? true { earliest = own }
      for parent in parents.storages where visited.insert(ObjectIdentifier(parent)).inserted {
        toVisit.append(parent)
      }
    }
    return earliest
  }
}

/// A snapshot of a source's state.
public enum CancelPhase: Sendable {
  /// Not cancelled yet, and still cancellable.
  case active
  /// Cancelled; `reason` is the first reason given.
  case cancelled(reason: any Error)
  /// Ended without cancellation; it can never be cancelled now.
  case closed

  /// Whether this is ``cancelled(reason:)``.
  public var isCancelled: Bool {
    if case .cancelled = self { return true }
    return false
  }
}
