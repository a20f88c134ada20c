import CancelCore
import Futures
import Tokens

extension Future {
  /// Requests this future's cancellation (with `options`) when the current token
  /// (`CancellationToken.current`) is cancelled.
  ///
  /// Futures made inside a scope (`withCancellationToken(_:operation:)`,
  /// `CancellationToken.withCurrent(_:operation:)`) never join it on their own: a future's
  /// cancellation is a request its consumers make, and this package keeps that. Call this to make
  /// the scope one of the future's consumers, where the future is made:
  ///
  /// ```swift
  /// let profile = loadProfile().joiningCurrentToken()
  /// ```
  ///
  /// The token is read once, now. Outside any scope this does nothing. The request is made with a
  /// cancel token of its own (`getCancelToken()`), so it follows the rules of any other consumer's
  /// request (it reaches the producer only if no other consumer still wants the future, unless
  /// `options` say otherwise). The registration, and the cancel token it holds, leave the scope's
  /// token as soon as the future has completed; a token already cancelled requests at once.
  ///
  /// - Parameter options: how the request travels (see `CancellationOptions`); none by default.
  /// - Returns: this future, to go on chaining.
  @discardableResult
  public func joiningCurrentToken(options: CancellationOptions = []) -> Future<T> {
    guard let token = CancellationToken.current else { return self }
    let request = getCancelToken()
    let registration = token.onCancel { request.cancel(options, origin: .unknown) }
    request.whenWorkEnds { registration.unregister() }
    return self
  }
}
