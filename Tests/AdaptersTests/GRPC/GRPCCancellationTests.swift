#if GRPC
  import Adapters
  import GRPCCore
  import TestSupport
  import Testing
  import Tokens

  /// A reason of the test's own, to tell it from `CancellationError` and `TimeoutError`.
  private struct Stop: Error {}

  /// Real servers on 127.0.0.1. Deadlines the tests need to pass are driven by a
  /// `ManualDeadlineScheduler` (on the client's token or in the server's interceptor), so nothing
  /// waits for time; the deadlines on the real clock are long enough never to pass in a run.
  // Each test waits for events a broken adapter would never send: the limit (far beyond any run,
  // even on a busy machine) turns such a wait into a failure that names the test.
  @Suite("gRPC: calls under a token, handlers under the caller's deadline", .timeLimit(.minutes(20)))
  struct GRPCCancellationTests {
    @Test func aCallUnderATokenSendsItsDeadlineAndItsCancelReachesTheHandler() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let request = CancellationRequest(timeout: .seconds(600))
        let call = Task {
          try await withGRPCCancellation(token: request.token) {
            try await client.probe(ProbeService.hold, options: $0)
          }
        }
        let seen = try await service.started.wait().get()
        #expect(seen.hadToken && !seen.cancelledAtStart)
        let left = try #require(seen.timeLeft)
        #expect(left <= .seconds(600) && left > .seconds(300), "the handler's deadline is the client's, \(left) left")
        request.cancel(reason: Stop())
        await #expect(throws: Stop.self) { try await call.value }
        // The client reset the stream: the handler's token is cancelled, not by its deadline.
        let reason = try await service.ended.wait().get()
        #expect(reason is CancellationError, "\(String(describing: reason))")
        // Its record names gRPC as what started the cancel.
        #expect(try await service.endedRecord.wait().get()?.trigger == .integration("gRPC"))
      }
    }

    @Test func theCurrentTokenIsUsedWhenNoneIsGiven() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let request = CancellationRequest(timeout: .seconds(600))
        let call = Task {
          try await withCancellationToken(request.token) {
            try await withGRPCCancellation { try await client.probe(ProbeService.hold, options: $0) }
          }
        }
        let seen = try await service.started.wait().get()
        #expect(try #require(seen.timeLeft) > .seconds(300))
        request.cancel(reason: Stop())
        await #expect(throws: Stop.self) { try await call.value }
        #expect(try await service.ended.wait().get() is CancellationError)
      }
    }

    @Test func outsideAnyScopeTheCallIsMadeAsItIs() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        #expect(CancellationToken.current == nil)
        let reply = try await withGRPCCancellation { try await client.probe(ProbeService.forward, options: $0) }
        #expect(reply == "no next hop")
        let seen = try await service.started.wait().get()
        // The interceptor still gives the handler a token, without a deadline.
        #expect(seen.hadToken && seen.timeLeft == nil && !seen.cancelledAtStart)
      }
    }

    @Test func theNoneTokenMakesTheCallAsItIsUnderAScope() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let scope = CancellationRequest(timeout: .seconds(600))
        let reply = try await withCancellationToken(scope.token) {
          // `.none` is `CancellationToken.none`, not "no token given".
          try await withGRPCCancellation(token: .none) {
            #expect($0.timeout == nil)
            return try await client.probe(ProbeService.forward, options: $0)
          }
        }
        #expect(reply == "no next hop")
        #expect(try await service.started.wait().get().timeLeft == nil)
        withExtendedLifetime(scope) {}
      }
    }

    @Test func aShorterTimeoutOfTheOptionsIsKept() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let request = CancellationRequest(timeout: .seconds(600))
        var options = CallOptions.defaults
        options.timeout = .seconds(500)
        let reply = try await withGRPCCancellation(token: request.token, options: options) {
          #expect($0.timeout == .seconds(500))
          return try await client.probe(ProbeService.forward, options: $0)
        }
        #expect(reply == "no next hop")
        let left = try #require(try await service.started.wait().get().timeLeft)
        #expect(left <= .seconds(500) && left > .seconds(300))
      }
    }

    @Test func aTokenAlreadyCancelledSendsNothing() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let request = CancellationRequest()
        request.cancel(reason: Stop())
        let made = Counter()
        await #expect(throws: Stop.self) {
          try await withGRPCCancellation(token: request.token) {
            made.increment()
            return try await client.probe(ProbeService.forward, options: $0)
          }
        }
        #expect(made.value == 0 && service.calls.value == 0)
        // The server was there all along: a call without the token reaches it.
        let reply = try await client.probe(ProbeService.forward)
        #expect(reply == "no next hop")
        #expect(service.calls.value == 1)
      }
    }

    @Test func theClientsTokenDeadlineStopsTheCallWithItsTimeoutError() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let clock = ManualDeadlineScheduler()
        let request = CancellationRequest(timeout: .seconds(600), scheduler: clock)
        let call = Task {
          try await withGRPCCancellation(token: request.token) {
            try await client.probe(ProbeService.hold, options: $0)
          }
        }
        _ = try await service.started.wait().get()
        clock.advance(by: .seconds(600))
        await #expect(throws: TimeoutError(timeout: .seconds(600))) { try await call.value }
        _ = try await service.ended.wait().get()
      }
    }

    @Test func theReceivedDeadlinePassingCancelsTheHandlerWithATimeoutErrorAndTheClientSeesDeadlineExceeded()
      async throws
    {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      let clock = ManualDeadlineScheduler()
      try await withProbeServer(service, interceptor: ServerCancellationTokenInterceptor(scheduler: clock)) {
        client, _ in
        // The header as a client without a timer of its own would send it.
        let call = Task { try await client.probe(ProbeService.hold, metadata: ["grpc-timeout": "600S"]) }
        _ = try await service.started.wait().get()
        clock.advance(by: .seconds(600))
        let reason = try await service.ended.wait().get()
        #expect(reason as? TimeoutError == TimeoutError(timeout: .seconds(600)))
        let error = await #expect(throws: RPCError.self) { try await call.value }
        #expect(error?.code == .deadlineExceeded)
      }
    }

    @Test func aDeadlineThatPassedOnArrivalStartsTheHandlerCancelled() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let error = await #expect(throws: RPCError.self) {
          try await client.probe(ProbeService.hold, metadata: ["grpc-timeout": "0m"])
        }
        #expect(error?.code == .deadlineExceeded)
        let seen = try await service.started.wait().get()
        #expect(seen.cancelledAtStart)
        #expect(try await service.ended.wait().get() is TimeoutError)
        #expect(try await service.endedRecord.wait().get()?.trigger == .deadline)
      }
    }

    @Test(arguments: ["abc", "123456789S", "5.5S", "10x", ""])
    func aMalformedHeaderIsIgnored(value: String) async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let reply = try await client.probe(ProbeService.forward, metadata: ["grpc-timeout": "\(value)"])
        #expect(reply == "no next hop")
        let seen = try await service.started.wait().get()
        #expect(seen.hadToken && seen.timeLeft == nil && !seen.cancelledAtStart)
      }
    }

    @Test func aCallTheHandlerMakesCarriesItsDeadlineAndStopsWithIt() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let back = ProbeService()
      try await withProbeServer(back) { backClient, _ in
        // The front service's handler calls the back one with no token: the current one is its RPC's.
        let front = ProbeService(next: {
          try await withGRPCCancellation { try await backClient.probe(ProbeService.hold, options: $0) }
        })
        try await withProbeServer(front) { frontClient, _ in
          let request = CancellationRequest(timeout: .seconds(600))
          let call = Task {
            try await withGRPCCancellation(token: request.token) {
              try await frontClient.probe(ProbeService.forward, options: $0)
            }
          }
          let atFront = try #require(try await front.started.wait().get().timeLeft)
          let atBack = try #require(try await back.started.wait().get().timeLeft)
          // gRPC writes `grpc-timeout` rounded up to its unit (milliseconds for 600 s): the back
          // hop may get up to 1 ms more than the front had left when it called.
          #expect(atBack <= atFront + .milliseconds(1) && atBack > .seconds(300), "front \(atFront), back \(atBack)")
          request.cancel(reason: Stop())
          await #expect(throws: Stop.self) { try await call.value }
          // Client → front (reset) → front's token → its call to back (reset) → back's token.
          #expect(try await back.ended.wait().get() is CancellationError)
        }
      }
    }

    @Test func aStreamingResponsesProducerRunsUnderTheTokenUntilItEnds() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, _ in
        let request = CancellationRequest(timeout: .seconds(600))
        let firstArrived = AsyncStream<Void>.makeStream()
        let call = Task {
          try await withGRPCCancellation(token: request.token) { options in
            try await client.serverStreaming(
              request: ClientRequest(message: "probe"), descriptor: ProbeService.stream,
              serializer: UTF8Serializer(), deserializer: UTF8Deserializer(), options: options
            ) { response in
              for try await message in response.messages where message == "first" {
                firstArrived.continuation.yield()
              }
            }
          }
        }
        for await _ in firstArrived.stream { break }
        let seen = try await service.started.wait().get()
        #expect(seen.hadToken && (seen.timeLeft ?? .zero) > .seconds(300))
        request.cancel(reason: Stop())
        await #expect(throws: Stop.self) { try await call.value }
        #expect(try await service.ended.wait().get() is CancellationError)
      }
    }

    @Test func theServerShuttingDownCancelsTheHandlersToken() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      let service = ProbeService()
      try await withProbeServer(service) { client, server in
        let call = Task { try await client.probe(ProbeService.hold) }
        _ = try await service.started.wait().get()
        server.beginGracefulShutdown()
        #expect(try await service.ended.wait().get() is CancellationError)
        let error = await #expect(throws: RPCError.self) { try await call.value }
        #expect(error?.code == .cancelled)
      }
    }

    @Test func aCancelByGRPCNearTheDeadlineIsTheDeadlines() async throws {
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
      // A tolerance wider than the deadline: a client reset is taken as the deadline passing.
      let service = ProbeService()
      let interceptor = ServerCancellationTokenInterceptor(deadlineTolerance: .seconds(1_200))
      try await withProbeServer(service, interceptor: interceptor) { client, _ in
        let request = CancellationRequest(timeout: .seconds(600))
        let call = Task {
          try await withGRPCCancellation(token: request.token) {
            try await client.probe(ProbeService.hold, options: $0)
          }
        }
        _ = try await service.started.wait().get()
        request.cancel(reason: Stop())
        await #expect(throws: Stop.self) { try await call.value }
        let reason = try #require(try await service.ended.wait().get() as? TimeoutError)
        #expect(reason.timeout <= .seconds(600) && reason.timeout > .seconds(300))
      }
    }
  }
#endif
