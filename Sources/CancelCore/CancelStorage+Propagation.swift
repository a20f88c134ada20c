extension CancelStorage {
  /// Runs one handler for a source that has already ended (`reason` is `nil` if it closed).
  static func run(_ handler: CancelHandler, reason: (any Error)?) {
    switch handler {
    case .onCancel(let body): if reason != nil { body() }
    case .onCancelWithReason(let body): if let reason { body(reason) }
    case .onComplete(let body): body(reason != nil)
    case .link(let child): if let reason { _ = child.cancel(reason: reason) }
    }
  }

  /// Does everything a source must do once it ended: stop its deadline, leave its parents, run
  /// its handlers newest first, then cancel (or, closed, release) its members oldest first.
  ///
  /// Cancelling a linked child happens in this loop, not by recursion: the child's work is pushed on
  /// an explicit stack and done before the parent's remaining handlers and members (the order a
  /// recursive call would give). When the child link was the parent's last handler and the parent
  /// has no members, the parent's frame is dropped first, so a chain of linked sources of any depth
  /// runs in constant stack (and, without members, constant extra memory).
  static func finish(_ first: consuming EndedSource) {
    var current = first
    var pending: [EndedSource] = []
    current.detach()
    while true {
      while let handler = current.handlers.popNewest() {
        guard let reason = current.reason else {
          run(handler, reason: nil)
          // A closed source's handlers may hold the last reference to an object whose `deinit`
          // closes another source (a chain of cancel contexts, one per stage): freed inline, a
          // long chain would close one inside the other, a frame per stage.
          IterativeRelease.release(consume handler)
          continue
        }
        guard case .link(let child) = handler else {
          run(handler, reason: reason)
          continue
        }
        guard let childEnded = child.beginCancel(reason: reason) else { continue }
        if current.handlers.mayHaveMore || !current.members.isEmpty { pending.append(current) }
        current = childEnded
        current.detach()
      }
      // Checked first: most sources have no members, and passing the reason on copies it (an
      // atomic retain and release of the error).
      if !current.members.isEmpty { finishMembers(current.takeMembers(), reason: current.reason) }
      guard let next = pending.popLast() else { return }
      current = next
    }
  }
}

extension CancelStorage {
  /// Cancels `members` with `reason`, oldest first, or (closed, `nil`) releases them one by one.
  static func finishMembers(_ members: consuming TakenMembers, reason: (any Error)?) {
    var members = members
    guard let reason else {
      // Released one at a time, through the core's iterative release: a member may hold the last
      // reference to an object whose `deinit` closes another source (see `finish`).
      while let member = members.popOldest() { IterativeRelease.release(member) }
      return
    }
    // `reason` is bound once, outside the loop: a binding per member would retain and release the
    // shared error once per member.
    while let member = members.popOldest() {
      // Acquiring: a member that left may be released here, and with it (through its owner) the
      // source the leaving thread was still reading just before it set `hasLeft`.
      if !member.hasLeft.load(ordering: .acquiring) { member.action(member, .cancelled(reason)) }
    }
  }
}

extension EndedSource {
  /// Hands the members over, leaving none. (A swap rather than consuming `members` out of the
  /// `EndedSource` in `finish`: the latter crashed Swift 6.3.1's ownership verifier in release
  /// builds.)
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
