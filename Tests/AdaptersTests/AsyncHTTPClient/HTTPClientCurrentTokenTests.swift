#if AsyncHTTPClient
  import Adapters
  import AsyncHTTPClient
  import LocalHTTPServer
  import NIOCore
  import Testing
  import Tokens

  /// AsyncHTTPClient requests made under a scope use `CancellationToken.current` without being
  /// given a token.
  @Suite("AsyncHTTPClient requests under the current token")
  struct HTTPClientCurrentTokenTests {
    struct Shutdown: Error {}

    @Test func aRequestRunUnderAScopeIsStoppedWithTheScopesReason() async throws {
      let server = try LocalHTTPServer()
      let request = CancellationRequest()
      async let outcome = withCancellationToken(request.token) {
        await result { try await HTTPClient.shared.work(get: "\(server.baseURL)/slow").run() }
      }
      await server.answerStarted(path: "/slow")
      request.cancel(reason: Shutdown())
      #expect(try await outcome.failure is Shutdown, "run() itself throws the scope's reason")
      #expect(await server.connectionEnd(number: 1).clientClosedEarly)
    }

    @Test func aRequestStartedUnderAScopeCarriesItsDeadline() async throws {
      let server = try LocalHTTPServer()
      // The scope token's own timer never fires (manual time): only the request's deadline can end it.
      let scope = CancellationRequest(deadline: .now + .milliseconds(300), scheduler: ManualDeadlineScheduler())
      let deadline = try #require(scope.token.deadline)
      let outcome = await withCheckedContinuation { continuation in
        CancellationToken.withCurrent(scope.token) {
          HTTPClient.shared.work(get: "\(server.baseURL)/slow").start { continuation.resume(returning: $0) }
        }
      }
      #expect(outcome.failure as? HTTPClientError == .deadlineExceeded)
      #expect(ContinuousClock.now >= deadline)
    }
  }

  /// What a request made under a scope tells the server (found by the issue-30 review: the
  /// scope's deadline stopped such requests but did not travel with them).
  @Suite("AsyncHTTPClient requests under the current token tell the server the time left")
  struct HTTPClientCurrentTokenHeaderTests {
    @Test func aWorkRunUnderAScopeSendsItsTimeLeft() async throws {
      let server = try LocalHTTPServer()
      let scope = CancellationRequest(timeout: .seconds(3_600))
      let response = try await withCancellationToken(scope.token) {
        try await HTTPClient.shared.work(get: "\(server.baseURL)/request-timeout").run()
      }
      let sent = String(buffer: try #require(response.body))
      let left = try #require(RemainingTime(headerValue: sent), "sent \(sent)")
      #expect(left.duration <= .seconds(3_600) && left.duration > .seconds(1_800))
    }

    @Test func aWorkWithoutADeadlineOrWithTheHeaderTurnedOffSendsNone() async throws {
      let server = try LocalHTTPServer()
      let plain = try await HTTPClient.shared.work(get: "\(server.baseURL)/request-timeout").run()
      #expect(plain.body.map { String(buffer: $0) } == "none")
      let scope = CancellationRequest(timeout: .seconds(3_600))
      let off = try await withCancellationToken(scope.token) {
        try await HTTPClient.shared.work(get: "\(server.baseURL)/request-timeout", sendsRemainingTime: false).run()
      }
      #expect(off.body.map { String(buffer: $0) } == "none")
    }

    @Test func anExecuteUnderAScopeUsesItsTokenAndSendsItsTimeLeft() async throws {
      let server = try LocalHTTPServer()
      let scope = CancellationRequest(timeout: .seconds(3_600))
      let sent = try await withCancellationToken(scope.token) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(server.baseURL)/request-timeout"))
        return String(buffer: try await response.body.collect(upTo: 1024))
      }
      let left = try #require(RemainingTime(headerValue: sent), "sent \(sent)")
      #expect(left.duration <= .seconds(3_600) && left.duration > .seconds(1_800))
    }
  }

  private func result<T>(of body: () async throws -> T) async -> Swift.Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
  }
#endif
