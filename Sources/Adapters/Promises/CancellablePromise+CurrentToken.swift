import CancelCore
import Promises
import Tokens

extension CancellablePromise {
  /// Ties this chain to the current token (`CancellationToken.current`): when the token of the
  /// scope this is called in is cancelled, the chain is cancelled with the token's reason.
  ///
  /// Promises made inside a scope (`withCancellationToken(_:operation:)`,
  /// `CancellationToken.withCurrent(_:operation:)`) never join it on their own: a PromiseKit chain
  /// is cancelled by its own `cancel()` and nothing else, and this package keeps that. Call this to
  /// opt in, where the chain is made:
  ///
  /// ```swift
  /// let chain = firstly { loadProfile() }.cancellize().joiningCurrentToken()
  /// ```
  ///
  /// The token is read once, now. Outside any scope this does nothing. The registration leaves the
  /// token as soon as the chain has settled, so a long-lived scope token keeps nothing of chains
  /// that are done; a token already cancelled cancels the chain at once.
  ///
  /// - Returns: this promise, to go on chaining.
  @discardableResult
  public func joiningCurrentToken() -> CancellablePromise<T> {
    CancellationToken.current?.register(cancelable: self)
    return self
  }
}
