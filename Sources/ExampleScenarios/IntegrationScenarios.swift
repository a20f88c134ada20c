import Adapters
import Foundation
import LocalHTTPServer
import Promises
import Tokens

#if NIO
  import NIOCore
  import NIOPosix
#endif
#if AsyncHTTPClient
  import AsyncHTTPClient
#endif
#if ServiceLifecycle
  import ServiceLifecycle
  import ServiceLifecycleTestKit
#endif
#if OpenCombine
  import OpenCombine
#endif
#if ServiceContext
  import Instrumentation
#endif

/// Scenarios of the integrations, one per package trait, each present only when its trait is
/// enabled (`swift run --enable-all-traits Examples`; the three-hop deadline needs both
/// `AsyncHTTPClient` and `ServiceContext`).
let integrationScenarios: [Scenario] = {
  var scenarios: [Scenario] = []
  #if NIO
    scenarios.append(nioScenario)
  #endif
  #if AsyncHTTPClient
    scenarios.append(asyncHTTPClientScenario)
  #endif
  #if ServiceLifecycle
    scenarios.append(serviceLifecycleScenario)
  #endif
  #if OpenCombine
    scenarios.append(openCombineScenario)
  #endif
  #if AsyncHTTPClient && ServiceContext
    scenarios.append(deadlineAcrossServicesScenario)
  #endif
  return scenarios
}()

#if NIO
  let nioScenario = Scenario(
    name: "nio-deadline",
    summary: "A 200 ms deadline timed on a NIO event loop fails the EventLoopPromise of an endless operation"
  ) { report in
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    let operation = loop.makePromise(of: String.self)  // an operation that never answers
    let request = CancellationRequest()
    request.cancel(after: .milliseconds(200), scheduler: .eventLoop(loop))
    report.say("awaiting an EventLoopFuture that never ends, under a token with a 200 ms deadline on its loop")
    let started = ContinuousClock.now
    do {
      let value = try await operation.cancellableWork.run(token: request.token)
      throw ScenarioFailure("the operation answered \(value)")
    } catch is TimeoutError {
      report.say("the await threw TimeoutError after \(Report.milliseconds(ContinuousClock.now - started))")
    }
    do {
      _ = try await operation.futureResult.get()
      throw ScenarioFailure("the NIO promise succeeded")
    } catch {
      report.say("and the NIO promise itself failed with \(error) (isCancellation: \(error.isCancellation))")
      try require(error is TimeoutError, "the NIO promise failed with \(error)")
    }
  }
#endif

#if AsyncHTTPClient
  let asyncHTTPClientScenario = Scenario(
    name: "ahc-cancel",
    summary: "Cancelling a CancellablePromise stops an AsyncHTTPClient download; the server sees the hang-up"
  ) { report in
    let server = try LocalHTTPServer()
    defer { server.stop() }
    let download = HTTPClient.shared.work(get: "\(server.baseURL)/slow").promise()
    await server.answerStarted(path: "/slow")
    report.say("the server is streaming /slow (4 GB at 50 KB/s) to AsyncHTTPClient; cancelling the promise")
    download.cancel()
    let end = await server.connectionEnd(number: 1)
    report.say(
      "the server saw the client hang up after \(end.bodyBytesSent) body bytes (closed early: \(end.clientClosedEarly))"
    )
    try require(end.clientClosedEarly, "the client did not hang up")
    try require(download.isCancelled, "the promise was not cancelled")
  }
#endif

#if ServiceLifecycle
  let serviceLifecycleScenario = Scenario(
    name: "lifecycle-shutdown",
    summary: "A graceful shutdown cancels a service's in-flight promise chain with GracefulShutdownError"
  ) { report in
    // `testGracefulShutdown` stands in for a ServiceGroup receiving SIGTERM.
    try await testGracefulShutdown { trigger in
      let (request, _) = CancellablePromise<String>.pending()  // an in-flight request, never answered
      let response = request.map(on: nil) { "handled \($0)" }
      async let handled = response.cancelOnGracefulShutdown()
      report.say("a service awaits an in-flight promise chain; triggering a graceful shutdown")
      trigger.triggerGracefulShutdown()
      do {
        _ = try await handled
        throw ScenarioFailure("the chain was not cancelled")
      } catch let error as GracefulShutdownError {
        report.say("the await threw \(error) (isCancellation: \(error.isCancellation)); the chain is cancelled")
      }
      try require(request.isCancelled, "the chain's root was not cancelled")
    }
  }
#endif

#if OpenCombine
  let openCombineScenario = Scenario(
    name: "combine-first-value",
    summary: "The first value of an OpenCombine publisher as a promise; cancel() cancels the subscription"
  ) { report in
    let subscriptionCancelled = CancellationRequest()
    let prices = PassthroughSubject<Int, Never>()
    let firstPrice = prices.handleEvents(receiveCancel: { subscriptionCancelled.cancel() }).firstValuePromise()
    report.say("waiting for the first value of a subject that publishes nothing; cancelling the promise")
    firstPrice.cancel()
    try require(subscriptionCancelled.token.isCancelled, "the subscription was not cancelled")
    report.say("the subscription was cancelled synchronously; the promise is rejected: \(firstPrice.isRejected)")
    prices.send(42)
    try require(firstPrice.value == nil, "a value arrived after the cancel")
  }
