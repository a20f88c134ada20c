/// How a future where a cancel started came to end cancelled, as it keeps it (in its
/// `FutureExtras`, made on the cancel path if missing: at most one allocation per such future).
/// A future cancelled because the future it waited on was keeps no ending: it keeps that future
/// instead (see `SettleCause.upstream`).
@usableFromInline
struct FutureEnding: Sendable {
  /// What ended it.
  let how: CancellationRecord.Hop.Ending
  /// The request that led to it; filled in from the future's first request when the ending has
  /// none of its own (a producer completing cancelled after a request reached it).
  var request: RequestFacts?
  /// The call that ended it, when no request led to it (a producer's `completeWithCancel()`).
  let origin: CancelOrigin
  /// When it ended, as a `RecordClock` count.
  let clockCount: Int64
  /// What started it when no request did: a call, or a producer's timer (`.deadline`).
  let trigger: CancellationRecord.Trigger
  /// The record of the cancel of another facade that ended it, read when the future's record is:
  /// the core source whose cancel handler was running (a token's bridge completing a producer), or
  /// a cancellable chain a bridge follows.
  let linkedRecord: (@Sendable () -> CancellationRecord?)?

  /// An ending that a request (or nothing known) led to.
  init(_ how: CancellationRecord.Hop.Ending, request: RequestFacts?) {
    self.how = how
    self.request = request
    origin = .unknown
    clockCount = request?.clockCount ?? RecordClock.now()
    trigger = .call
    linkedRecord = nil
  }

  /// An ending made now by a call at `origin` (a producer's, or a block's), started by `trigger`;
  /// `linkedRecord` by default reads the record of the source whose cancel handler is running
  /// here, if any.
  init(
    _ how: CancellationRecord.Hop.Ending, origin: CancelOrigin, trigger: CancellationRecord.Trigger = .call,
    linkedRecord: (@Sendable () -> CancellationRecord?)? = nil
  ) {
    self.how = how
    request = nil
    self.origin = origin
    clockCount = RecordClock.now()
    self.trigger = trigger
    if let linkedRecord {
      self.linkedRecord = linkedRecord
    } else if let source = CancelStorage.runningHandlerSource {
      self.linkedRecord = { @Sendable in source.cancellationRecord }
    } else {
      self.linkedRecord = nil
    }
  }
}

/// What a completion says about how it came about, for the record of a future that completes
/// cancelled. Only read when the result is `.cancelled`.
@usableFromInline
enum SettleCause {
  /// Nothing to record (not a cancel, or nothing known).
  case none
  /// The cancel started here: keep how.
  case ending(FutureEnding)
  /// The future passes on the cancelled result of the one future it waits on (a parent, or the
  /// future it was handed over to): the link to it is kept instead of released, so the record
  /// can follow it.
  case upstream
  /// A combinator passes on the cancelled result of this input: only the link to it is kept.
  case input(_FutureCore)
}
