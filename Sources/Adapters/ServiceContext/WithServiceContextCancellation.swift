#if ServiceContext
  import CancelCore
  import Instrumentation
  import Tokens

  /// Runs `operation` under the cancellation the current `ServiceContext` carries: its
  /// `ServiceContext.cancellationToken` and its `ServiceContext.cancellationDeadline`.
  ///
  /// This is how a deadline received from another process takes effect: a server framework
  /// extracts the request's service context (with ``CancellationDeadlineInstrument`` installed),
  /// binds it as `ServiceContext.current` for the handler, and the handler (or a middleware) runs
  /// its work in this function. Inside, as with `withCancellationToken(_:operation:)`:
  /// - `CancellationToken.current` is a token cancelled when the context's token is or when the
  ///   received deadline passes (reason `TimeoutError`), combined with any enclosing scope's
  ///   token, and its `deadline` is the earliest of theirs; the adapters use it, so outgoing
  ///   calls carry what is left of the deadline and stop with it;
  /// - the task running `operation` is cancelled when that token is, and the call then throws the
  ///   token's reason;
  /// - `ServiceContext.current` is the same context with `ServiceContext.cancellationToken` set
  ///   to that token, so code that reads only the service context sees it too.
  ///
  /// A deadline that passed before the call (a remaining time of zero on arrival) cancels the
  /// token before `operation` starts. With no service context, or one that carries neither a
  /// token nor a deadline, `operation` runs as it is, under the enclosing scope if there is one.
  ///
  /// The record of a cancel by the received deadline (`CancellationRecord`, trigger `deadline`)
  /// names this call as where the deadline was set.
  ///
  /// - Parameters:
  ///   - isolation: the actor the call runs on; the caller's, by default.
  ///   - fileID: the caller's file, for the deadline's record; leave the default.
  ///   - line: the caller's line, for that record; leave the default.
  ///   - function: the caller's function, for that record; leave the default.
  ///   - operation: the work.
  /// - Returns: what `operation` returns.
  /// - Throws: the token's reason if it was cancelled and `operation` then threw; otherwise what
  ///   `operation` throws.
  public func withServiceContextCancellation<T>(
    isolation: isolated (any Actor)? = #isolation, fileID: StaticString = #fileID, line: Int = #line,
    function: StaticString = #function, operation: () async throws -> T
  ) async throws -> T {
    guard let context = ServiceContext.current else { return try await operation() }
    // A request of our own only for a received deadline (linked to the context's token if there
    // is one too); a token alone is bound as it is.
    let request = context.cancellationDeadline.map { deadline in
      context.cancellationToken.map {
        CancellationRequest(linkedTo: $0, deadline: deadline, fileID: fileID, line: line, function: function)
      } ?? CancellationRequest(deadline: deadline, fileID: fileID, line: line, function: function)
    }
    guard let token = request?.token ?? context.cancellationToken else { return try await operation() }
    // A deadline that passed before the call (a remaining time of zero on arrival) cancels now,
    // not when a timer of zero gets its turn; its record says so, as the timer's would.
    if let request, let deadline = context.cancellationDeadline, deadline <= .now {
      let origin = CancelOrigin(fileID: fileID, line: line, function: function)
      _ = request.storage.cancel(reason: TimeoutError(timeout: .zero), origin: origin, cause: .deadline)
    }
    defer { request?.close() }
    return try await withCancellationToken(token, isolation: isolation) {
      var bound = context
      bound.cancellationToken = CancellationToken.current
      return try await ServiceContext.withValue(bound, isolation: isolation, operation: operation)
    }
  }
#endif
