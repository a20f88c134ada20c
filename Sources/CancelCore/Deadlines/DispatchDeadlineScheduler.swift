import Dispatch

/// Real-time deadlines on a Dispatch timer source.
///
/// The action runs on `queue` (a global concurrent queue by default), never on the main queue, so
/// deadlines work in command-line programs that never drain the main queue.
public struct DispatchDeadlineScheduler: DeadlineScheduler {
  /// The queue the timer fires on.
  public let queue: DispatchQueue

  /// Creates a scheduler whose timers fire on `queue`.
  public init(queue: DispatchQueue = .global()) {
    self.queue = queue
  }

  /// Starts a one-shot timer source; cancelling the handle cancels the source, which releases
  /// `action`.
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + delay.dispatchInterval, leeway: .nanoseconds(0))
    // The handler captures the timer until it fires or is cancelled; cancelling releases both.
    timer.setEventHandler {
      action()
      timer.cancel()
    }
    timer.activate()
    return DispatchTimerHandle(timer: timer)
  }
}

extension DeadlineScheduler where Self == DispatchDeadlineScheduler {
  /// Real-time deadlines on a global Dispatch queue.
  public static var dispatch: DispatchDeadlineScheduler { DispatchDeadlineScheduler() }
}

/// Stops a Dispatch timer source.
private struct DispatchTimerHandle: Cancellable, @unchecked Sendable {
  // Safety: `DispatchSourceTimer` is thread-safe (libdispatch synchronizes `cancel()`); it is only
  // not annotated `Sendable` in the overlay.
  let timer: any DispatchSourceTimer

  func cancel() {
    timer.cancel()
  }
}

extension Duration {
  /// This duration in nanoseconds for Dispatch, clamped to what Dispatch can represent.
  package var dispatchInterval: DispatchTimeInterval {
    if self <= .zero { return .nanoseconds(0) }
    // `components` traps beyond `Int64.max` seconds, which a `Duration` can exceed.
    if self >= .seconds(Int64.max) { return .never }
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return .never }
    let (total, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    return overflow2 ? .never : .nanoseconds(Int(clamping: total))
  }
}
