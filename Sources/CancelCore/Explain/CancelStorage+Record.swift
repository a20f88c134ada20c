extension CancelStorage {
  /// The label this source was created with, if any.
  package var label: String? { lock.withLock { machine.label } }

  /// Whether this source is a part of a larger object (see ``init(partOf:)``).
  var isPart: Bool { lock.withLock { machine.whole != nil } }

  /// The record of this source's cancel, built now from the facts the first cancel fixed; `nil`
  /// while the source is not cancelled.
  ///
  /// It follows the cause back, source by source (each source kept by the one its cancel reached),
  /// to where the cancel started: a loop that takes one source's lock at a time, so a path of any
  /// length reads in constant stack. Consecutive sources of one larger object (see
  /// ``init(partOf:)``) show as one hop (see ``visibleHops(_:)``).
  package var cancellationRecord: CancellationRecord? {
    guard isCancelled else { return nil }
    var source = self
    var reason: (any Error)?
    var hops: [(hop: CancellationRecord.Hop, object: UnsafeMutableRawPointer)] = []
    while true {
      let (facts, label, whole) = source.lock.withLock {
        (source.machine.facts!, source.machine.label, source.machine.whole)
      }
      let object = (whole ?? Unmanaged.passUnretained(source)).toOpaque()
      if reason == nil { reason = facts.reason }  // this source's own (a mapped token may differ)
      switch facts.fields.cause {
      case .link(let previous):
        hops.append((.init(label: label, arrival: .link), object))
        source = previous
      case .join(let previous):
        hops.append((.init(label: label, arrival: .join), object))
        source = previous
      case .call, .deadline, .task, .shutdown, .integration:
        hops.append((.init(label: label, arrival: .origin), object))
        hops.reverse()
        return CancellationRecord(
          reason: reason!, instant: facts.fields.instant, origin: facts.fields.origin,
          trigger: facts.fields.cause.trigger, hops: Self.visibleHops(hops))
      }
    }
  }

  /// The hops a record shows, from the origin on: consecutive sources of one object (the same
  /// main source, and the same label) are one hop, which arrived as the first of them did.
  ///
  /// The object is told by the address of its main source, which a part does not keep alive: if
  /// that source was freed and another source of the path took its address, two hops with the same
  /// label could show as one. The label must match too, so only a diagnostic detail is at stake.
  static func visibleHops(
    _ hops: [(hop: CancellationRecord.Hop, object: UnsafeMutableRawPointer)]
  ) -> [CancellationRecord.Hop] {
    var visible: [CancellationRecord.Hop] = []
    var previous: (hop: CancellationRecord.Hop, object: UnsafeMutableRawPointer)?
    for hop in hops {
      if let previous, previous.object == hop.object, previous.hop.label == hop.hop.label { continue }
      visible.append(hop.hop)
      previous = hop
    }
    return visible
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
