extension CancellationToken {
  /// Derives a token whose cancellation `transform` decides when this token is cancelled.
  ///
  /// | this token | the derived token |
  /// |---|---|
  /// | cancelled | `transform()` runs once: `true` cancels it with this token's reason, `false` completes it without cancellation |
  /// | completed, not cancelled | completes without cancellation; `transform` never runs |
  /// | pending | pending |
  ///
  /// `transform` runs on the thread that cancels this token (at once if it already is), before
  /// that `cancel` returns; when that `cancel` is itself called inside a handler this package is
  /// running, when that handler returns (see "Combining tokens"). The derived token always completes once this one has, and nothing is
  /// left behind when it is dropped while pending: it is freed when this token completes.
  ///
  /// - Parameter transform: decides whether the derived token is cancelled too.
  /// - Returns: the derived token. When the outcome is already known it may be this token or
  ///   ``none`` rather than a new one.
  public func map(_ transform: @escaping @Sendable () -> Bool) -> CancellationToken {
    if isCompleted {
      // Final: no new state needed.
      return isCancelled && transform() ? self : .none
    }
    return CancellationToken(storage: MappedToken.make(source: storage, transform: transform))
  }

  /// Derives a token that, once this token is cancelled, follows the token `transform` returns.
  ///
  /// | this token | the derived token |
  /// |---|---|
  /// | cancelled | `transform()` runs once; the derived token then completes as its result does: cancelled with that token's reason, or not cancelled |
  /// | completed, not cancelled | completes without cancellation; `transform` never runs |
  /// | pending | pending |
  ///
  /// `transform` runs on the thread that cancels this token (at once if it already is). The
  /// derived token completes once this token and, if `transform` ran, its result have completed,
  /// and nothing is left behind when it is dropped while pending.
  ///
  /// couchdeveloper/Cancellation builds `&&` this way: `a.flatMap { b.map { true } }`.
  ///
  /// - Parameter transform: returns the token to follow after this one is cancelled.
  /// - Returns: the derived token. When this token has already completed it may be this token or
  ///   `transform()`'s result rather than a new one.
  public func flatMap(_ transform: @escaping @Sendable () -> CancellationToken) -> CancellationToken {
    if isCompleted { return isCancelled ? transform() : self }
    return CancellationToken(storage: FlatMappedToken.make(source: storage, transform: transform))
  }
}
