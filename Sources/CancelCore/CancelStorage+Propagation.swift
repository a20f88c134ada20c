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

  /// Does everything a source must do once it ended: stop its deadline, leave its parents, and run
  /// its handlers newest first.
  ///
  /// Cancelling a linked child happens in this loop, not by recursion: the child's work is pushed on
  /// an explicit stack and done before the parent's remaining handlers (the order a recursive call
  /// would give). When the child link was the parent's last handler the parent's frame is dropped
  /// first, so a chain of any depth runs in constant stack and constant extra memory.
  static func finish(_ first: consuming EndedSource) {
    var current = first
    var pending: [EndedSource] = []
    current.detach()
    while true {
      while let handler = current.handlers.popNewest() {
        guard case .link(let child) = handler else {
          run(handler, reason: current.reason)
          continue
        }
        guard let reason = current.reason, let childEnded = child.beginCancel(reason: reason) else { continue }
        if current.handlers.mayHaveMore { pending.append(current) }
        current = childEnded
        current.detach()
      }
      guard let next = pending.popLast() else { return }
      current = next
    }
  }
}

extension EndedSource {
  /// Stops the deadline timer and removes the links in parents: an ended source needs neither.
  func detach() {
    stopDeadline?()
    parents.unregisterAll()
  }
}
