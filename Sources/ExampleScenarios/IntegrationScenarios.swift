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

/// Scenarios of the integrations, one per package trait, each present only when its trait is
/// enabled (`swift run --traits NIO,AsyncHTTPClient,ServiceLifecycle,OpenCombine Examples`).
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
    report.say("the server is streaming /slow (100 MB at 50 KB/s) to AsyncHTTPClient; cancelling the promise")
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
