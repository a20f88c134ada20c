#if GRPC
  import CancelCore
  import GRPCCore
  import Tokens

  /// A gRPC server interceptor that runs each RPC's handler under a token of its own: cancelled
  /// when the client cancels the RPC, when the deadline the client sent passes, or when the server
  /// shuts down; bound as `CancellationToken.current` for the handler.
  ///
  /// Install it on the server, before the interceptors whose work should stop with the RPC:
  ///
  /// ```swift
  /// let server = GRPCServer(
  ///   transport: transport, services: [service],
  ///   interceptors: [ServerCancellationTokenInterceptor()])
  /// ```
  ///
  /// For each RPC it reads the client's `grpc-timeout` header (``RemainingTime``'s form) and
  /// makes a `CancellationRequest` with that timeout, counted from the RPC's arrival here. Inside
  /// the handler, `CancellationToken.current` is that token (combined with any enclosing scope's,
  /// as `withCancellationToken(_:operation:)` does): its `deadline` reads what the client sent,
  /// and the adapters use it, so outgoing calls the handler makes (``withGRPCCancellation(token:options:isolation:_:)``,
  /// AsyncHTTPClient requests, `CancellableWork`) carry what is left of the deadline and stop
  /// with the RPC. The handler's task is cancelled when the token is, as under
  /// `withCancellationToken(_:operation:)`, so `Task.isCancelled`, `Task.sleep` and child tasks
  /// react as well. The same holds while a streaming response's producer writes: the token
  /// covers the whole RPC and completes without cancellation when it ends.
  ///
  /// The token's reason says why:
  /// - `TimeoutError` (with the timeout the client sent) when the deadline passes. gRPC runs a
  ///   timer of its own for the same header, started a moment apart from this one; a cancel of
  ///   the RPC by gRPC within `deadlineTolerance` of the deadline is taken as the deadline's;
  /// - `CancellationError()` when gRPC cancels the RPC otherwise: the client cancelled it or went
  ///   away, or the server began shutting down (gRPC does not tell these apart).
  ///
  /// A header that is not of `RemainingTime`'s form (a sign, a fraction, more than eight digits,
  /// another unit) is ignored: the token has no deadline (gRPC may still enforce a value it reads
  /// itself; it then cancels the RPC and the reason is `CancellationError()`). A remaining time of
  /// zero is a deadline that passed on arrival: the handler starts with a token already
  /// cancelled with a `TimeoutError`.
  ///
  /// grpc-swift 2.4.3 reads the header itself before any interceptor runs, and a *negative* value
  /// (`-5S`) stops the server process there (a precondition in its own parser): no interceptor
  /// can ignore it. Servers reachable by untrusted clients should strip or check `grpc-timeout`
  /// in front of gRPC (a proxy) until grpc-swift rejects such values.
  ///
  /// When the handler (or the producer) throws after the token was cancelled, the error the
  /// client sees is an `RPCError` for the token's reason: `.deadlineExceeded` for a
  /// `TimeoutError`, `.cancelled` for any other reason; an `RPCError` thrown by the handler is
  /// passed on as it is. The handler's own failures are not touched.
  ///
  /// gRPC calls its cancellation handlers on its transport's threads, and under its own lock when
  /// the RPC was already cancelled: this interceptor only starts a `Task` there, which cancels
  /// the token, so the token's handlers never run on those threads or under that lock.
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  public struct ServerCancellationTokenInterceptor: ServerInterceptor {
    /// The header the client's remaining time is read from: gRPC's `grpc-timeout`.
    public static let headerName = "grpc-timeout"

    /// How close to the deadline a cancel of the RPC by gRPC is taken as the deadline's.
    public let deadlineTolerance: Duration

    /// Measures the time left of each RPC's deadline.
    let scheduler: any DeadlineScheduler

    /// Creates the interceptor.
    ///
    /// - Parameters:
    ///   - deadlineTolerance: how close to the received deadline a cancel of the RPC by gRPC is
    ///     taken as the deadline's (reason `TimeoutError`, not `CancellationError()`): gRPC's own
    ///     timer for the header starts a moment apart from this interceptor's. 100 ms by default.
    ///   - scheduler: measures the time left of each RPC's deadline; `DispatchDeadlineScheduler`
    ///     by default.
    public init(
      deadlineTolerance: Duration = .milliseconds(100), scheduler: some DeadlineScheduler = .dispatch
    ) {
      self.deadlineTolerance = deadlineTolerance
      self.scheduler = scheduler
    }

    /// Runs the RPC under its token; see the type's description.
    ///
    /// - Parameters:
    ///   - request: the request; its `grpc-timeout` header sets the token's deadline.
    ///   - context: the RPC's context; its cancellation cancels the token.
    ///   - next: the rest of the interceptors and the handler.
    /// - Returns: the handler's response, whose producer runs under the token too.
    /// - Throws: what the handler throws, with the token's reason as an `RPCError`.
    public func intercept<Input: Sendable, Output: Sendable>(
      request: StreamingServerRequest<Input>,
      context: ServerContext,
      next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
      let scope = RPCScope(
        remaining: request.metadata[stringValues: Self.headerName].first { _ in true }
          .flatMap(RemainingTime.init(headerValue:)),
        tolerance: deadlineTolerance, scheduler: scheduler)
      let response: StreamingServerResponse<Output>
      do {
        response = try await scope.run { try await next(request, context) }
      } catch {
        scope.end()
        throw error
      }
      guard case .success(var contents) = response.accepted else {
        scope.end()
        return response
      }
      let producer = contents.producer
      contents.producer = { writer in
        defer { scope.end() }
        return try await scope.run { try await producer(writer) }
      }
      return StreamingServerResponse(accepted: .success(contents))
    }
  }

  /// One RPC's token, how gRPC's cancellation reaches it, and what a cancel makes of errors.
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  struct RPCScope: Sendable {
    let request: CancellationRequest
    /// The client's timeout and the deadline it sets here; `nil` without a readable header.
    let received: (timeout: Duration, deadline: ContinuousClock.Instant)?
    let tolerance: Duration

    init(remaining: RemainingTime?, tolerance: Duration, scheduler: some DeadlineScheduler) {
      if let remaining, remaining.duration == .zero {
        // A deadline that passed on arrival: cancelled before the handler starts, not by a timer.
        request = CancellationRequest()
        received = (.zero, .now)
        _ = request.storage.cancel(reason: TimeoutError(timeout: .zero), cause: .deadline)
      } else if let remaining {
        request = CancellationRequest(timeout: remaining.duration, scheduler: scheduler)
        received = (remaining.duration, request.deadline ?? remaining.deadline())
      } else {
        request = CancellationRequest()
        received = nil
      }
      self.tolerance = tolerance
    }

    /// Runs `operation` with the token bound as current and gRPC's cancellation of the RPC
    /// cancelling it; a failure after the token's cancel becomes an `RPCError` for its reason.
    func run<T>(_ operation: () async throws -> T) async throws -> T {
      let token = request.token
      do {
        return try await withRPCCancellationHandler {
          try await withCancellationToken(token, operation: operation)
        } onCancelRPC: { [self] in
          // gRPC may call this under its lock: decide the reason now, cancel on a task.
          let reason = reasonForRPCCancel(at: .now)
          let request = request
          Task { _ = request.storage.cancel(reason: reason, cause: .integration(.gRPC)) }
        }
      } catch let error as RPCError {
        throw error
      } catch {
        guard let reason = token.reason else { throw error }
        if reason is TimeoutError {
          throw RPCError(code: .deadlineExceeded, message: "The RPC's deadline passed: \(reason)", cause: reason)
        }
        throw RPCError(code: .cancelled, message: "The RPC was cancelled: \(reason)", cause: reason)
      }
    }

    /// `TimeoutError` near or past the received deadline, `CancellationError()` before it.
    func reasonForRPCCancel(at now: ContinuousClock.Instant) -> any Error {
      if let received, now >= received.deadline.advanced(by: .zero - tolerance) {
        return TimeoutError(timeout: received.timeout)
      }
      return CancellationError()
    }

    /// Ends the RPC's token: it completes without cancellation if it was not cancelled.
    func end() {
      request.close()
    }
  }
#endif
