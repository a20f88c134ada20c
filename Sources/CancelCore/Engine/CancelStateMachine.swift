/// The states of one source and the events that move it, as a plain value.
///
/// It never calls user code and knows nothing about locks or threads: every event returns what must
/// happen next, and `CancelStorage` does that after releasing its lock. That split is what makes
/// "exactly once" and "never under our lock" visible in the types.
struct CancelStateMachine: Sendable {
  enum Phase: Sendable {
    /// Nobody has cancelled or closed the source: handlers wait in the table.
    case active
    /// The source was cancelled; the value is the first reason given (the rest of what the
    /// cancel recorded is in `facts`). Final.
    case cancelled(any Error)
    /// The source ended without cancellation and can never be cancelled now. Final.
    case closed
  }

  /// What to do with a handler that was offered to a source that has already ended.
  enum RegisterAction: Sendable {
    /// The handler waits in the table under this key.
    case registered(RegistrationKey)
    /// The source is cancelled: run the handler now, on the registering thread.
    case runCancelled(CancelHandler, reason: any Error)
    /// The source is closed: run it now if it is a completion handler, otherwise just release it.
    case runClosed(CancelHandler)
  }

  private(set) var phase: Phase = .active
  private var handlers = RegistrationTable<CancelHandler>()
  private var members = MemberList()
  private var parents = ParentLinks.none
  /// The label and the pending deadline (stopped when the source ends or the deadline is
  /// replaced), kept by reference and only when the source has one, so a source without either
  /// stores one word for them. No default value: each initializer sets it once (a default, then
  /// an assignment, would copy and destroy the whole machine more in a source's initializer).
  private var extras: SourceExtras
  /// What the first cancel recorded besides its reason; unset until then.
  private var recorded = CancelFactsFields()
  /// Whether the source's owner let go of it while members still waited or dependents pinned it
  /// (see `CancelStorage.release()`): it then closes as soon as neither is left.
  private var released = false
  /// How many released dependents need this source open (see `CancelStorage.pin()`).
  private var pins = 0

  /// The number of handlers (including links to children) waiting on this source.
  var registrationCount: Int { handlers.count }

  /// The number of members waiting on this source.
  var memberCount: Int { members.count }

  mutating func register(_ handler: CancelHandler) -> RegisterAction {
    switch phase {
    case .active: return .registered(handlers.insert(handler))
    case .cancelled(let reason): return .runCancelled(handler, reason: reason)
    case .closed: return .runClosed(handler)
    }
  }

  /// Removes a waiting handler. Returns it so it is released outside the lock, or `nil` if it is not
  /// waiting any more (it ran, is running, was released, or was already removed).
  mutating func unregister(_ key: RegistrationKey) -> CancelHandler? {
    guard case .active = phase else { return nil }
    return handlers.remove(key)
  }

  /// What `addMember(_:)` did.
  enum AddMemberAction: Sendable {
    /// The member waits in the list.
    case added
    /// The source is cancelled: cancel the member now, on the adding thread.
    case cancelled(reason: any Error)
    /// The source is closed: the member was not added and never will be cancelled.
    case closed
  }

  /// Adds a member to wait for the cancel, if the source is still active: moves it out of `member`
  /// into the list (else leaves it there).
  mutating func addMember(_ member: inout CancelMember?) -> AddMemberAction {
    switch phase {
    case .active:
      members.append(member.take()!)
      return .added
    case .cancelled(let reason): return .cancelled(reason: reason)
    case .closed: return .closed
    }
  }

  /// Removes a waiting member. Returns the list's reference so it is released outside the lock, or
  /// `nil` if the member is not waiting. Once the source ended the list belongs to the thread that
  /// ended it, so this touches nothing.
  mutating func removeMember(_ member: CancelMember) -> CancelMember? {
    guard case .active = phase else { return nil }
    let held = members.remove(member)
    // The last member a released source waited for: the leaving thread closes it after unlocking.
    if released, held != nil, members.isEmpty, pins == 0 { member.drainedItsSource = true }
    return held
  }

  /// Whether members wait on the source or released dependents pin it (it is active).
  var isNeeded: Bool {
    guard case .active = phase else { return false }
    return !members.isEmpty || pins > 0
  }

  /// The owner let go: marks the source released. Returns whether it may close now (no member
  /// waits and no dependent pins it).
  mutating func release() -> Bool {
    guard case .active = phase else { return false }
    released = true
    return isDrained
  }

  /// Whether the source is active, released, and nothing needs it open any more.
  var isDrained: Bool {
    guard case .active = phase else { return false }
    return released && members.isEmpty && pins == 0
  }

  /// Whether the source is active and released.
  var isReleased: Bool {
    guard case .active = phase else { return false }
    return released
  }

  /// A dependent needs the source open; `false` if it already ended.
  mutating func pin() -> Bool {
    guard case .active = phase else { return false }
    pins += 1
    return true
  }

