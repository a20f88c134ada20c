extension CancelStorage {
  /// Runs one handler for a source that has already ended (`reason` is `nil` if it closed).
  ///
  /// `source` is the source that ended, if the caller has it: the cause of a linked child's cancel.
  static func run(_ handler: CancelHandler, reason: (any Error)?, from source: CancelStorage? = nil) {
    switch handler {
    case .onCancel(let body): if reason != nil { body() }
    case .onCancelWithReason(let body): if let reason { body(reason) }
    case .onComplete(let body): body(reason != nil)
    case .link(let child, _):
      guard let reason else { return }
      if let source { _ = child.cancel(reason: reason, cause: .link(source)) } else { _ = child.cancel(reason: reason) }
    }
  }

  /// Does everything a source must do once it ended: stop its deadline, leave its parents, run
  /// its handlers newest first, then cancel its members oldest first (a closed source hands its
  /// members to `finishClosed` before this).
  ///
  /// Nothing here recurses, whatever the handlers do: a linked child's work, and that of a source
  /// a handler, its release or a member's action ends on this thread (queued on
  /// ``ThreadCancelLoop``; its state, reason and call result are set at once), is done by this loop
  /// before the rest of the source that was running, the order a recursive call would give.
  /// Why and how: docs/architecture.md, "Deep chains never recurse".
  ///
  /// `observed`: the source was cancelled and the process has an observer (see
  /// `CancellationObservers`); it is told inside the loop, so that what the observer cancels is
  /// queued, not done inside it. (The caller knows whether it cancelled: reading that here would
  /// copy the whole ended source.)
  static func finish(_ first: consuming EndedSource, observed: Bool = false) {
    // Nothing to run, so nothing that could end another source: no loop needed.
    guard first.handlers.mayHaveMore || !first.members.isEmpty || observed else {
      first.detach()
      return
    }
    // The loop by reference, not through a closure: `first` moves on as it is (a closure would
    // capture it in an optional, whose destruction goes through value witnesses).
    let loop = ThreadCancelLoop.current
    guard !loop.isRunning else {
      // Reported when the loop takes it (`reportQueued`): reported now, what the observer
      // cancels would be reported inside it, and so on, one frame per cancel.
      // Its source is not retained (see `EndedSource.source`): kept until the loop is done.
      if let source = first.source { loop.kept.append(source.takeUnretainedValue()) }
      loop.queued.append(first)
      return
    }
    loop.isRunning = true
    if observed, let source = first.source { CancellationObservers.notify(source.takeUnretainedValue()) }
    drive(first, loop)
    loop.isRunning = false
  }

  /// Inside a handler (or member action) of a cancel running on this thread, ends the sources
  /// whose cancel this thread queued meanwhile (their handlers and members run now, and what they
  /// queue in turn); otherwise does nothing. Returns whether it ran any.
  ///
  /// For blocking waits (see `BlockingWait`): a handler that cancels a chain and then waits for a
  /// stage of it would otherwise wait for the rejection its own cancel queued.
  @discardableResult
  package static func runQueuedCancels() -> Bool {
    var ran = false
    ThreadCancelLoop.withCurrent { loop in
      guard loop.isRunning else { return }
      while loop.hasQueued {
        ran = true
        var queued: [EndedSource] = []
        swap(&queued, &loop.queued)
        reportQueued(queued)
        // Oldest first; what each one queues is done inside its own `drive`, before the next.
        for source in queued { drive(source, loop) }
      }
    }
    return ran
  }

  /// The loop of ``finish(_:)``, run by the outermost call on a thread.
  private static func drive(_ first: consuming EndedSource, _ loop: ThreadCancelLoop) {
    let keptBefore = loop.kept.count
    // Read at the first linked child, not at each one: an observer set while a cancel is under
    // way sees the cancels that start after it was set.
    var observing: Bool? = nil
    var current = first
    var pending: [EndedSource] = []
    current.detach()
    sources: while true {
      while let handler = current.handlers.popNewest() {
        guard let reason = current.reason else {
          run(handler, reason: nil)
          // A closed source's handlers may hold the last reference to an object whose `deinit`
          // closes another source (a chain of cancel contexts, one per stage): freed inline, a
          // long chain would close one inside the other, a frame per stage.
          IterativeRelease.release(consume handler)
          if loop.hasQueued { takeQueued(loop, &current, &pending) }
          continue
        }
        guard case .link(let child, let kept) = handler else {
          let outer = loop.handlerSource
          loop.handlerSource = current.source
          run(handler, reason: reason)
          loop.handlerSource = outer
          if loop.hasQueued { takeQueued(loop, &current, &pending) }
          continue
        }
        var cause = CancelCause.call
        if let parent = current.source { cause = .link(parent.takeUnretainedValue()) }
        guard let childEnded = child.beginCancel(reason: reason, origin: .unknown, cause: cause) else { continue }
        // The child's ended source does not retain it, and the link that did is released below:
        // kept until the loop is done.
        loop.kept.append(child)
        if observing == nil { observing = CancellationObservers.isObserving }
        if observing == true { CancellationObservers.notify(child) }
        if current.handlers.mayHaveMore || !current.members.isEmpty { pending.append(current) }
        current = childEnded
        // What the link kept stays until this loop is done (see `ThreadCancelLoop.kept`).
        if let kept { loop.kept.append(kept) }
        current.detach()
      }
      // Checked first: most sources have no members, and passing the reason on copies it (an
      // atomic retain and release of the error). Only a cancelled source has members here: a
      // closed one hands them to `finishClosed` before it reaches this loop (`close(_:)`).
      assert(current.members.isEmpty || current.reason != nil, "a closed source's members reached the loop")
      if !current.members.isEmpty, let reason = current.reason {
        // `reason` is bound once, outside the loop: a binding per member would retain and
        // release the shared error once per member.
        while let member = current.members.popOldest() {
          // Acquiring: a member that left may be released here, and with it (through its owner)
          // the source the leaving thread was still reading just before it set `hasLeft`.
          if !member.hasLeft.load(ordering: .acquiring) { member.action(member, .cancelled(reason)) }
          if loop.hasQueued {
            takeQueued(loop, &current, &pending)
            continue sources
          }
        }
      }
      // A handler is released after its step's check: a source its release ended (an object's
      // `deinit` closing one) is queued now, and done before anything stacked, or before returning.
      if loop.hasQueued {
        takeQueued(loop, &current, &pending)
        continue sources
      }
      guard let next = pending.popLast() else {
        guard loop.kept.count > keptBefore else { return }
        // Let go one at a time, each after it left the array: its `deinit` may end sources
        // (a chain's context closing its own), which this loop then does before returning.
        while loop.kept.count > keptBefore { _ = loop.kept.removeLast() }
        if loop.hasQueued {
          takeQueued(loop, &current, &pending)
          continue sources
        }
        return
      }
      current = next
    }
  }

  /// Hands the records of the cancelled sources just taken from the queue to the process's
  /// observer, oldest first (see `CancellationObservers`). What the observer cancels is queued
  /// again, and reported when the loop takes it in turn.
  private static func reportQueued(_ queued: [EndedSource]) {
    guard CancellationObservers.isObserving else { return }
    for ended in queued where ended.reason != nil {
      if let source = ended.source { CancellationObservers.notify(source.takeUnretainedValue()) }
    }
  }

  /// Makes the oldest source queued on `loop` the current one and stacks the others after it,
  /// in the order they were ended, above what `current` has left to do.
  private static func takeQueued(
    _ loop: ThreadCancelLoop, _ current: inout EndedSource, _ pending: inout [EndedSource]
  ) {
    var queued: [EndedSource] = []
    swap(&queued, &loop.queued)
    reportQueued(queued)
    if current.handlers.mayHaveMore || !current.members.isEmpty { pending.append(current) }
    while queued.count > 1 { pending.append(queued.removeLast()) }
    current = queued.removeLast()
    current.detach()
  }
}

