extension _FutureCore {
  /// The label given with ``Promise/init(label:)`` or ``Future/labelled(_:)``, if any.
  final var recordLabel: String? { lock.withLock { requests.label } }

  /// Gives this future a label for records, unless it has one or has completed.
  final func setRecordLabel(_ label: String) {
    lock.withLock { requests.setLabel(label, isSettled: machine.isSettled) }
  }

  /// What the record walk reads of one future, under its lock.
  private struct RecordStep {
    var isCancelled = false
    var label: String?
    var ending: FutureEnding?
    /// The future whose cancel this one passed on, if it did.
    var passedOnFrom: _FutureCore?
  }

  /// The record of this future's cancel, built now; `nil` unless it completed cancelled.
  ///
  /// It follows the futures whose cancel was passed on (each keeps the link to the one it waited
  /// on) back to the future where the cancel started, one lock at a time, in a loop: a chain of
  /// any length reads in constant stack. There, the ending says what ended it and the request
  /// (if one led to it) where the request started.
  final var cancelRecord: CancellationRecord? {
    var node = self
    var passedOn: [String?] = []  // labels of the futures that passed the cancel on, this one first
    var passer: _FutureCore?  // the last of them
    while true {
      let step = node.lock.withLock { () -> RecordStep in
        guard case .cancelled? = node.machine.value else { return RecordStep() }
        var step = RecordStep(isCancelled: true, label: node.requests.label, ending: node.requests.ending)
        if step.ending == nil, case .one(let parent, _) = node.requests.upstream { step.passedOnFrom = parent }
        return step
      }
      guard step.isCancelled else {
        // Only this future can be other than cancelled: a future passes on only a cancel. Were it
        // otherwise, the record would start at the last future that passed it on.
        guard let passer else { return nil }
        let label = passedOn.removeLast()
        return Self.record(start: passer, label: label, ending: nil, passedOn: passedOn[...])
      }
      if let parent = step.passedOnFrom {
        passedOn.append(step.label)
        passer = node
        node = parent
        continue
      }
      return Self.record(start: node, label: step.label, ending: step.ending, passedOn: passedOn[...])
    }
  }

  /// The record of a cancel that started at `start` (labelled `label`) as `ending` says, and
  /// was passed on to the futures labelled `passedOn` (the last of them first).
  private static func record(
    start: _FutureCore, label: String?, ending: FutureEnding?, passedOn: ArraySlice<String?>
  ) -> CancellationRecord {
    // `nil` only for a path this package does not take (every cancelled completion says how).
    let ending = ending ?? FutureEnding(.block, request: nil)
    let request = ending.request
    var hops: [CancellationRecord.Hop] = []
    // A request that reached the future is what its producer answered, even when the producer
    // ended it because of another facade's cancel (which that request may itself have caused).
    let base =
      if let request { request.linkedFrom?.cancellationRecord } else { ending.linkedRecord?() }
    if let base { hops = base.hops }
    let firstArrival: CancellationRecord.Hop.Arrival = base == nil ? .origin : .link
    if let request, request.start != ObjectIdentifier(start) {
      hops.append(.init(label: request.label, arrival: firstArrival))
      hops.append(.init(label: label, arrival: .request, ending: ending.how))
    } else {
      hops.append(.init(label: request?.label ?? label, arrival: firstArrival, ending: ending.how))
    }
    for passed in passedOn.reversed() { hops.append(.init(label: passed, arrival: .completion)) }
    if let base { return CancellationRecord(extending: base, hops: hops) }
    return CancellationRecord(
      reason: CancellationError(), instant: RecordClock.instant(of: request?.clockCount ?? ending.clockCount),
      origin: request?.origin ?? ending.origin, trigger: request.map { $0.byTask ? .task : .call } ?? ending.trigger,
      hops: hops)
  }

  /// Hands this future's record to the process's observer (see
  /// `CancellationRecord.setObserver(_:)`): called after a cancel that started here.
  final func reportCancel() {
    if let record = cancelRecord { CancellationObservers.report(record) }
  }
}
