import CancelCore

extension Promise {
  /// Waits for this promise and returns its value.
  ///
  /// A plain promise cannot be cancelled, so cancelling the awaiting task does not stop it: the
  /// await throws `CancellationError()` at once, without waiting for the promise, which goes on
  /// resolving for its other handlers. The cancelled await takes its callback back out of the
  /// promise, so a long-lived pending promise keeps nothing of awaits that were cancelled. (Use a
  /// `CancellablePromise` to stop the work too.)
  ///
  /// - Returns: the value of a fulfilled promise.
  /// - Throws: the error of a rejected promise (`PMKError.cancelled` for a cancelled one: it never
  ///   hangs its awaiter), or `CancellationError()` when the awaiting task is cancelled first.
  public func async() async throws -> T {
    if let result { return try result.get() }  // resolved: no suspension, no allocation
    return try await awaitFirst(of: self)
  }
}

extension Guarantee {
  /// Waits for this guarantee and returns its value.
  ///
  /// A guarantee cannot fail, so this cannot throw: cancelling the awaiting task does not end the
  /// wait. Await `cancellize()` instead when the wait must end on cancellation.
  ///
  /// - Returns: the guarantee's value.
  public func async() async -> T {
    if let value { return value }
    return await withCheckedContinuation { continuation in
      pipe { (value: T) in continuation.resume(returning: value) }
    }
  }
}

extension CancellablePromise {
  /// Waits for this promise and returns its value; cancelling the awaiting task cancels the chain.
  ///
  /// The cancel is `cancel(error: CancellationError())`: every pending member of the chain is
  /// rejected with `CancellationError()` and every registered task is cancelled, at once, so this
  /// await throws `CancellationError()` at once too. A chain that settled first keeps its result.
  ///
  /// - Returns: the value of a fulfilled promise.
  /// - Throws: the rejection error (`CancellationError()` after the task's cancellation; the
  ///   chain's own cancellation error, `PMKError.cancelled` by default, after a `cancel()`).
  public func async() async throws -> T {
    if let result = promise.result { return try result.get() }  // settled: nothing to cancel
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        promise.pipe { continuation.resume(with: $0) }
      }
    } onCancel: {
      // Runs under the task's status lock: the cancel rejects members and calls the chain's
      // cancel handlers on this thread, which (like every handler of this package) must not block.
      cancel(error: CancellationError())
    }
  }
}

/// Awaits the first of: `promise`'s result, or the cancellation of the current task (then
/// `CancellationError()`). The continuation is resumed exactly once: a core one-shot cell decides
/// between the two. An await that ends by its task's cancellation takes its callback back out of
/// the promise, so a long-lived pending promise awaited by many cancelled tasks keeps nothing of
/// them.
func awaitFirst<T: Sendable>(of promise: Promise<T>) async throws -> T {
  let first = SettleCell<Swift.Result<T, any Error>>()
  var key: RegistrationKey?
  do {
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        first.observe { continuation.resume(with: $0) }
        key = promise.pipeRemovably { first.settle($0) }
      }
    } onCancel: {
      // Runs under the task's status lock: it only settles the cell; the callback leaves the
      // promise below, on the awaiting task.
      first.settle(.failure(CancellationError()))
    }
  } catch {
    if let key { promise.removeCallback(key) }  // nothing to remove once it ran
    throw error
  }
}
