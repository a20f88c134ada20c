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
  public convenience init(timeout: Duration, scheduler: some DeadlineScheduler = .dispatch) {
    self.init()
    storage.cancel(after: timeout, scheduler: scheduler)
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
  public func cancel(after delay: Duration, scheduler: some DeadlineScheduler = .dispatch) {
    storage.cancel(after: delay, scheduler: scheduler)
  }
}
