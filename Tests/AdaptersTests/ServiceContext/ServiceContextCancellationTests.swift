#if ServiceContext
  import Adapters
  import Instrumentation
  import TestSupport
  import Testing
  import Tokens

  /// Headers as a dictionary, the carrier of these tests.
  private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
  }

  private struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
  }

  /// A reason of the test's own.
  private struct Stop: Error {}

  extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
      do { self = .success(try await body()) } catch { self = .failure(error) }
    }
  }

  @Suite("ServiceContext: deadlines across services")
  struct ServiceContextCancellationTests {
    private let instrument = CancellationDeadlineInstrument()

    private func injected(_ context: ServiceContext = .topLevel) -> [String: String] {
      var headers: [String: String] = [:]
      instrument.inject(context, into: &headers, using: DictionaryInjector())
      return headers
    }

    private func extracted(_ headers: [String: String], into context: ServiceContext = .topLevel) -> ServiceContext {
      var context = context
      instrument.extract(headers, into: &context, using: DictionaryExtractor())
      return context
    }

    @Test func workWithoutADeadlineSendsNothing() async throws {
      #expect(injected().isEmpty)
      let request = CancellationRequest()
      try await withCancellationToken(request.token) { #expect(injected().isEmpty) }
    }

    @Test func theCurrentTokensDeadlineIsSentAsTheTimeLeft() async throws {
      // Deadlines an hour or more away: a busy machine may take many seconds between two lines.
      let request = CancellationRequest(timeout: .seconds(3_600))
      let sent = try await withCancellationToken(request.token) { injected() }
      let left = try #require(sent[RemainingTime.headerName].flatMap(RemainingTime.init(headerValue:)))
      #expect(left.duration > .zero && left.duration <= .seconds(3_600))
    }

    @Test func theEarliestOfTheContextsAndTheCurrentTokensDeadlinesIsSent() async throws {
      let now = ContinuousClock.now
      var context = ServiceContext.topLevel
      context.cancellationDeadline = now + .seconds(3_600)
      let late = CancellationRequest(deadline: now + .seconds(3 * 3_600))
      context.cancellationToken = CancellationRequest(deadline: now + .seconds(2 * 3_600)).token
      let sent = try await withCancellationToken(late.token) { injected(context) }
      let left = try #require(sent[RemainingTime.headerName].flatMap(RemainingTime.init(headerValue:)))
      #expect(left.duration > .zero && left.duration <= .seconds(3_600))
      let sooner = CancellationRequest(deadline: now + .seconds(1_800))
      let sentSooner = try await withCancellationToken(sooner.token) { injected(context) }
      let leftSooner = try #require(sentSooner[RemainingTime.headerName].flatMap(RemainingTime.init(headerValue:)))
      #expect(leftSooner.duration <= .seconds(1_800))
    }

    @Test func aPassedDeadlineIsSentAsZero() {
      var context = ServiceContext.topLevel
      context.cancellationDeadline = .now - .seconds(1)
      #expect(injected(context) == [RemainingTime.headerName: "0n"])
    }

    @Test func aCustomHeaderNameIsUsedBothWays() {
      let grpc = CancellationDeadlineInstrument(headerName: "grpc-timeout")
      var context = ServiceContext.topLevel
      context.cancellationDeadline = .now + .seconds(2)
      var headers: [String: String] = [:]
      grpc.inject(context, into: &headers, using: DictionaryInjector())
      #expect(headers.keys.sorted() == ["grpc-timeout"])
      var received = ServiceContext.topLevel
      grpc.extract(["grpc-timeout": "1S"], into: &received, using: DictionaryExtractor())
      #expect(received.cancellationDeadline != nil)
    }

    @Test func extractingTurnsTheTimeLeftIntoADeadlineOfThisClock() throws {
      let before = ContinuousClock.now
      let context = extracted([RemainingTime.headerName: "2S"])
      let after = ContinuousClock.now
      let deadline = try #require(context.cancellationDeadline)
      #expect(deadline >= before + .seconds(2) && deadline <= after + .seconds(2))
    }

    @Test func aMissingOrMalformedHeaderSetsNoDeadline() {
      #expect(extracted([:]).cancellationDeadline == nil)
      for bad in ["-5S", "1.5S", "123456789m", "soon", ""] {
        #expect(extracted([RemainingTime.headerName: bad]).cancellationDeadline == nil, "\(bad)")
      }
    }

    @Test func extractingKeepsAnEarlierDeadlineTheContextHad() {
      var context = ServiceContext.topLevel
      let early = ContinuousClock.now + .seconds(1)
      context.cancellationDeadline = early
      #expect(extracted([RemainingTime.headerName: "1H"], into: context).cancellationDeadline == early)
    }

    @Test func withoutAContextTheOperationRunsAsItIs() async throws {
      let seen = try await withServiceContextCancellation { CancellationToken.current }
      #expect(seen == nil)
    }

    @Test func aReceivedDeadlineBecomesTheCurrentTokensDeadline() async throws {
      let context = extracted([RemainingTime.headerName: "1H"])
      let (current, deadline, bound) = try await ServiceContext.withValue(context) {
        try await withServiceContextCancellation {
          let current = CancellationToken.current
          return (current, current?.deadline, ServiceContext.current?.cancellationToken)
        }
      }
      #expect(deadline == context.cancellationDeadline)
      #expect(current != nil && bound == current, "the service context carries the bound token too")
      #expect(current?.isCancelled == false)
      #expect(current?.deadline == nil, "the token the call made ends with the call, and its timer with it")
    }

    @Test func aDeadlinePassedOnArrivalCancelsBeforeTheOperationStarts() async throws {
      let context = extracted([RemainingTime.headerName: "0n"])
      let outcome = await Result {
        try await ServiceContext.withValue(context) {
          try await withServiceContextCancellation {
            #expect(Task.isCancelled)
            #expect(CancellationToken.current?.reason is TimeoutError)
            try Task.checkCancellation()
          }
        }
      }
      #expect(throws: TimeoutError.self) { try outcome.get() }
    }

    /// The record of a received deadline names the call of `withServiceContextCancellation`, not
    /// the library, and says `deadline` (whether it passed before the call or during it).
    @Test func aReceivedDeadlinesRecordNamesTheCaller() async throws {
      for header in ["0n", "1m"] {
        let context = extracted([RemainingTime.headerName: header])
        let line = #line + 2
        let record = await ServiceContext.withValue(context) {
          let token = try? await withServiceContextCancellation { () -> CancellationToken? in
            let token = CancellationToken.current
            try? await suspendUntilCancelled()
            return token
          }
          return token?.cancellationRecord
        }
        #expect(record?.trigger == .deadline, "\(header): \(String(describing: record)) expected line \(line)")
        #expect(record?.line == line && record?.fileID.hasSuffix("ServiceContextCancellationTests.swift") == true)
      }
    }

    @Test func theContextsTokenStopsTheWorkWithItsReason() async throws {
      let request = CancellationRequest()
      var context = ServiceContext.topLevel
      context.cancellationToken = request.token
      let (started, start) = AsyncStream<Void>.makeStream()
      async let outcome: Result<Void, any Error> = Result {
        try await ServiceContext.withValue(context) {
          try await withServiceContextCancellation {
            start.yield()
            try await suspendUntilCancelled()  // ends only by the cancel
          }
        }
      }
      for await _ in started { break }
      request.cancel(reason: Stop())
      let result = await outcome
      #expect(throws: Stop.self) { try result.get() }
    }

    @Test func aTokenAndADeadlineCombine() async throws {
      let request = CancellationRequest()
      var context = extracted([RemainingTime.headerName: "1H"])
      context.cancellationToken = request.token
      let (reason, deadline) = try await ServiceContext.withValue(context) {
        try await withServiceContextCancellation { () -> ((any Error)?, ContinuousClock.Instant?) in
          let deadline = CancellationToken.current?.deadline
          request.cancel(reason: Stop())
          return (CancellationToken.current?.reason, deadline)
        }
      }
      #expect(reason is Stop)
      #expect(deadline == context.cancellationDeadline)
    }

    @Test func aDeadlineTravelsThroughTwoHops() async throws {
      // The client: a scope with a deadline an hour away calls service A.
      let client = CancellationRequest(timeout: .seconds(3_600))
      let clientDeadline = try #require(client.token.deadline)
      let before = ContinuousClock.now
      let toA = try await withCancellationToken(client.token) { injected() }
      // Service A extracts it, works under it, and calls B.
      let atA = extracted(toA)
      let toB = try await ServiceContext.withValue(atA) {
        try await withServiceContextCancellation { injected(ServiceContext.current ?? .topLevel) }
      }
      let atB = extracted(toB)
      let elapsed = ContinuousClock.now - before
      let deadlineAtB = try #require(atB.cancellationDeadline)
      // Each hop adds at most the time between its injecting and extracting (here no network at
      // all: at most the time the two hops took), and the text form rounds down (by less than a
      // hundred-thousandth of the time left, per hop).
      #expect(deadlineAtB <= clientDeadline + elapsed)
      #expect(deadlineAtB >= clientDeadline - .milliseconds(100))
    }
  }
#endif
