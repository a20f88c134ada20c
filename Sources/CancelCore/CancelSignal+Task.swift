/// Runs `operation` in the current task, and cancels that task when `signal` is cancelled.
///
/// The operation sees the cancellation the way Swift code always does: `Task.isCancelled` becomes
/// `true`, `Task.checkCancellation()` throws, and cancellation-aware awaits (`Task.sleep`,
/// `withTaskCancellationHandler`, child tasks) react. If `signal` is already cancelled, the task is
/// cancelled before `operation` starts, so it sees `Task.isCancelled` at once.
///
/// No task is created: the current task itself is cancelled, and `operation` runs on the caller's
/// isolation (an actor, the main actor, or none), as `withTaskCancellationHandler` runs its
/// operation. It may therefore be a non-`Sendable` closure that touches the caller's isolated
/// state. The link lasts only while `operation` runs; cancelling the source afterwards does not
/// touch the task (a cancel racing the operation's very end may still mark the task cancelled, as
/// any concurrent `Task.cancel()` would). A cancelled task stays cancelled: Swift has no way to
/// undo it.
///
/// Cancellation flows one way: cancelling the task does not cancel the source.
///
/// - Parameters:
///   - signal: the signal whose cancellation cancels the current task.
///   - isolation: the actor the operation runs on; the caller's, by default.
///   - operation: the work.
/// - Returns: what `operation` returns.
/// - Throws: what `operation` throws.
public func withCancellation<T>(
  of signal: CancelSignal,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws -> T
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
struct CurrentTaskHandle: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `UnsafeCurrentTask` holds a strong reference to the task, so
  // the task outlives this copy; its `cancel()` is the runtime's `swift_task_cancel`, which is
  // safe from any thread at any time (it is what `Task.cancel()` calls). The handle is used for
  // nothing else, and its registration is removed when the operation ends.
  let task: UnsafeCurrentTask

  func cancel() { task.cancel() }
}
