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

  private func result<T>(of body: () async throws -> T) async -> Swift.Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
  }
#endif
