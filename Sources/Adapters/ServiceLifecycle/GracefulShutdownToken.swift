#if ServiceLifecycle
  import CancelCore
  import ServiceLifecycle
  import Tokens

  /// Runs `body` with a token that a graceful shutdown of the current service cancels, with
  /// ``GracefulShutdownError`` as its reason.
  ///
  /// Call it inside a service's `run()` (or under `testGracefulShutdown`); outside a
  /// `ServiceGroup` there is no graceful shutdown and the token is never cancelled. If the service
  /// is already shutting down, the token is cancelled before `body` starts. When `body` returns
  /// the token completes as not cancelled, and a shutdown after that changes nothing.
  ///
  /// Lifecycle runs its shutdown handlers while it holds a lock of its own. The token's handlers
  /// never run there: the shutdown handler only starts a `Task` that cancels the token, so a
  /// handler of the token may read lifecycle state (`Task.isShuttingDownGracefully`), register
  /// another graceful-shutdown handler or cancel anything without deadlocking. The cancel thus
  /// comes a moment after the shutdown, on that task.
  ///
  /// - Parameters:
  ///   - isolation: where `body` runs; the caller's isolation by default.
  ///   - body: the work; pass the token to whatever should stop on shutdown
  ///     (`token.register(cancelable:)` binds a cancellable chain, a future's `CancelToken` or a
  ///     `Task`).
  /// - Returns: what `body` returns.
  public func withGracefulShutdownToken<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (CancellationToken) async throws -> T
  ) async rethrows -> T {
    let source = CancelSource()
    defer { source.close() }
    return try await withGracefulShutdownHandler(isolation: isolation) {
      if Task.isShuttingDownGracefully {
        // Already shutting down: Lifecycle ran our handler at once, which only hopped; cancel
        // here (no lock held) so that `body` starts with a cancelled token.
        source.cancel(reason: GracefulShutdownError())
      }
      return try await body(CancellationToken(source.signal))
    } onGracefulShutdown: {
      // Runs under Lifecycle's lock: hop, so that the token's handlers run outside it.
      Task { source.cancel(reason: GracefulShutdownError()) }
    }
  }
#endif
