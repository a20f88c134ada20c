extension CancelSource {
  /// Creates a source that cancels itself with a ``TimeoutError`` when `deadline` passes.
  ///
  /// A deadline already past cancels the source as soon as the scheduler runs a timer of zero
  /// delay (at once for ``ManualDeadlineScheduler``'s next `advance`). The error's
  /// ``TimeoutError/timeout`` is the time that was left when the deadline was set.
  ///
  /// - Parameters:
  ///   - deadline: when to cancel, on the continuous clock.
  ///   - scheduler: measures the time left from now; ``DispatchDeadlineScheduler`` by default.
  ///     Tests pass a ``ManualDeadlineScheduler`` and advance it by the time left instead of
  ///     sleeping.
  ///   - label: the source's name in cancellation records, if any.
  ///   - fileID: recorded as where the deadline was set (``CancellationRecord``); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public convenience init(
    deadline: ContinuousClock.Instant, scheduler: some DeadlineScheduler = .dispatch, label: String? = nil,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    self.init(label: label)
    cancel(at: deadline, scheduler: scheduler, fileID: fileID, line: line, function: function)
  }

  /// Creates a source that cancels itself with a ``TimeoutError`` when `deadline`, an instant of
  /// `clock`, passes.
  ///
  /// The timer sleeps on `clock` (see ``ClockDeadlineScheduler``). ``CancelSignal/deadline`` reads
  /// the deadline back as the continuous-clock instant the same time away from now.
  ///
  /// - Parameters:
  ///   - deadline: when to cancel, on `clock`.
  ///   - clock: the clock that measures it, e.g. `SuspendingClock` or a test clock.
  ///   - label: the source's name in cancellation records, if any.
  ///   - fileID: recorded as where the deadline was set (``CancellationRecord``); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public convenience init<C: Clock>(
    deadline: C.Instant, clock: C, label: String? = nil,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) where C.Duration == Duration {
    self.init(label: label)
    cancel(
      after: clock.now.delay(until: deadline), scheduler: ClockDeadlineScheduler(clock: clock), fileID: fileID,
      line: line, function: function)
  }

  /// Cancels with a ``TimeoutError`` when `deadline` passes, unless the source ends first.
  ///
  /// Like ``cancel(after:scheduler:fileID:line:function:)``, it replaces any pending deadline, and ending the source any
  /// other way stops the timer and releases it. Does nothing on a source that already ended.
  ///
  /// - Parameters:
  ///   - deadline: when to cancel, on the continuous clock.
  ///   - scheduler: measures the time left from now; ``DispatchDeadlineScheduler`` by default.
  ///   - fileID: recorded as where the deadline was set (``CancellationRecord``); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public func cancel(
    at deadline: ContinuousClock.Instant, scheduler: some DeadlineScheduler = .dispatch,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    signal.storage.cancel(
      at: deadline, scheduler: scheduler, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// The earliest pending deadline of this source and of the sources it is linked to. See
  /// ``CancelSignal/deadline``.
  public var deadline: ContinuousClock.Instant? { signal.deadline }
}

extension CancelSignal {
  /// The earliest pending deadline of the source and of every source it is linked to (its
  /// parents, their parents, …), on the continuous clock; `nil` if none has one.
  ///
  /// A relative deadline (``CancelSource/cancel(after:scheduler:fileID:line:function:)``) reads back as the instant it
  /// was set to fall due. Once the source has ended the deadline no longer applies and this is
  /// `nil`; a parent that ended no longer counts either. Hand the value to work that takes an
  /// absolute deadline (a server's request deadline, a child request), or compute the time left:
  ///
  /// ```swift
  /// if let deadline = signal.deadline, ContinuousClock.now.duration(to: deadline) < .seconds(1) {
  ///   return cachedAnswer   // not enough time for the slow path
  /// }
  /// ```
  ///
  /// Reading it takes each source's lock in turn (never two at once); a source without links reads
  /// its own deadline under one lock.
  public var deadline: ContinuousClock.Instant? { storage.deadline }
}
