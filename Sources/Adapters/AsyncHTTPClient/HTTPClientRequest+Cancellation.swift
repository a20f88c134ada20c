#if AsyncHTTPClient
  import AsyncHTTPClient
  import CancelCore
  import NIOCore
  import Tokens

  extension HTTPClient {
    /// Sends `request` with AsyncHTTPClient's async API and returns the response once its head
    /// has arrived; cancelling `token` stops the request, and later the response's streamed body.
    ///
    /// A cancel before the head has arrived cancels AsyncHTTPClient's request (the connection is
    /// closed) and this throws the token's reason: `CancellationError()` by default, a
    /// `TimeoutError` when the token's deadline passed, the reason given to `cancel(reason:)`
    /// otherwise — never `HTTPClientError.cancelled`, so `Error.isCancellation` is `true`. A token
    /// already cancelled sends nothing.
    ///
    /// A cancel while the body streams ends the body: the `next()` waiting for a chunk (or the
    /// next one called) throws the token's reason and AsyncHTTPClient closes the connection. A
    /// chunk that had already arrived when `next()` returned stays delivered; a body that had
    /// ended stays ended. Each chunk is awaited in a child task of the task iterating the body, so
    /// cancelling that task stops the body too.
    ///
    /// The request's deadline is `deadline` if given, else the absolute deadline `token` carries
    /// (the earliest of its own and its linked parents'), if any; a deadline further off than NIO
    /// can hold is NIO's distant future. AsyncHTTPClient's async API bounds the request with it
    /// until the response head has arrived: when it passes first, this throws
    /// `HTTPClientError.deadlineExceeded` (a failure, not a cancellation) — unless the token's own
    /// timer cancelled it first, in which case this throws the token's `TimeoutError`. The body is
    /// bounded by the token alone: a token with a deadline ends it with its `TimeoutError`.
    ///
    /// A request with a deadline tells the server how long it has: it carries the time left in a
    /// `request-timeout` header (``RemainingTime``, gRPC's `grpc-timeout` format), unless it
    /// already has that header or `sendsRemainingTime` is `false`. A server of this package reads
    /// it with the ServiceContext trait's `CancellationDeadlineInstrument`.
    ///
    /// Cancelling the task that calls this stops the request as AsyncHTTPClient's own `execute`
    /// does (`CancellationError()`); it does not cancel the token.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - token: stops the request and its body when cancelled; its reason is what they throw.
    ///     The current token (`CancellationToken.current`, read when the call is made) by default,
    ///     so a request made under a scope is stopped by it and carries its deadline.
    ///   - deadline: an absolute deadline for the request until its response head; `nil` to use
    ///     the token's.
    ///   - sendsRemainingTime: whether a request with a deadline carries the time left in a
    ///     `request-timeout` header; `true` by default.
    /// - Returns: the response, whose `body` stops when `token` is cancelled.
    /// - Throws: the token's reason when it was cancelled before the head arrived,
    ///   `HTTPClientError.deadlineExceeded` when the deadline passed first, or AsyncHTTPClient's
    ///   own error.
    public func execute(
      _ request: HTTPClientRequest, token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
      deadline: ContinuousClock.Instant? = nil,
      sendsRemainingTime: Bool = true
    ) async throws -> HTTPClientResponse {
      try await execute(request, signal: token.signal, deadline: deadline, sendsRemainingTime: sendsRemainingTime)
    }

    /// Sends `request` with AsyncHTTPClient's async API on a core `CancelSignal`; see
    /// ``execute(_:token:deadline:sendsRemainingTime:)``, with the signal in place of the token.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - signal: stops the request and its body when cancelled; its reason is what they throw.
    ///   - deadline: an absolute deadline for the request until its response head; `nil` to use
    ///     the signal's.
    ///   - sendsRemainingTime: whether a request with a deadline carries the time left in a
    ///     `request-timeout` header; `true` by default.
    /// - Returns: the response, whose `body` stops when `signal` is cancelled.
    /// - Throws: the signal's reason when it was cancelled before the head arrived,
    ///   `HTTPClientError.deadlineExceeded` when the deadline passed first, or AsyncHTTPClient's
    ///   own error.
    public func execute(
      _ request: HTTPClientRequest, signal: CancelSignal, deadline: ContinuousClock.Instant? = nil,
      sendsRemainingTime: Bool = true
    ) async throws -> HTTPClientResponse {
      if let reason = signal.reason { throw reason }
      let effectiveDeadline = deadline ?? signal.deadline
      var withHeader = request
      if sendsRemainingTime, let effectiveDeadline, !request.headers.contains(name: RemainingTime.headerName) {
        withHeader.headers.add(
          name: RemainingTime.headerName, value: RemainingTime(until: effectiveDeadline).headerValue)
      }
      let sent = withHeader
      let requestDeadline = effectiveDeadline.map(NIODeadline.init(continuous:)) ?? .distantFuture
      // The child task that `withCancellation` runs AsyncHTTPClient's `execute` in is cancelled by
      // the signal, which cancels the request; the call then throws the signal's reason.
      var response = try await withCancellation(of: signal) {
        try await self.execute(sent, deadline: requestDeadline)
      }
      response.body = .stream(CancellableResponseBody(base: response.body, signal: signal))
      return response
    }
  }

  /// A response body that ends with the signal's reason when the signal is cancelled.
  struct CancellableResponseBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: HTTPClientResponse.Body
    let signal: CancelSignal

    func makeAsyncIterator() -> Iterator {
      Iterator(base: base.makeAsyncIterator(), signal: signal)
    }

    struct Iterator: AsyncIteratorProtocol {
      /// AsyncHTTPClient's iterator; `nil` once the body ended or failed. Dropping it before the
      /// body ended makes AsyncHTTPClient close the connection.
      var base: HTTPClientResponse.Body.AsyncIterator?
      let signal: CancelSignal

      mutating func next() async throws -> ByteBuffer? {
        guard var iterator = base.take() else { return nil }
        if let reason = signal.reason { throw reason }  // `iterator` is dropped: the connection closes
        // A cancel while AsyncHTTPClient waits for the next chunk cancels the child task that
        // waits, which ends AsyncHTTPClient's body stream (and closes the connection); the call
        // then throws the signal's reason.
        let chunk = try await withCancellation(of: signal) { try await iterator.next() }
        if chunk != nil { base = iterator }
        return chunk
      }
    }
  }
#endif
