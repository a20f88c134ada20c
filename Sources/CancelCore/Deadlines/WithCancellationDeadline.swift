/// Runs `operation` in a child task, and cancels that task when `deadline` passes; the call then
/// throws a ``TimeoutError``.
///
/// The operation sees the deadline the way Swift code sees any cancellation: `Task.isCancelled`
/// becomes `true`, `Task.sleep` and other cancellation-aware awaits throw. If the deadline passes
/// while it runs, whatever it throws afterwards is replaced by the ``TimeoutError``, so callers
/// tell a timeout from a failure; a value it still returns is returned. A deadline already past
/// cancels the task as soon as the scheduler fires (for ``DispatchDeadlineScheduler``, at once).
///
/// The operation runs in a child task, on the caller's isolation (an actor, the main actor, or
/// none), so it may be a non-`Sendable` closure that touches isolated state; the deadline cancels
/// only that child task, so after a timeout the caller's task is not cancelled and goes on with
/// other awaits (see ``withCancellation(of:isolation:operation:)``). The timer is stopped when the
/// operation ends.
///
/// The name leaves `withDeadline` to the standard library (SE-0526, accepted), whose version runs
/// the operation under a deadline of the task itself and reports its expiry as a
/// `CancellationError` with the reason `.deadlineExpired`; this one keeps throwing ``TimeoutError``
/// (docs/mixing-facades-and-async-await.md maps the two).
///
/// - Parameters:
///   - deadline: when to give up, on the continuous clock.
///   - scheduler: measures the time left; ``DispatchDeadlineScheduler`` by default. Tests pass a
///     ``ManualDeadlineScheduler``.
///   - isolation: the actor the operation runs on; the caller's, by default.
///   - fileID: where this is called from, for the cancellation record of the deadline; leave the
///     default.
///   - line: the line of that call; leave the default.
///   - function: the function making that call; leave the default.
///   - operation: the work.
/// - Returns: what `operation` returns.
/// - Throws: a ``TimeoutError`` if the deadline passed and `operation` then threw; otherwise what
///   `operation` throws.
public func withCancellationDeadline<T>(
  _ deadline: ContinuousClock.Instant,
  scheduler: some DeadlineScheduler = .dispatch,
  isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID,
  line: Int = #line,
  function: StaticString = #function,
  operation: () async throws -> T
) async throws -> T {
  let source = CancelSource(
    deadline: deadline, scheduler: scheduler, fileID: fileID, line: line, function: function)
  return try await withCancellation(by: source, isolation: isolation, operation: operation)
}

/// Runs `operation` in a child task, and cancels that task when `timeout` has passed; the call then
/// throws a ``TimeoutError``. The relative form of
/// ``withCancellationDeadline(_:scheduler:isolation:fileID:line:function:operation:)``; same rules.
///
/// - Parameters:
///   - timeout: how long the operation may run.
///   - scheduler: measures the time; ``DispatchDeadlineScheduler`` by default.
///   - isolation: the actor the operation runs on; the caller's, by default.
///   - fileID: where this is called from, for the cancellation record of the deadline; leave the
///     default.
///   - line: the line of that call; leave the default.
///   - function: the function making that call; leave the default.
///   - operation: the work.
/// - Returns: what `operation` returns.
/// - Throws: a ``TimeoutError`` if the time ran out and `operation` then threw; otherwise what
///   `operation` throws.
public func withCancellationDeadline<T>(
  after timeout: Duration,
  scheduler: some DeadlineScheduler = .dispatch,
  isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID,
  line: Int = #line,
  function: StaticString = #function,
  operation: () async throws -> T
) async throws -> T {
  let source = CancelSource(
    timeout: timeout, scheduler: scheduler, fileID: fileID, line: line, function: function)
  return try await withCancellation(by: source, isolation: isolation, operation: operation)
}

/// Runs `operation` while `deadlineSource`'s cancellation cancels its task, then closes the source
/// (stopping its timer); an error thrown after the source timed out becomes the ``TimeoutError``.
private func withCancellation<T>(
  by deadlineSource: CancelSource,
  isolation: isolated (any Actor)?,
  operation: () async throws -> T
) async throws -> T {
  defer { deadlineSource.close() }
  return try await withCancellation(of: deadlineSource.signal, isolation: isolation, operation: operation)
}
