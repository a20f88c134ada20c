#if AsyncHTTPClient
  import Adapters
  import AsyncHTTPClient
  import LocalHTTPServer
  import NIOCore
  import Testing
  import Tokens

  @Suite("AsyncHTTPClient requests")
  struct HTTPClientRequestTests {
    @Test(arguments: FacadeStyle.allCases)
    func aCompletedRequestReturnsItsBody(style: FacadeStyle) async throws {
      let server = try LocalHTTPServer()
      let response = try await HTTPClient.shared.work(get: "\(server.baseURL)/fast").outcome(as: style).get()
      #expect(response.status == .ok)
      #expect(response.body.map { String(buffer: $0) } == "fast response\n")
    }

    @Test(arguments: FacadeStyle.allCases)
    func cancellingMidTransferEndsCancelledAndTheServerSeesTheClientHangUp(style: FacadeStyle) async throws {
      let server = try LocalHTTPServer()
      let started = await HTTPClient.shared.work(get: "\(server.baseURL)/slow").start(as: style)
      await server.answerStarted(path: "/slow")  // the body is streaming: cancel mid-transfer
      started.cancel()
      let outcome = await started.outcome()
      guard case .failure(let error) = outcome else {
        Issue.record("expected the request to end cancelled, got \(outcome)")
        return
      }
      #expect(error.isCancellation)
      #expect(!(error is HTTPClientError), "the outcome is the cancellation reason, not \(error)")
      let end = await server.connectionEnd(number: 1)
      #expect(end.path == "/slow")
      #expect(end.clientClosedEarly)
    }

    @Test func aTokensReasonIsTheOutcome() async throws {
      let server = try LocalHTTPServer()
      let request = CancellationRequest()
      async let outcome = withCheckedContinuation { continuation in
        HTTPClient.shared.work(get: "\(server.baseURL)/slow").start(token: request.token) {
          continuation.resume(returning: $0)
        }
      }
      await server.answerStarted(path: "/slow")
      request.cancel(reason: TimeoutError(timeout: .seconds(1)))
      #expect(await outcome.failure is TimeoutError)
      #expect(await server.connectionEnd(number: 1).clientClosedEarly)
    }

    @Test func anAlreadyCancelledTokenSendsNothing() async throws {
      let server = try LocalHTTPServer()
      let request = CancellationRequest()
      request.cancel()
      let outcome = await withCheckedContinuation { continuation in
        HTTPClient.shared.work(get: "\(server.baseURL)/fast").start(token: request.token) {
          continuation.resume(returning: $0)
        }
      }
      #expect(outcome.failure is CancellationError)
      #expect(server.endedConnections.isEmpty)
    }

    @Test func anAbsoluteDeadlineBecomesTheRequestsDeadline() async throws {
      let server = try LocalHTTPServer()
      let deadline = ContinuousClock.now + .milliseconds(300)
      let outcome = await HTTPClient.shared.work(get: "\(server.baseURL)/slow", deadline: deadline).outcome(as: .token)
      #expect(outcome.failure as? HTTPClientError == .deadlineExceeded)
      #expect(outcome.failure?.isCancellation == false)
      #expect(ContinuousClock.now >= deadline)
    }

    // A deadline further off than `Int64.max` seconds made the conversion to a NIO deadline trap;
    // it runs in a child process (an exit test) so that a trap fails this test, not the suite.
    @Test func aDeadlineTooFarOffForNIOIsNIOsDistantFutureInsteadOfATrap() async throws {
      await #expect(processExitsWith: .success) {
        let server = try! LocalHTTPServer()
        let farOff = ContinuousClock.now + .seconds(Int64.max) * 4
        let response = try! await HTTPClient.shared.work(get: "\(server.baseURL)/fast", deadline: farOff).run()
        precondition(response.status == .ok)
      }
    }

    @Test func theTokensDeadlineBecomesTheRequestsDeadline() async throws {
      let server = try LocalHTTPServer()
      // The token's own timer never fires (manual time): only the request's deadline can end it.
      let parent = CancellationRequest(deadline: .now + .milliseconds(300), scheduler: ManualDeadlineScheduler())
      let request = CancellationRequest(linkedTo: parent.token)
      let deadline = try #require(request.token.deadline)
      let outcome = await withCheckedContinuation { continuation in
        HTTPClient.shared.work(get: "\(server.baseURL)/slow").start(token: request.token) {
          continuation.resume(returning: $0)
        }
      }
      #expect(outcome.failure as? HTTPClientError == .deadlineExceeded)
      #expect(!request.token.isCancelled)
      #expect(ContinuousClock.now >= deadline)
      withExtendedLifetime(parent) {}
    }
  }
#endif
