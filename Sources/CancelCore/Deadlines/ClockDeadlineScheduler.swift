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
  ///
  /// A delay longer than ``longestSleep`` is slept in pieces of at most that length, so any
  /// `Duration` works (`.seconds(Int64.max)` is, in practice, never): clocks such as
  /// `ContinuousClock` cannot represent an instant that far ahead and would trap.
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
    Task { [clock] in
      var remaining = delay
      do {
        repeat {
          // A negative delay sleeps zero (advancing `now` by it could go below what the clock holds).
          let piece = min(max(remaining, .zero), Self.longestSleep)
          try await clock.sleep(until: clock.now.advanced(by: piece), tolerance: nil)
          remaining -= piece
        } while remaining > .zero
      } catch {
        return  // cancelled: the deadline was stopped
      }
      action()
    }
  }

  /// The longest single sleep a deadline asks of the clock: 2³² seconds (about 136 years), which
  /// every standard clock can add to its current instant and convert to nanoseconds.
  public static var longestSleep: Duration { .seconds(Int64(1) << 32) }
}
