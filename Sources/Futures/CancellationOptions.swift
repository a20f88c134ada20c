/// How a cancel request made through a ``CancelToken`` travels.
///
/// Without options, a request reaches the stage that is running: it travels up a chain of
/// derived futures as long as each parent has no other pending consumer. See the
/// "Cancellation trees" article for every row.
public struct CancellationOptions: OptionSet, Sendable, Hashable {
  /// The raw bits.
  public let rawValue: Int

  /// Options from raw bits.
  public init(rawValue: Int) {
    self.rawValue = rawValue
  }

  /// Cancel this future only: a derived future detaches from its parent and completes
  /// ``FutureResult/cancelled`` at once; nothing upstream is told. On a promise's own future the
  /// producer is still told (its handlers are this future's producer), unless
  /// ``forceThisFutureToBeCancelledImmediately`` is also given.
  public static let doNotForwardRequest = CancellationOptions(rawValue: 1 << 0)

  /// Complete this future ``FutureResult/cancelled`` at once, even if its producer ignores
  /// requests. The producer (or parent) is still told so it can stop work, unless
  /// ``doNotForwardRequest`` is also given.
  public static let forceThisFutureToBeCancelledImmediately = CancellationOptions(rawValue: 1 << 1)

  /// The default behaviour, accepted for source compatibility: a derived future forwards a
  /// request to its parent only when no other consumer of the parent is still pending.
  public static let doNotForwardCancelRequestIfThereAreOtherFuturesWaiting = CancellationOptions(rawValue: 1 << 2)

  /// Forward the request to the parent even if other consumers of the parent are pending
  /// (FutureKit 3.5's default, kept as an opt-in). If the parent's producer agrees, those other
  /// consumers end ``FutureResult/cancelled`` with it.
  public static let forwardCancelRequestEvenIfThereAreOtherFuturesWaiting = CancellationOptions(rawValue: 1 << 3)
}
