/// A source's pending deadline: when it falls due, and the timer that will cancel the source then.
///
/// Kept by reference, and only by a source that has a deadline, so a source without one pays a
/// single empty reference for it. The instant is what ``CancelSignal/deadline`` reads back.
final class ArmedDeadline: Sendable {
  /// When the source will be cancelled, on the continuous clock.
  let instant: ContinuousClock.Instant
  /// Cancels the timer; cancelling it more than once is harmless.
  private let timer: any Cancellable

  init(instant: ContinuousClock.Instant, timer: any Cancellable) {
    self.instant = instant
    self.timer = timer
  }

  /// Stops the timer and releases its action.
  func stop() {
    timer.cancel()
  }
}
