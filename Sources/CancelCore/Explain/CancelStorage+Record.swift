extension CancelStorage {
  /// The label this source was created with, if any.
  package var label: String? { lock.withLock { machine.label } }

  /// The record of this source's cancel, built now from the facts the first cancel fixed; `nil`
  /// while the source is not cancelled.
  ///
  /// It follows the cause back, source by source (each source kept by the one its cancel reached),
  /// to where the cancel started: a loop that takes one source's lock at a time, so a path of any
  /// length reads in constant stack.
  package var cancellationRecord: CancellationRecord? {
    guard isCancelled else { return nil }
    var (facts, label) = lock.withLock { (machine.facts!, machine.label) }
    let reason = facts.reason
    var hops: [CancellationRecord.Hop] = []
    while true {
      switch facts.fields.cause {
      case .link(let previous), .join(let previous):
        let arrival: CancellationRecord.Hop.Arrival
        if case .join = facts.fields.cause { arrival = .join } else { arrival = .link }
        hops.append(.init(label: label, arrival: arrival))
        (facts, label) = previous.lock.withLock { (previous.machine.facts!, previous.machine.label) }
      case .call, .deadline, .task, .shutdown, .integration:
        hops.append(.init(label: label, arrival: .origin))
        hops.reverse()
        return CancellationRecord(
          reason: reason, instant: facts.fields.instant, origin: facts.fields.origin,
          trigger: facts.fields.cause.trigger, hops: hops)
      }
    }
  }
}

extension CancelCause {
  /// What started the cancel, for a cause that is not a link or a join.
  var trigger: CancellationRecord.Trigger {
    switch self {
    case .call, .link, .join: return .call
    case .deadline: return .deadline
    case .task: return .task
    case .shutdown: return .shutdown
    case .integration(let integration): return .integration(integration.name)
    }
  }
}
