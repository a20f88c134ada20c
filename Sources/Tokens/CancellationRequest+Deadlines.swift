extension CancellationRequest {
  /// Creates a request that cancels itself with a `TimeoutError` after `timeout`.
  ///
  /// The timer is stopped and released as soon as the request ends another way (cancelled,
  /// closed or deallocated), so an abandoned request leaves no timer behind.
  ///
  /// - Parameters:
  ///   - timeout: the delay, measured by `scheduler`.
  ///   - scheduler: the timer source. The default, `DispatchDeadlineScheduler`, measures real time
  ///     on a global queue (it works in command-line programs that never drain the main queue);
  ///     tests pass a `ManualDeadlineScheduler` and advance it instead of sleeping.
  ///   - label: the request's name in cancellation records (`CancellationRecord`), if any.
  ///   - fileID: recorded as where the deadline was set (`CancellationRecord`); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public convenience init(
    timeout: Duration, scheduler: some DeadlineScheduler = .dispatch, label: String? = nil,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    self.init(label: label)
    storage.cancel(
      after: timeout, scheduler: scheduler, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Cancels the request with a `TimeoutError` after `delay`, unless it ends first.
  ///
  /// A later call replaces the pending deadline, as .NET's `CancelAfter` does. The handlers run on
  /// the thread the scheduler fires on (a global queue by default). Does nothing on a request that
  /// already ended.
  ///
  /// - Parameters:
  ///   - delay: the delay, measured by `scheduler`.
  ///   - scheduler: the timer source; `DispatchDeadlineScheduler` by default.
  ///   - fileID: recorded as where the deadline was set (`CancellationRecord`); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public func cancel(
    after delay: Duration, scheduler: some DeadlineScheduler = .dispatch,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    storage.cancel(
      after: delay, scheduler: scheduler, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Creates a request that cancels itself with a `TimeoutError` when `deadline` passes.
  ///
  /// For servers that receive deadlines rather than durations: give the request's deadline, and
  /// every token derived from it reads it back (``CancellationToken/deadline``). The timer is
  /// stopped and released as soon as the request ends another way. A deadline already past
  /// cancels the request at the scheduler's next turn.
  ///
  /// - Parameters:
  ///   - deadline: when to cancel, on the continuous clock.
  ///   - scheduler: measures the time left from now; `DispatchDeadlineScheduler` by default.
  ///     Tests pass a `ManualDeadlineScheduler` and advance it by the time left instead of
  ///     sleeping.
  ///   - label: the request's name in cancellation records (`CancellationRecord`), if any.
  ///   - fileID: recorded as where the deadline was set (`CancellationRecord`); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public convenience init(
    deadline: ContinuousClock.Instant, scheduler: some DeadlineScheduler = .dispatch, label: String? = nil,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    self.init(label: label)
    storage.cancel(
      at: deadline, scheduler: scheduler, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Creates a request cancelled when any of `tokens` is, or when `deadline` passes, whichever
  /// comes first: a child request that keeps its parents' deadlines and adds its own.
  ///
  /// Its token's ``CancellationToken/deadline`` is the earliest of `deadline` and the tokens'.
  ///
  /// - Parameters:
  ///   - tokens: the parents.
  ///   - deadline: this request's own deadline, on the continuous clock.
  ///   - scheduler: measures the time left from now; `DispatchDeadlineScheduler` by default.
  ///   - label: the request's name in cancellation records (`CancellationRecord`), if any.
  ///   - fileID: recorded as where the deadline was set (`CancellationRecord`); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public convenience init(
    linkedTo tokens: CancellationToken..., deadline: ContinuousClock.Instant,
    scheduler: some DeadlineScheduler = .dispatch, label: String? = nil,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    self.init(linkedTo: tokens, label: label)
    storage.cancel(
      at: deadline, scheduler: scheduler, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Cancels the request with a `TimeoutError` when `deadline` passes, unless it ends first.
  ///
  /// Replaces any pending deadline, like ``cancel(after:scheduler:fileID:line:function:)``. Does nothing on a request
  /// that already ended.
  ///
  /// - Parameters:
  ///   - deadline: when to cancel, on the continuous clock.
  ///   - scheduler: measures the time left from now; `DispatchDeadlineScheduler` by default.
  ///   - fileID: recorded as where the deadline was set (`CancellationRecord`); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public func cancel(
    at deadline: ContinuousClock.Instant, scheduler: some DeadlineScheduler = .dispatch,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    storage.cancel(
      at: deadline, scheduler: scheduler, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// The earliest pending deadline of this request and of the tokens it is linked to. See
  /// ``CancellationToken/deadline``.
  public var deadline: ContinuousClock.Instant? { storage.deadline }
}

extension CancellationToken {
  /// The earliest pending deadline of the token's request and of every token that request is
  /// linked to (directly or through other linked requests), on the continuous clock; `nil` if
  /// none has one.
  ///
  /// A relative timeout (``CancellationRequest/init(timeout:scheduler:label:fileID:line:function:)``) reads back as the
  /// instant it falls due. Once the token has completed, or for a linked token that completed,
  /// the deadline no longer counts. Tokens made by `map`, `&&` and `||` have no deadline of their
  /// own and report `nil`; a `flatMap`ped token reports its inner token's.
  ///
  /// ```swift
  /// func handle(_ request: Request, token: CancellationToken) async throws -> Response {
  ///   let child = CancellationRequest(linkedTo: token, deadline: .now + .seconds(2))
  ///   return try await backend.fetch(request.id, deadline: child.token.deadline!)  // the earlier one
  /// }
  /// ```
  public var deadline: ContinuousClock.Instant? { storage.deadline }
}
