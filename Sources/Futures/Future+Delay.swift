import Foundation

extension Future {
  /// A future that succeeds with `value` after `delay` seconds, on a real-time timer.
  ///
  /// A cancel request stops the timer and completes the future ``FutureResult/cancelled``.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds; negative, negative infinity and NaN count as zero, positive
  ///     infinity (or more than `Int64.max` seconds) as never.
  ///   - value: the value.
  public convenience init(afterDelay delay: TimeInterval, success value: T) {
    self.init(afterDelay: delay, success: value, scheduler: .dispatch)
  }

  /// A future that succeeds with `value` after `delay` seconds, measured by `scheduler`.
  ///
  /// A cancel request stops the timer (releasing it) and completes the future
  /// ``FutureResult/cancelled``. Tests pass a `ManualDeadlineScheduler` and advance it instead
  /// of sleeping.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds; negative, negative infinity and NaN count as zero (the
  ///     future succeeds when the scheduler next fires); positive infinity, or more than
  ///     `Int64.max` seconds, counts as never (no timer is started; a request still cancels it).
  ///   - value: the value.
  ///   - scheduler: the timer source.
  public convenience init(afterDelay delay: TimeInterval, success value: T, scheduler: some DeadlineScheduler) {
    self.init(pending: ())
    let timer = Duration.delay(seconds: delay).map { delay in
      scheduler.schedule(after: delay) { [self] in
        settle(.success(value), detachUpstream: false)
      }
    }
    addRequestHandler(
      RequestHandler(executor: .immediate) { _, _ in
        timer?.cancel()
        return .result(.cancelled)
      })
  }
}
