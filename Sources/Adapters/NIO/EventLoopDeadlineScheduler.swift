#if NIO
  import CancelCore
  import NIOCore

  /// A `DeadlineScheduler` whose timers are tasks scheduled on a NIO `EventLoop`.
  ///
  /// Deadline actions (a source's timeout, `cancel(after:)`) run on the event loop, so a timeout
  /// cancels on the loop that serves the work, and NIO's test loops (`EmbeddedEventLoop`,
  /// `NIOAsyncTestingEventLoop`) drive them with their manual time (`advanceTime(by:)`).
  /// Cancelling a timer's handle cancels the scheduled task, which releases the action.
  public struct EventLoopDeadlineScheduler: DeadlineScheduler {
    /// The event loop the timers run on.
    public let eventLoop: any EventLoop

    /// A scheduler on `eventLoop`.
    public init(eventLoop: any EventLoop) {
      self.eventLoop = eventLoop
    }

    /// Schedules `action` on the event loop after `delay` (at once, on the loop, for a delay of zero
    /// or less; an overlong delay is capped at NIO's longest).
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
      ScheduledTimer(scheduled: eventLoop.scheduleTask(in: TimeAmount(clamping: delay)) { action() })
    }
  }

  extension DeadlineScheduler where Self == EventLoopDeadlineScheduler {
    /// A scheduler whose timers run on `eventLoop`.
    public static func eventLoop(_ eventLoop: any EventLoop) -> EventLoopDeadlineScheduler {
      EventLoopDeadlineScheduler(eventLoop: eventLoop)
    }
  }

  /// The handle of a timer on an event loop.
  struct ScheduledTimer: Cancellable {
    let scheduled: Scheduled<Void>

    func cancel() { scheduled.cancel() }
  }

  extension TimeAmount {
    /// `duration` in nanoseconds, zero for a negative duration, NIO's longest for one too long.
    /// Never traps, for any `Duration` (where `components` does beyond `Int64.max` seconds).
    init(clamping duration: Duration) {
      guard duration > .zero else {
        self = .zero
        return
      }
      guard duration < .nanoseconds(Int64.max) else {
        self = .nanoseconds(.max)
        return
      }
      // Fewer than `Int64.max` nanoseconds: the whole seconds times 10⁹ plus the rest fits.
      let (seconds, attoseconds) = duration.components
      self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
  }
#endif