/// One thread's queue of sources that ended while ``CancelStorage/finish(_:)`` was running on it,
/// waiting for that loop. Thread-confined: only its own thread touches it.
//
// The dynamic exclusivity checks are switched off, as in `ThreadRunQueue`: only the owning thread
// accesses it, and the loop runs no handler while an access to `queued` is in progress (it swaps
// the queue out first).
final class ThreadCancelLoop {
  @exclusivity(unchecked) var isRunning = false
  @exclusivity(unchecked) var queued: [EndedSource] = []
  /// What the links this thread's loop passed a cancel through kept (`CancelHandler.link`: the
  /// owner of each child, a chain's context), held until the loop that cancelled them has done
  /// everything, so no owner goes away, closing what the cancel has yet to reach, while it runs.
  /// Kept here rather than with each ended source: the array's storage is reused by every loop
  /// of the thread, and a source that no link kept carries nothing more.
  @exclusivity(unchecked) var kept: [any AnyObject & Sendable] = []
  /// The source whose cancel handler runs on this thread now, if one does: a cancel made through
  /// `cancel(dueTo:)` inside it is recorded as arriving from that source (see
  /// `CancelStorage.cancel(dueTo:)`). Not retained: set only while the source runs the handler.
  @exclusivity(unchecked) var handlerSource: Unmanaged<CancelStorage>? = nil

  /// Whether sources wait for the loop.
  var hasQueued: Bool { !queued.isEmpty }

  /// The calling thread's loop state, created on first use and released when the thread exits.
  static var current: ThreadCancelLoop {
    threadCancelLoops.current(make: { ThreadCancelLoop() })
  }

  /// Calls `body` with the calling thread's loop state, created on first use and released when
  /// the thread exits.
  static func withCurrent(_ body: (ThreadCancelLoop) -> Void) {
    threadCancelLoops.withCurrent(make: { ThreadCancelLoop() }, body)
  }
}

/// The thread-local slot holding each thread's `ThreadCancelLoop`.
private let threadCancelLoops = ThreadLocalObject<ThreadCancelLoop>()

extension EndedSource {
  /// Hands the members over, leaving none (a close tells them itself: see
  /// `CancelStorage.finishClosed`). A swap rather than consuming `members` out of the
  /// `EndedSource`: the latter crashed Swift 6.3.1's ownership verifier in release builds.
  mutating func takeMembers() -> TakenMembers {
    let taken = members
    members = TakenMembers(head: nil)
    return taken
  }

  /// Stops the deadline timer and removes the links in parents: an ended source needs neither.
  func detach() {
    deadline?.stop()
    parents.unregisterAll()
  }
}
