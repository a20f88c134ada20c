/// What a cancel request keeps about where it started, for the records of the futures it ends
/// (see `_FutureCore.cancelRecord`): made once per request (its one allocation), shared by every
/// hop of the request and kept by the future where it stops or ends something, so that carrying it
/// along costs a reference count, not a copy of its fields.
@usableFromInline
final class RequestFacts: Sendable {
  /// The call that made the request (unknown through the `Cancellable` protocol).
  let origin: CancelOrigin
  /// Whether the request was made because a task awaiting the future was cancelled (a record's
  /// `task` trigger) rather than by a call.
  let byTask: Bool
  /// When the request was made, as a `RecordClock` count.
  let clockCount: Int64
  /// The future whose token (or batch) made the request. Compared, never followed: the future
  /// may be gone by the time a record is read.
  let start: ObjectIdentifier
  /// That future's label when the request was made.
  let label: String?
  /// The core source whose cancel handler made the request (a token's bridge to this future),
  /// kept so that the record starts where that cancel started.
  let linkedFrom: CancelStorage?

  /// A request made now on `start`, at `origin` (or, `byTask`, because a task was cancelled).
  init(origin: CancelOrigin, start: _FutureCore, byTask: Bool = false) {
    self.origin = origin
    self.byTask = byTask
    clockCount = RecordClock.now()
    self.start = ObjectIdentifier(start)
    label = start.recordLabel
    linkedFrom = CancelStorage.runningHandlerSource
  }
}
