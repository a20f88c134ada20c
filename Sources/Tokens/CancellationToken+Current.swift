/// The token bound to the running task (or, outside any task, to the running thread's
/// synchronous scope). Read through ``CancellationToken/current``; bound by
/// ``CancellationToken/withCurrent(_:operation:)`` and by the Adapters module's
/// `withCancellationToken(_:operation:)`, both of which combine with what was already bound.
enum CurrentToken {
  @TaskLocal static var bound: CancellationToken?

  /// Raised before the first scope of the process is bound: until then ``CancellationToken/current``
  /// is `nil` without the task-local lookup, so adapters given no token in a program that never
  /// binds a scope pay one atomic load, not the lookup (scripts/check-instruction-counts.sh has the
  /// pair).
  static let everBound = StickyFlag()
}

extension CancellationToken {
  /// The token of the scope the running code is in, or `nil` outside any scope.
  ///
  /// A scope is bound by the Adapters module's `withCancellationToken(_:operation:)` (async code)
  /// or by ``withCurrent(_:operation:)`` (synchronous code). The value is a task-local: child
  /// tasks (`async let`, task groups) and unstructured `Task { }`s started inside the scope
  /// inherit it; `Task.detached` does not. Reading it is one atomic load until the process binds its
  /// first scope, and one task-local lookup from then on.
  ///
  /// Inside nested scopes it is cancelled as soon as any enclosing scope's token is, with that
  /// token's reason (the outer one's if both already were when the inner scope began), and its
  /// ``deadline`` is the earliest of theirs. Such a combined token belongs to its scope: it
  /// completes without cancellation when the scope ends, so work that outlives the scope (an
  /// unstructured `Task`) should be handed the tokens it needs explicitly.
  ///
  /// The adapters of the Adapters module (`CancellableWork.run()` and `start(completion:)`, and
  /// through them URLSession work, `ChildProcess`, Dispatch and `Operation` work, AsyncHTTPClient
  /// requests, the NIO bridges; and the callback forms that take a `token:`) use it when no token
  /// is given. Promises and futures never join it silently: call `joiningCurrentToken()` on a
  /// `CancellablePromise` or a `Future` for that.
  public static var current: CancellationToken? { CurrentToken.everBound.isRaised ? CurrentToken.bound : nil }

  /// Runs synchronous `operation` with `token` bound as ``current``, combined with the token of
  /// any enclosing scope.
  ///
  /// The synchronous form of the Adapters module's `withCancellationToken(_:operation:)`, for code
  /// that is not async (a callback, a thread of its own, a `DispatchQueue` block): adapters
  /// started inside `operation` without a token of their own are stopped by `token` (and by any
  /// enclosing scope's token) and carry its deadline. Nothing is cancelled by this call itself:
  /// there is no task to cancel here, and `operation` runs on the calling thread before the call
  /// returns. After the call, the enclosing value of ``current`` is back.
  ///
  /// Nested scopes combine: inside, ``current`` is cancelled when `token` or the enclosing
  /// scope's token is (with the reason of the first to be cancelled; the enclosing one's if both
  /// already were), and its ``deadline`` is the earliest of theirs. The combined token completes
  /// without cancellation when `operation` returns. When there is nothing to combine (no enclosing
  /// scope, the same token, or one of the two can never be cancelled) the token that can still be
  /// cancelled is bound as it is.
  ///
  /// - Parameters:
  ///   - token: the token of the scope.
  ///   - operation: the work.
  /// - Returns: what `operation` returns.
  /// - Throws: what `operation` throws.
  public static func withCurrent<T>(_ token: CancellationToken, operation: () throws -> T) rethrows -> T {
    CurrentToken.everBound.raise()
    let scope = Scope(token, enclosing: CurrentToken.bound)
    defer { scope.end() }
    return try CurrentToken.$bound.withValue(scope.token, operation: operation)
  }

  /// Runs async `operation` with `token` bound as ``current``, combined with the token of any
  /// enclosing scope as ``withCurrent(_:operation:)`` does. Only binds: cancelling the task is the
  /// caller's business (the Adapters module's `withCancellationToken(_:operation:)`).
  ///
  /// - Parameters:
  ///   - token: the token of the scope.
  ///   - isolation: the actor `operation` runs on; the caller's, by default.
  ///   - operation: the work, given the token bound for it (the combined one when nested).
  /// - Returns: what `operation` returns.
  /// - Throws: what `operation` throws.
  package static func withCurrentBound<T>(
    _ token: CancellationToken,
    isolation: isolated (any Actor)? = #isolation,
    operation: (CancellationToken) async throws -> T
  ) async rethrows -> T {
    CurrentToken.everBound.raise()
    let scope = Scope(token, enclosing: CurrentToken.bound)
    defer { scope.end() }
    return try await CurrentToken.$bound.withValue(
      scope.token, operation: { try await operation(scope.token) }, isolation: isolation)
  }

  /// The token a scope binds, and what to end with the scope.
  private struct Scope {
    let token: CancellationToken
    /// The request that combines the enclosing token with the scope's, if one was needed.
    private let combined: CancellationRequest?

    init(_ token: CancellationToken, enclosing: CancellationToken?) {
      guard let enclosing, enclosing != token, !enclosing.isClosed, !token.isClosed else {
        // Nothing to combine: bind whichever of the two can still be cancelled.
        if let enclosing, token.isClosed, !enclosing.isClosed {
          self.token = enclosing
        } else {
          self.token = token
        }
        combined = nil
        return
      }
      // A core link to each: cancelled by the first of them to be cancelled, with its reason;
      // its deadline reads the earliest of theirs. The enclosing token is linked first, so when
      // both already are cancelled its reason wins.
      let request = CancellationRequest(linkedTo: enclosing, token)
      self.token = request.token
      combined = request
    }

    /// Ends the scope: the combined token completes without cancellation (if nothing cancelled
    /// it), and its links leave the tokens it followed.
    func end() {
      _ = combined?.close()
    }
  }
}
