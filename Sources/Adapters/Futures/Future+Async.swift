import CancelCore
import Futures

extension Future {
  /// Waits for this future and returns its value; cancelling the awaiting task requests the
  /// future's cancellation.
  ///
  /// The await is a branch of its own: when the task is cancelled, the request is made on that
  /// branch and follows the rules of a cancellation tree (see the Futures "Cancellation trees"
  /// article). If this await is the future's only consumer, the request travels up to the
  /// producer, which decides (it may ignore it: the await then keeps waiting for the result it
  /// chooses); if other consumers still wait for the future, only this await ends, at once, and
  /// the future keeps running for them.
  ///
  /// - Returns: the value of a future that succeeds.
  /// - Throws: the error of a future that fails; `CancellationError()` for a future that ends
  ///   `.cancelled` (a cancelled future never hangs its awaiter).
  public func async() async throws -> T {
    if let result { return try result.swiftResult.get() }  // completed: nothing to request
    let branch: Future<T> = onComplete(.immediate) { Completion($0) }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        branch.onComplete(.immediate) { result in continuation.resume(with: result.swiftResult) }
      }
    } onCancel: {
      // Runs under the task's status lock. The request only flips state here, unless a producer
      // registered an `.immediate` request handler: that handler runs here too, so like every
      // handler of this package it must not block.
      // Made only when needed: most awaits are never cancelled.
      branch.getCancelToken().cancel([], origin: .unknown, byTask: true)
    }
  }
}

extension FutureResult {
  /// The result as Swift's `Result`, with `.cancelled` as `CancellationError()`.
  public var swiftResult: Swift.Result<T, any Error> {
    switch self {
    case .success(let value): .success(value)
    case .fail(let error): .failure(error)
    case .cancelled: .failure(CancellationError())
    }
  }
}
