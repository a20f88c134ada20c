/// Deadlines measured by any Swift `Clock` whose duration is `Duration`.
///
/// Each deadline is a `Task` sleeping on the clock; cancelling the deadline cancels the task. Use it
/// to drive deadlines with `ContinuousClock`, `SuspendingClock`, or a controllable test clock from
/// another library. (For plain real time ``DispatchDeadlineScheduler`` is cheaper: no task.)
public struct ClockDeadlineScheduler<C: Clock>: DeadlineScheduler where C.Duration == Duration {
  /// The clock that measures the delays.
  public let clock: C

  /// Creates a scheduler on `clock`.
  public init(clock: C) {
    self.clock = clock
  }

  /// Starts a task that sleeps for `delay` on the clock, then runs `action` unless cancelled.
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
    Task { [clock] in
      do {
        try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
      } catch {
        return  // cancelled: the deadline was stopped
      }
      action()
    }
  }
}
