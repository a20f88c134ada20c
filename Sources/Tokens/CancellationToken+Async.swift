extension CancellationToken {
  /// Suspends until the token completes or the awaiting task is cancelled.
  ///
  /// It returns when the token is cancelled; when it completes without cancellation (it could
  /// then never be cancelled, so waiting on would hang forever); or when the task that awaits is
  /// cancelled. No continuation or handler is left behind in any case.
  ///
  /// ```swift
  /// if await token.cancelled() { cleanUp() }
  /// ```
  ///
  /// - Returns: whether the token is cancelled when the wait ends.
  @discardableResult
  public func cancelled() async -> Bool {
    await signal.cancelled()
  }
}
