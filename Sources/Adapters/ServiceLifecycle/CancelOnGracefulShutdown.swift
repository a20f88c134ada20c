#if ServiceLifecycle
  import CancelCore
  import Futures
  import Promises
  import ServiceLifecycle
  import Tokens

  extension CancellablePromise {
    /// Awaits this chain's value; a graceful shutdown of the current service cancels the chain with
    /// ``GracefulShutdownError``, and cancelling the awaiting task cancels it with
    /// `CancellationError()`.
    ///
    /// See ``withGracefulShutdownToken(isolation:_:)`` for where the cancel runs (never under
    /// Lifecycle's lock).
    ///
    /// - Returns: the chain member's value.
    /// - Throws: ``GracefulShutdownError`` when a shutdown cancelled the chain, `CancellationError()`
    ///   when the task's cancellation did, or the chain's error.
    public func cancelOnGracefulShutdown() async throws -> T {
      try await withGracefulShutdownToken { token in
        // Only a shutdown: the task's cancellation (which cancels the token too) cancels the chain
        // through `async()`, with `CancellationError()`.
        let registration = token.onCancel { reason in
          if reason is GracefulShutdownError { self.cancel(error: reason) }
        }
        defer { registration.unregister() }
        return try await self.async()
      }
    }
  }

  extension Future {
    /// Awaits this future's value; a graceful shutdown of the current service requests its
    /// cancellation, and so does cancelling the awaiting task.
    ///
    /// A future ends `.cancelled` without a reason; when it does after a shutdown request this throws
    /// ``GracefulShutdownError``, otherwise `CancellationError()`.
    ///
    /// - Returns: the future's value.
    /// - Throws: ``GracefulShutdownError``, `CancellationError()`, or the future's failure.
    public func cancelOnGracefulShutdown() async throws -> T {
      try await withGracefulShutdownToken { token in
        let registration = token.onCancel { self.getCancelToken().cancel([], origin: .unknown) }
        defer { registration.unregister() }
        do {
          return try await self.async()
        } catch  where error.isCancellation && token.reason is GracefulShutdownError {
          throw GracefulShutdownError()
        }
      }
    }
  }

  extension Task where Failure == any Error {
    /// Awaits this task's value; a graceful shutdown of the current service cancels the task, and
    /// so does cancelling the awaiting task.
    ///
    /// When the cancelled task then throws a cancellation (`CancellationError()`), this throws
    /// ``GracefulShutdownError`` if a shutdown cancelled it.
    ///
    /// - Returns: the task's value.
    /// - Throws: ``GracefulShutdownError``, or the task's error.
    public func cancelOnGracefulShutdown() async throws -> Success {
      try await withGracefulShutdownToken { token in
        let registration = token.onCancel { self.cancel() }
        defer { registration.unregister() }
        do {
          return try await withTaskCancellationHandler {
            try await self.value
          } onCancel: {
            self.cancel()
          }
        } catch  where error.isCancellation && token.reason is GracefulShutdownError {
          throw GracefulShutdownError()
        }
      }
    }
  }
#endif
