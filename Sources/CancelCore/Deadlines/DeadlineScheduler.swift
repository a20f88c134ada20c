/// Where deadlines get their timers: inject one to control time.
///
/// The package ships three: ``DispatchDeadlineScheduler`` (the default, real time),
/// ``ManualDeadlineScheduler`` (tests advance time by hand and never sleep), and
/// ``ClockDeadlineScheduler`` (any Swift `Clock`, e.g. a test clock from another library).
public protocol DeadlineScheduler: Sendable {
  /// Runs `action` once, after `delay`, unless the returned handle is cancelled first.
  ///
  /// Cancelling the handle must stop the timer and release `action` promptly; it may be called
  /// after the action ran, and more than once.
  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable
}
