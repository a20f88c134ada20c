#if AsyncHTTPClient
  import Adapters
  import AsyncHTTPClient
  import LocalHTTPServer
  import NIOCore
  import Testing
  import Tokens

  /// A reason of the test's own, to tell it from `CancellationError` and `TimeoutError`.
  private struct Shutdown: Error {}

  @Suite("AsyncHTTPClient's async API under a token")
  struct HTTPClientAsyncAPITests {
    /// Reads `response`'s body in a child task: reports once `bytes` bytes have arrived, then reads
    /// on; returns how the body ended (`nil`: it ended normally).
    private static func readBody(
      of response: HTTPClientResponse, reportingAfter bytes: Int, to arrived: AsyncStream<Void>.Continuation
    ) async -> (any Error)? {
      var received = 0
      do {
        for try await chunk in response.body {
          let before = received
          received += chunk.readableBytes
          if before < bytes && received >= bytes { arrived.yield() }
        }
        return nil
      } catch {
        return error
      }
    }

    @Test func aCompletedRequestReturnsItsStreamedBody() async throws {
      let server = try LocalHTTPServer()
      let request = CancellationRequest()
      let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "\(server.baseURL)/fast"), token: request.token)
      #expect(response.status == .ok)
      let body = try await response.body.collect(upTo: 1024)
      #expect(String(buffer: body) == "fast response\n")
      // A cancel after the body ended changes nothing.
      request.cancel(reason: Shutdown())
      #expect(await server.connectionEnd(number: 1).clientClosedEarly == false)
    }

    /// The `request-timeout` header `/request-timeout` received, or "none".
    private static func sentTimeout(
      _ request: HTTPClientRequest = HTTPClientRequest(url: ""), server: LocalHTTPServer, token: CancellationToken,
      deadline: ContinuousClock.Instant? = nil, sendsRemainingTime: Bool = true
    ) async throws -> String {
      var request = request
      request.url = "\(server.baseURL)/request-timeout"
      let response = try await HTTPClient.shared.execute(
        request, token: token, deadline: deadline, sendsRemainingTime: sendsRemainingTime)
      return String(buffer: try await response.body.collect(upTo: 1024))
    }

    @Test func aRequestWithADeadlineTellsTheServerTheTimeLeft() async throws {
      let server = try LocalHTTPServer()
      let request = CancellationRequest(timeout: .seconds(3_600))
      let sent = try await Self.sentTimeout(server: server, token: request.token)
      let left = try #require(RemainingTime(headerValue: sent), "sent \(sent)")
      #expect(left.duration > .zero && left.duration <= .seconds(3_600))
      // An explicit deadline is the request's deadline: it is what is sent.
      let sooner = try await Self.sentTimeout(
        server: server, token: request.token, deadline: .now + .seconds(60))
      #expect(try #require(RemainingTime(headerValue: sooner)).duration <= .seconds(60))
    }

    @Test func aRequestWithoutADeadlineOrWithTheOptionOffSendsNoTimeLeft() async throws {
      let server = try LocalHTTPServer()
      #expect(try await Self.sentTimeout(server: server, token: CancellationRequest().token) == "none")
      let timed = CancellationRequest(timeout: .seconds(3_600))
      #expect(try await Self.sentTimeout(server: server, token: timed.token, sendsRemainingTime: false) == "none")
    }

    @Test func aRequestThatAlreadyHasTheHeaderKeepsItsOwn() async throws {
      let server = try LocalHTTPServer()
      var request = HTTPClientRequest(url: "")
      request.headers.add(name: RemainingTime.headerName, value: "5S")
      let timed = CancellationRequest(timeout: .seconds(3_600))
      #expect(try await Self.sentTimeout(request, server: server, token: timed.token) == "5S")
    }

    @Test func anAlreadyCancelledTokenSendsNothing() async throws {
      let server = try LocalHTTPServer()
      let request = CancellationRequest()
      request.cancel(reason: Shutdown())
      await #expect(throws: Shutdown.self) {
        try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(server.baseURL)/fast"), token: request.token)
      }
      #expect(server.endedConnections.isEmpty)
    }

    @Test func aCancelBeforeTheHeadThrowsTheTokensReasonAndClosesTheConnection() async throws {
      let server = try LocalHTTPServer()
      let request = CancellationRequest()
      // `/echo` has read the request and holds back its answer for half an hour.
      async let outcome: Result<HTTPClientResponse, any Error> = await Result {
        try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(server.baseURL)/echo"), token: request.token)
      }
      await server.answerStarted(path: "/echo")
      request.cancel(reason: Shutdown())
      let error = await outcome.failure
      #expect(error is Shutdown, "the token's reason, not \(String(describing: error))")
      #expect(await server.connectionEnd(number: 1).clientClosedEarly)
    }

    @Test func aCancelWhileTheBodyStreamsEndsTheBodyWithTheTokensReason() async throws {
      let server = try LocalHTTPServer(chunkSize: 1024)
      let request = CancellationRequest()
      server.releaseChunks(1)
      let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "\(server.baseURL)/stepped"), token: request.token)
      #expect(response.status == .ok)
      let (arrived, arrivedContinuation) = AsyncStream.makeStream(of: Void.self)
      async let ending = Self.readBody(of: response, reportingAfter: 1024, to: arrivedContinuation)
      var arrivals = arrived.makeAsyncIterator()
      _ = await arrivals.next()  // the first chunk is read; the server holds the rest back
      request.cancel(reason: Shutdown())
      let error = await ending
      #expect(error is Shutdown, "the token's reason, not \(String(describing: error))")
      let end = await server.connectionEnd(number: 1)
      #expect(end.path == "/stepped")
      #expect(end.clientClosedEarly)
      #expect(end.bodyBytesSent == 1024)
    }

    @Test func theTokensDeadlinePassingWhileTheBodyStreamsThrowsTimeoutError() async throws {
      let server = try LocalHTTPServer(chunkSize: 1024)
      let time = ManualDeadlineScheduler()
      let request = CancellationRequest(timeout: .seconds(600), scheduler: time)
      server.releaseChunks(1)
      let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "\(server.baseURL)/stepped"), token: request.token)
      let (arrived, arrivedContinuation) = AsyncStream.makeStream(of: Void.self)
      async let ending = Self.readBody(of: response, reportingAfter: 1024, to: arrivedContinuation)
      var arrivals = arrived.makeAsyncIterator()
      _ = await arrivals.next()
      time.advance(by: .seconds(600))  // the token's deadline passes
      let error = await ending
      #expect(error is TimeoutError, "the token's TimeoutError, not \(String(describing: error))")
      #expect(await server.connectionEnd(number: 1).clientClosedEarly)
    }

    @Test func theTokensDeadlinePassingBeforeTheHeadThrowsTimeoutError() async throws {
      let server = try LocalHTTPServer()
      let time = ManualDeadlineScheduler()
      let request = CancellationRequest(timeout: .seconds(600), scheduler: time)
      async let outcome: Result<HTTPClientResponse, any Error> = await Result {
        try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(server.baseURL)/echo"), token: request.token)
      }
      await server.answerStarted(path: "/echo")
      time.advance(by: .seconds(600))
      let error = await outcome.failure
      #expect(error is TimeoutError, "the token's TimeoutError, not \(String(describing: error))")
      #expect(await server.connectionEnd(number: 1).clientClosedEarly)
    }

    @Test func theTokensDeadlineBecomesTheRequestsDeadline() async throws {
      let server = try LocalHTTPServer()
      // The token's own timer never fires (manual time): only the request's deadline can end it.
      let request = CancellationRequest(deadline: .now + .milliseconds(300), scheduler: ManualDeadlineScheduler())
      let deadline = try #require(request.token.deadline)
      let outcome = await Result {
        try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(server.baseURL)/echo"), token: request.token)
      }
      #expect(outcome.failure as? HTTPClientError == .deadlineExceeded)
      #expect(outcome.failure?.isCancellation == false)
      #expect(!request.token.isCancelled)
      #expect(ContinuousClock.now >= deadline)
    }

    @Test func cancellingTheIteratingTaskStopsTheBody() async throws {
      let server = try LocalHTTPServer(chunkSize: 1024)
      let request = CancellationRequest()
      server.releaseChunks(1)
      let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "\(server.baseURL)/stepped"), token: request.token)
      let (arrived, arrivedContinuation) = AsyncStream.makeStream(of: Void.self)
      let reader = Task { await Self.readBody(of: response, reportingAfter: 1024, to: arrivedContinuation) }
      var arrivals = arrived.makeAsyncIterator()
      _ = await arrivals.next()
      reader.cancel()
      let error = await reader.value
      #expect(error?.isCancellation == true, "a cancellation, not \(String(describing: error))")
      #expect(!request.token.isCancelled)
      #expect(await server.connectionEnd(number: 1).clientClosedEarly)
    }
  }

  extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
      do { self = .success(try await body()) } catch { self = .failure(error) }
    }
  }
#endif
