import CancelCore
import Tokens

/// Runs `operation` in a child task of the current one, and cancels that child task when `token`
/// is cancelled; the call then throws the token's reason.
///
/// The operation sees the cancellation the way Swift code always does: `Task.isCancelled` becomes
/// `true`, `Task.checkCancellation()` throws, and cancellation-aware awaits (`Task.sleep`,
/// `withTaskCancellationHandler`, child tasks) react. If `token` is already cancelled, the child
/// task is cancelled before `operation` starts, so it sees `Task.isCancelled` at once.
///
/// **The caller's task is never cancelled by the token**: after the call returns or throws, the
/// caller goes on with other awaits as before (Swift cannot undo a task's cancellation, so only the
/// child task is cancelled). Cancelling the caller's task still cancels the operation, and the
/// child inherits the caller's priority and task-locals.
///
/// The operation runs on the caller's isolation: from an actor method or `@MainActor` code it may
/// be a non-`Sendable` closure that touches the actor's state (write `self.` for the actor's
/// properties, as in any closure).
///
/// If the token was cancelled and the operation then throws (the `CancellationError` of an
/// interrupted `Task.sleep`, or any failure of the stopped work), the call throws the token's
/// `reason` instead: a `TimeoutError` for a request with a deadline, the
/// reason given to `cancel(reason:)` otherwise. A value the operation still returns is returned.
///
/// Cancellation flows one way: cancelling the task does not cancel the token (use
/// ``withTaskCancellationToken(isolation:_:)`` for that direction).
///
/// **The token becomes the task's current token** (`CancellationToken.current`) for the
/// operation and its child tasks, so adapters started inside without a token of their own (a
/// `CancellableWork`'s `run()`, URLSession work, `ChildProcess`, AsyncHTTPClient requests) are
/// stopped by it, with its reason, and carry its deadline. Nested calls combine: inside, the
/// current token is cancelled when this token or an enclosing call's token is (the first reason
/// wins), its `deadline` is the earliest of theirs, and the call throws that reason. After the
/// call the enclosing current token is back. See `docs/cancellation-across-tasks.md`.
///
/// - Parameters:
///   - token: the token whose cancellation cancels the operation.
///   - isolation: the actor the call runs on; the caller's, by default.
///   - operation: the work.
/// - Returns: what `operation` returns.
/// - Throws: the token's reason if it was cancelled and `operation` then threw; otherwise what
///   `operation` throws.
public func withCancellationToken<T>(
  _ token: CancellationToken,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws -> T
) async throws -> T {
  try await CancellationToken.withCurrentBound(token, isolation: isolation) { current in
    try await withCancellation(of: current.signal, isolation: isolation, operation: operation)
  }
}

/// Runs `operation` with a token that is cancelled when the current task is.
///
/// The token is cancelled (reason: `CancellationError()`) as soon as the task is cancelled — at
/// once if it already was — and completes without cancellation when `operation` returns. Use it
/// to hand structured-concurrency cancellation to token-style code.
///
/// `body` runs on the caller's isolation, as `withTaskCancellationHandler`'s operation does: from
/// an actor method or `@MainActor` code it may be a non-`Sendable` closure that touches the
/// actor's state.
///
/// The token's handlers then run inside Swift's task-cancellation handler, on the thread that
/// cancelled the task, while the runtime holds that task's status lock: like every handler of the
/// package they must not block. Cancelling other tokens and tasks from them is fine: the runtime
/// sets a task's cancelled flag before taking its lock, so a cancellation loop
/// (token → task → token) ends at the first task or token already cancelled.
///
/// - Parameters:
///   - isolation: the actor `body` runs on; the caller's, by default.
///   - body: the work, given the task's token.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws.
public func withTaskCancellationToken<T>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: (CancellationToken) async throws -> T
) async rethrows -> T {
  let request = CancellationRequest()
  defer { request.close() }
  return try await withTaskCancellationHandler(
    operation: { try await body(request.token) },
    onCancel: { _ = request.storage.cancelWithDefaultReason(cause: .task) },
    isolation: isolation)
}
