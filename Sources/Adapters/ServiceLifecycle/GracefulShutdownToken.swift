#if ServiceLifecycle
  import CancelCore
  import ServiceLifecycle
  import Tokens

  /// Runs `body` with a token that a graceful shutdown of the current service cancels, with
  /// ``GracefulShutdownError`` as its reason, and that the cancellation of the current task
  /// cancels, with `CancellationError()`.
  ///
  /// Call it inside a service's `run()` (or under `testGracefulShutdown`); outside a
  /// `ServiceGroup` there is no graceful shutdown, and only the task's cancellation cancels the
  /// token. If the service is already shutting down, the token is cancelled before `body` starts
  /// (with ``GracefulShutdownError``, even if the task is cancelled too); so it is if the task is
  /// already cancelled. When `body` returns the token completes as not cancelled, and a shutdown
  /// or a task cancellation after that changes nothing.
  ///
  /// A service group cancels its services' tasks when a service fails or the graceful shutdown
  /// did not finish in time: the token reports that too, so code that polls only the token stops
  /// either way, and its reason tells the two apart (`token.reason is GracefulShutdownError`).
  ///
  /// Lifecycle runs its shutdown handlers while it holds a lock of its own. The token's handlers
  /// never run there: the shutdown handler only starts a `Task` that cancels the token, so a
  /// handler of the token may read lifecycle state (`Task.isShuttingDownGracefully`), register
  /// another graceful-shutdown handler or cancel anything without deadlocking. The cancel thus
  /// comes a moment after the shutdown, on that task. A task cancellation cancels the token at
  /// once, inside Swift's task-cancellation handler, on the thread that cancelled the task and
  /// while the runtime holds that task's status lock, as ``withTaskCancellationToken(isolation:_:)``
  /// does: like every handler of the package, the token's handlers must not block.
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
        _ = source.signal.storage.cancel(reason: GracefulShutdownError(), cause: .shutdown)
      }
      // Inside the shutdown check: when both come before `body`, the shutdown is the reason.
      return try await withTaskCancellationHandler(
        operation: { try await body(CancellationToken(source.signal)) },
        onCancel: { _ = source.signal.storage.cancel(reason: CancellationError(), cause: .task) },
        isolation: isolation)
    } onGracefulShutdown: {
      // Runs under Lifecycle's lock: hop, so that the token's handlers run outside it.
      Task { _ = source.signal.storage.cancel(reason: GracefulShutdownError(), cause: .shutdown) }
    }
  }
#endif
