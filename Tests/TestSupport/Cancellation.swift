import CancelCore

/// Suspends until the current task is cancelled, then throws `CancellationError()`: work that
/// never ends by itself, for tests of what cancels it (no timer, unlike a long `Task.sleep`).
public func suspendUntilCancelled() async throws {
  let neverCancelled = CancelSource()  // active while this frame holds it
  await neverCancelled.signal.cancelled()  // so only the task's cancellation ends the wait
  withExtendedLifetime(neverCancelled) {}
  try Task.checkCancellation()
}