  /// A dependent no longer needs the source open. Returns whether it may close now.
  mutating func unpin() -> Bool {
    guard case .active = phase else { return false }
    pins -= 1
    return isDrained
  }

  /// Makes a source created with `label` (see ``CancelStorage/init(label:)``).
  init(label: String) {
    extras = .labelled(LabelledExtras(label: label))
  }

  /// Makes a part of the larger object labelled `label` whose main source is `whole` (see
  /// ``CancelStorage/init(partOf:)``).
  init(partOf whole: Unmanaged<CancelStorage>, label: String?) {
    if let label {
      extras = .labelled(LabelledExtras(label: label, whole: whole))
    } else {
      extras = .part(of: whole)
    }
  }

  init() {
    extras = .none
  }

  /// The label the source was created with, if any.
  var label: String? { extras.label }

  /// For a part of a larger object, the object's main source (not retained).
  var whole: Unmanaged<CancelStorage>? { extras.whole }

  /// The first `cancel` or `close` wins; later ones return `nil`.
  ///
  /// `facts` are what the cancel records besides its reason; `source` is the storage this machine
  /// belongs to, handed on with what is left to do.
  mutating func cancel(reason: any Error, facts: CancelFactsFields, source: CancelStorage) -> EndedSource? {
    guard case .active = phase else { return nil }
    phase = .cancelled(reason)
    recorded = facts
    recorded.retainPrevious()
    return takeEverything(reason: reason, source: Unmanaged.passUnretained(source))
  }

  /// See `cancel(reason:)`.
  mutating func close() -> EndedSource? {
    guard case .active = phase else { return nil }
    phase = .closed
    return takeEverything(reason: nil, source: nil)
  }

  /// Closes a source that nothing waits on and that is linked to nothing (no handler, member,
  /// parent link or deadline, and no handler storage left to free), so that nothing is left to do
  /// after unlocking; `false`, changing nothing, for any other source (and once it ended).
  mutating func closeIfIdle() -> Bool {
    guard case .active = phase, handlers.isEmptyWithoutStorage, members.isEmpty, case .none = parents,
      extras.deadline == nil
    else { return false }
    phase = .closed
    return true
  }

  /// Keeps a registration this source holds in a parent. If the source already ended, the
  /// registration is returned so the caller removes it from the parent.
  mutating func adoptParentLink(_ registration: CancelRegistration) -> CancelRegistration? {
    guard case .active = phase else { return registration }
    parents.append(registration)
    return nil
  }

  /// Installs a new deadline and returns the one to stop now: the one it replaced, or the new one
  /// itself if the source already ended.
  mutating func replaceDeadline(_ new: ArmedDeadline) -> ArmedDeadline? {
    guard case .active = phase else { return new }
    return extras.replaceDeadline(with: new)
  }

  /// How many links to parents this source keeps.
  var parentLinkCount: Int { parents.count }

  /// This source's own pending deadline and the links to its parents, whose deadlines count too;
  /// nothing once the source ended.
  var deadlineAndParents: (ContinuousClock.Instant?, ParentLinks) {
    guard case .active = phase else { return (nil, .none) }
    return (extras.deadline?.instant, parents)
  }

  /// The reason and facts of a cancelled source.
  var facts: CancelFacts? {
    guard case .cancelled(let reason) = phase else { return nil }
    return CancelFacts(reason: reason, fields: recorded)
  }

  /// For a cancelled source being freed: hands out the source its cancel came from (which it
  /// kept for its record), so it is released without recursing along a long path.
  mutating func takePreviousSource() -> CancelStorage? {
    guard let previous = recorded.previous else { return nil }
    recorded.previous = nil
    return previous.takeRetainedValue()
  }

  private mutating func takeEverything(reason: (any Error)?, source: Unmanaged<CancelStorage>?) -> EndedSource {
    let ended = EndedSource(
      handlers: handlers.drain(), members: members.takeAll(), reason: reason, parents: parents,
      deadline: extras.deadline, source: source)
    parents = .none
    _ = extras.replaceDeadline(with: nil)
    return ended
  }
}

/// Everything a source must do, outside its lock, once it has ended.
struct EndedSource: Sendable {
  /// The handlers to run (or release), newest first.
  var handlers: DrainedRegistrations<CancelHandler>
  /// The members to cancel (or release), oldest first, after the handlers.
  var members: TakenMembers
  /// The reason if the source was cancelled; `nil` if it closed.
  let reason: (any Error)?
  /// Links in parents to remove: an ended child needs no parent any more.
  let parents: ParentLinks
  /// A pending deadline to stop.
  let deadline: ArmedDeadline?
  /// The source, if it was cancelled: what its linked children's cancel came from. Not retained:
  /// the caller of its cancel holds it while the cancel loop runs it, and the loop keeps (in
  /// `ThreadCancelLoop.kept`) every source it queues or reaches through a link.
  let source: Unmanaged<CancelStorage>?
}
