import CancelCore
import Tokens

/// Runs `operation` in the current task, and cancels that task when `token` is cancelled.
///
/// The operation sees the cancellation the way Swift code always does: `Task.isCancelled` becomes
/// `true`, `Task.checkCancellation()` throws, and cancellation-aware awaits (`Task.sleep`,
/// `withTaskCancellationHandler`, child tasks) react. If `token` is already cancelled, the task is
/// cancelled before `operation` starts, so it sees `Task.isCancelled` at once.
///
/// No task is created: the current task itself is cancelled, so the operation keeps its actor,
/// priority and task-locals, and entering and leaving costs about as much as a
/// `withTaskCancellationHandler`. The link lasts only while `operation` runs; cancelling the
/// token afterwards does not touch the task (a cancel racing the operation's very end may still
/// mark the task cancelled, as any concurrent `Task.cancel()` would).
///
/// Cancellation flows one way: cancelling the task does not cancel the token (use
/// ``withTaskCancellationToken(_:)`` for that direction).
///
/// - Parameters:
///   - token: the token whose cancellation cancels the current task.
///   - operation: the work.
/// - Returns: what `operation` returns.
/// - Throws: what `operation` throws.
public func withCancellationToken<T>(
  _ token: CancellationToken, operation: () async throws -> T
) async rethrows -> T {
  try await withCancellation(of: token.signal, operation: operation)
}

/// Runs `operation` with a token that is cancelled when the current task is.
///
/// The token is cancelled (reason: `CancellationError()`) as soon as the task is cancelled — at
/// once if it already was — and completes without cancellation when `operation` returns. Use it
/// to hand structured-concurrency cancellation to token-style code.
///
/// The token's handlers then run inside Swift's task-cancellation handler, on the thread that
/// cancelled the task, while the runtime holds that task's status lock: like every handler of the
/// package they must not block. Cancelling other tokens and tasks from them is fine: the runtime
/// sets a task's cancelled flag before taking its lock, so a cancellation loop
/// (token → task → token) ends at the first task or token already cancelled.
///
/// - Parameter body: the work, given the task's token.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws.
public func withTaskCancellationToken<T>(
  _ body: (CancellationToken) async throws -> T
) async rethrows -> T {
  let request = CancellationRequest()
  defer { request.close() }
  return try await withTaskCancellationHandler {
    try await body(request.token)
  } onCancel: {
    request.cancel()
  }
}

/// Runs `operation` in the current task, and cancels that task when `signal` is cancelled. The
/// core-level form of ``withCancellationToken(_:operation:)``; same rules.
public func withCancellation<T>(
  of signal: CancelSignal, operation: () async throws -> T
) async rethrows -> T {
  if signal.isCompleted && !signal.isCancelled { return try await operation() }
  let registration = withUnsafeCurrentTask { current -> CancelRegistration in
    guard let current else { return .inert }  // not in a task: nothing to cancel
    let task = CurrentTaskHandle(task: current)
    return signal.onCancel { task.cancel() }
  }
  defer { registration.unregister() }
  return try await operation()
}

/// A retained reference to a running task, to cancel it from a handler.
private struct CurrentTaskHandle: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `UnsafeCurrentTask` holds a strong reference to the task, so
  // the task outlives this copy; its `cancel()` is the runtime's `swift_task_cancel`, which is
  // safe from any thread at any time (it is what `Task.cancel()` calls). The handle is used for
  // nothing else, and its registration is removed when the operation ends.
  let task: UnsafeCurrentTask

  func cancel() { task.cancel() }
}
