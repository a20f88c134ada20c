#if AsyncHTTPClient
  import AsyncHTTPClient
  import CancelCore
  import NIOCore

  extension HTTPClient {
    /// A request, with its body collected in memory, that every facade can start and that
    /// cancellation really stops: `try await …run()` (task cancellation), `.start(token:)`,
    /// `.promise()` (a `CancellablePromise` chain), `.future()` (a cancel request).
    ///
    /// A cancel while the request runs cancels AsyncHTTPClient's task, which closes the
    /// connection, and the outcome is the cancellation reason (`CancellationError()` by default; a
    /// token's own reason), never `HTTPClientError.cancelled`, so `Error.isCancellation` is `true`.
    /// A signal already cancelled sends nothing. A request that had already completed keeps its
    /// response. Each start sends the request anew; the outcome is reported on one of the client's
    /// event loops.
    ///
    /// The request's deadline is `deadline` if given, else the absolute deadline the starting
    /// token or signal carries (`deadline`: the earliest of its own and its linked parents'), if
    /// any. When it passes, AsyncHTTPClient fails the request with
    /// `HTTPClientError.deadlineExceeded` (a failure, not a cancellation) and closes the
    /// connection — unless the token's own timer cancelled it first, in which case the outcome is
    /// the token's `TimeoutError`.
    ///
    /// A request with a deadline tells the server how long it has: it carries the time left when
    /// it is sent in a `request-timeout` header (``RemainingTime``, gRPC's `grpc-timeout` format),
    /// unless it already has that header or `sendsRemainingTime` is `false`. Run under a scope
    /// without a token (`run()`, `start { … }`), the deadline is the current token's.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - deadline: an absolute deadline for the whole request; `nil` to use the token's.
    ///   - sendsRemainingTime: whether a request with a deadline carries the time left in a
    ///     `request-timeout` header; `true` by default.
    /// - Returns: the request, not started.
    public func work(
      for request: HTTPClient.Request, deadline: ContinuousClock.Instant? = nil, sendsRemainingTime: Bool = true
    ) -> CancellableWork<HTTPClient.Response> {
      CancellableWork { signal, completion in
        if let reason = signal.reason {
          completion(.failure(reason))
          return
        }
        let effectiveDeadline = deadline ?? signal.deadline
        var sent = request
        if sendsRemainingTime, let effectiveDeadline, !request.headers.contains(name: RemainingTime.headerName) {
          sent.headers.add(name: RemainingTime.headerName, value: RemainingTime(until: effectiveDeadline).headerValue)
        }
        let requestDeadline = effectiveDeadline.map(NIODeadline.init(continuous:))
        let task = self.execute(request: sent, delegate: ResponseAccumulator(request: sent), deadline: requestDeadline)
        // Runs on the cancelling thread: `fail(reason:)` only marks the task and starts closing.
        let registration = signal.onCancel { reason in task.fail(reason: reason) }
        task.futureResult.whenComplete { result in
          registration.unregister()
          if case .failure = result, let reason = signal.reason {
            completion(.failure(reason))
          } else {
            completion(result)
          }
        }
      }
    }

    /// A `GET` of `url` that every facade can start. See ``work(for:deadline:sendsRemainingTime:)``;
    /// a malformed URL fails every start with AsyncHTTPClient's error (not a cancellation).
    ///
    /// - Parameters:
    ///   - url: the URL.
    ///   - deadline: an absolute deadline for the whole request; `nil` to use the token's.
    ///   - sendsRemainingTime: whether a request with a deadline carries the time left in a
    ///     `request-timeout` header; `true` by default.
    /// - Returns: the request, not started.
    public func work(
      get url: String, deadline: ContinuousClock.Instant? = nil, sendsRemainingTime: Bool = true
    ) -> CancellableWork<HTTPClient.Response> {
      do {
        return work(for: try HTTPClient.Request(url: url), deadline: deadline, sendsRemainingTime: sendsRemainingTime)
      } catch {
        return CancellableWork { _, completion in completion(.failure(error)) }
      }
    }
  }

  extension NIODeadline {
    /// The NIO deadline at the same moment as `instant` (both clocks are monotonic: the distance
    /// from now carries over); now for a past instant, NIO's distant future for one beyond it.
    init(continuous instant: ContinuousClock.Instant) {
      self = .now() + TimeAmount(clamping: ContinuousClock.now.delay(until: instant))
    }
  }
#endif
