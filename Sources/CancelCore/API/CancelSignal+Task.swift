/// Runs `operation` in a child task of the current one, and cancels that child task when `signal`
/// is cancelled.
///
/// The operation sees the cancellation the way Swift code always does: `Task.isCancelled` becomes
/// `true`, `Task.checkCancellation()` throws, and cancellation-aware awaits (`Task.sleep`,
/// `withTaskCancellationHandler`, child tasks) react. If `signal` is already cancelled, the child
/// task is cancelled before `operation` starts, so it sees `Task.isCancelled` at once.
///
/// **The caller's task is never cancelled by the signal.** The operation runs in a child task (a
/// task group of one), so after the call returns or throws the caller goes on with other awaits as
/// before; Swift cannot undo a task's cancellation, which is why the signal cancels only the child.
/// Cancelling the caller's task still cancels the operation, as for any child task, and the child
/// inherits the caller's priority and task-locals.
///
/// The operation runs on the caller's isolation (an actor, the main actor, or none): a closure
/// written in an actor method or in `@MainActor` code is isolated to that actor and runs there, so
/// it may be a non-`Sendable` closure that touches the caller's state. The caller waits for it, so
/// nothing else of the caller's task runs meanwhile. A signal that can no longer be cancelled (it
/// completed) runs the operation directly, without a child task.
///
/// If the signal was cancelled and the operation then throws (whatever it throws: the
/// `CancellationError` of an interrupted `Task.sleep`, or any failure of the stopped work), the call
/// throws the signal's ``CancelSignal/reason`` instead, so callers tell a cancellation, with its
/// reason (a ``TimeoutError`` for a deadline), from a failure. A value the operation still returns
/// is returned.
///
/// Cancellation flows one way: cancelling the task does not cancel the source.
///
/// - Parameters:
///   - signal: the signal whose cancellation cancels the operation's task.
///   - isolation: the actor the call runs on; the caller's, by default.
///   - operation: the work.
/// - Returns: what `operation` returns.
/// - Throws: the signal's reason if it was cancelled and `operation` then threw; otherwise what
///   `operation` throws.
public func withCancellation<T>(
  of signal: CancelSignal,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws -> T
) async throws -> T {
  if signal.isCompleted && !signal.isCancelled { return try await operation() }
  do {
    return try await inChildTask(isolation: isolation) {
      try await cancellingCurrentTask(when: signal, operation: operation)
    }
  } catch {
    if let reason = signal.reason { throw reason }
    throw error
  }
}

/// Runs `operation` in the current task, cancelling that task if `signal` is cancelled meanwhile
/// (at once if it already is). Only ever called inside the child task of ``inChildTask(isolation:_:)``.
private func cancellingCurrentTask<T>(
  when signal: CancelSignal,
  operation: () async throws -> T
) async throws -> T {
  let registration = withUnsafeCurrentTask { current -> CancelRegistration in
    guard let current else { return .inert }  // not in a task: nothing to cancel
    let task = CurrentTaskHandle(task: current)
    return signal.onCancel { task.cancel() }
  }
  defer { registration.unregister() }
  return try await operation()
}

/// Runs `operation` in a child task (a throwing task group of one) and waits for it.
///
/// `operation` is not escaping and need not be `Sendable`: the group is structured, so the child
/// ends before this function returns, and the caller is suspended in the wait while the child runs
/// it, so the closure and what it captures are never used by two tasks at once. A closure isolated
/// to an actor hops to that actor when the child calls it.
private func inChildTask<T>(
  isolation: isolated (any Actor)?,
  _ operation: () async throws -> T
) async throws -> T {
  try await withoutActuallyEscaping(operation) { operation in
    let handOver = StructuredHandOver(operation)
    let result = try await withThrowingTaskGroup(
      of: StructuredHandOver<T>.self, returning: StructuredHandOver<T>.self, isolation: isolation
    ) { group in
      group.addTask { StructuredHandOver(try await handOver.value()) }
      return try await group.next()!
    }
    return result.value
  }
}

/// A value handed between a task and the child task it waits for.
struct StructuredHandOver<Value>: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: used only by `inChildTask`, where the parent hands the closure
  // to its child and the child hands the result back; the parent is suspended in the group's wait
  // the whole time the child runs, and the group's completion orders the child's writes before the
  // parent's reads, so no value is ever used by two tasks at once.
  let value: Value

  init(_ value: Value) { self.value = value }
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
