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

extension InstantProtocol where Duration == Swift.Duration {
  /// The time from this instant (a clock's `now`) until `deadline`; zero if `deadline` is not
  /// later. Unlike `duration(to:)` it cannot overflow for a `deadline` far in the past, and for one
  /// far ahead only a `now` far below zero could make it (no clock's `now` is).
  package func delay(until deadline: Self) -> Duration {
    deadline > self ? duration(to: deadline) : .zero
  }
}

extension ContinuousClock.Instant {
  /// This instant (a clock's `now`) advanced by `delay`, with `delay` taken as at most
  /// `Int64.max` seconds (about 292 billion years) either way: a deadline that far off reads back
  /// as that far off instead of overflowing the instant.
  package func saturatingAdvanced(by delay: Duration) -> Self {
    advanced(by: min(max(delay, .seconds(-Int64.max)), .seconds(Int64.max)))
  }
}