#endif

#if AsyncHTTPClient && ServiceContext
  /// Reads a header of `LocalHTTPServer`'s handlers (names in lower case).
  private struct HeaderFieldsExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key.lowercased()] }
  }

  /// A handler of a service that takes the deadline its caller sent, as a server framework with
  /// `CancellationDeadlineInstrument` installed would, and runs `work` under it.
  private func underReceivedDeadline(
    _ headers: [String: String], _ work: () async throws -> String
  ) async throws -> String {
    var context = ServiceContext.topLevel
    CancellationDeadlineInstrument().extract(headers, into: &context, using: HeaderFieldsExtractor())
    return try await ServiceContext.withValue(context) { try await withServiceContextCancellation(operation: work) }
  }

  /// What one run of the three hops saw: whether the client's call reached B before the client's
  /// deadline passed, and if it did, when and how B's work stopped.
  private enum ThreeHopOutcome {
    case stoppedInB(at: ContinuousClock.Instant, error: String, clientDeadline: ContinuousClock.Instant)
    case deadlinePassedBeforeB
  }

  /// One run of the three hops with a client deadline `budget` away.
  private func threeHops(budget: Duration, report: Report) async throws -> ThreeHopOutcome {
    // Set when B's handler starts; settled when its work stops. Both are events, so the run never
    // waits for a time to pass: on a busy machine the client's deadline can pass before the call
    // reaches B (then nothing will ever stop in B, and the run says so instead of waiting).
    let bStarted = SettleCell<Void>()
    let bStopped = SettleCell<(at: ContinuousClock.Instant, error: String)>()
    // Service B works for an hour under the deadline it received.
    let serviceB = try LocalHTTPServer { _, headers in
      _ = bStarted.settle(())
      report.say("B received request-timeout: \(headers["request-timeout"] ?? "none"); working for an hour")
      do {
        return try await underReceivedDeadline(headers) {
          try await Task.sleep(for: .seconds(3_600))
          return "B finished"
        }
      } catch {
        _ = bStopped.settle((.now, "\(error)"))
        return "B stopped"
      }
    }
    defer { serviceB.stop() }
    // Service A calls B under the deadline it received; the call carries what is left of it.
    let serviceA = try LocalHTTPServer { _, headers in
      report.say("A received request-timeout: \(headers["request-timeout"] ?? "none"); calling B")
      do {
        return try await underReceivedDeadline(headers) {
          let token = CancellationToken.current ?? .none
          let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(serviceB.baseURL)/work"), token: token)
          return String(buffer: try await response.body.collect(upTo: 1024))
        }
      } catch {
        return "A stopped: \(error)"
      }
    }
    defer { serviceA.stop() }
    // The client calls A with the deadline.
    let client = CancellationRequest(timeout: budget)
    guard let clientDeadline = client.token.deadline else { throw ScenarioFailure("the client has no deadline") }
    let started = ContinuousClock.now
    do {
      let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "\(serviceA.baseURL)/order"), token: client.token)
      throw ScenarioFailure("the client got an answer: \(response.status)")
    } catch let error where error is TimeoutError || error as? HTTPClientError == .deadlineExceeded {
      // Whichever ends the call first at the deadline: the token's timer (its `TimeoutError`) or
      // AsyncHTTPClient's own deadline, which the call was given too (`deadlineExceeded`).
      report.say("the client's call threw \(error) after \(Report.milliseconds(ContinuousClock.now - started))")
    }
    // A B that started has a deadline no later than the client's (or its caller hangs up), so its
    // work stops. One that had not started by now may still start, with its deadline passed, and
    // stop at once; this run no longer waits for it.
    guard bStarted.value != nil else { return .deadlinePassedBeforeB }
    let stopped = await withCheckedContinuation { continuation in
      _ = bStopped.observe { continuation.resume(returning: $0) }
    }
    return .stoppedInB(at: stopped.at, error: stopped.error, clientDeadline: clientDeadline)
  }

  let deadlineAcrossServicesScenario = Scenario(
    name: "deadline-three-hops",
    summary: "A client's 300 ms deadline travels to service A and on to service B, whose hour-long work stops"
  ) { report in
    // 300 ms is ample on an idle machine; a busy one may spend it before the call reaches B, and
    // then the run is repeated with twice the time (up to about 20 minutes).
    var budget = Duration.milliseconds(300)
    for _ in 0..<13 {
      switch try await threeHops(budget: budget, report: report) {
      case .deadlinePassedBeforeB:
        report.say(
          "the \(Report.milliseconds(budget)) deadline passed before the call reached B (a busy machine); "
            + "again with twice the time")
        budget *= 2
      case .stoppedInB(let at, let error, let clientDeadline):
        report.say(
          "B's work stopped \(Report.milliseconds(at - clientDeadline)) after the client's deadline, with \(error)")
        try require(
          error.contains("TimeoutError") || error.contains("CancellationError"), "B stopped with \(error)")
        return
      }
    }
    throw ScenarioFailure("no deadline up to \(budget / 2) left the call time to reach B")
  }
#endif
