import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

/// The executors FutureKit's PromiseTests pair up (its `quick_executors_list`).
private let executors: [Executor] = [.mainAsync, .async, .current, .immediate]

/// A producer whose request handler runs on an executor of the scenario, records every request and
/// answers the same way each time. `firstRequest` completes with the options of the first request
/// the handler saw, so a test waits for the handler instead of for time.
private final class Producer: Sendable {
  let promise = Futures.Promise<Int>()
  let requests = Recorder<CancellationOptions>()
  let firstRequest = Futures.Promise<CancellationOptions>()

  init(handlerOn executor: Executor, answer: CancelRequestResponse<Int>) {
    promise.onRequestCancel(executor) { [requests, firstRequest] options in
      requests.record(options)
      firstRequest.completeWithSuccess(options)
      return answer
    }
  }

  var future: Future<Int> { promise.future }

  /// The options of the first request the handler saw, once it ran.
  func handlerSaw() async -> CancellationOptions? {
    await firstRequest.future.completion().value
  }
}

/// FutureKit's own suite never tests cancel requests (its request scenarios are commented out), so
/// these are ours, in its style: each request rule of the Futures catalog's "Cancellation trees"
/// (Sources/Futures/Futures.docc/Guides/CancellationTrees.md), run for every pair of a producer's
/// executor (its request handler and its completions) and the consumers' executor (their blocks),
/// as FutureKit's PromiseTests pair executors.
@Suite("Futures: request rules for every pair of FutureKit's executors")
struct FutureKitStyleRequestTests {
  // MARK: The request tree

  @Test(arguments: executors, executors)
  func aRequestOnTheTailOfAChainReachesTheProducer(producerOn: Executor, consumersOn: Executor) async {
    let producer = Producer(handlerOn: producerOn, answer: .complete(.cancelled))
    let blocksRun = Counter()
    let tail = producer.future
      .map(consumersOn) { (value: Int) -> Int in
        blocksRun.increment()
        return value + 1
      }
      .onSuccess(consumersOn) { (value: Int) -> Int in
        blocksRun.increment()
        return value * 2
      }
    tail.getCancelToken().cancel()
    #expect(producer.promise.isCancellationRequested)  // reached it before cancel() returned
    #expect(await producer.handlerSaw() == [])
    #expect(await tail.completion().isCancelled)
    #expect(await producer.future.completion().isCancelled)
    #expect(producer.requests.values == [[]])
    #expect(blocksRun.value == 0)
  }

  @Test(arguments: executors, executors)
  func aRequestWithoutAConsumerOfTheParentOnTheWayIsCarriedByTheProducersAnswer(
    producerOn: Executor, consumersOn: Executor
  ) async {
    let producer = Producer(handlerOn: producerOn, answer: .continue)
    let child = producer.future.map(consumersOn) { $0 + 1 }
    child.getCancelToken().cancel()
    #expect(await producer.handlerSaw() == [])
    #expect(!child.isCompleted)  // .continue: the producer decides
    producerOn.execute { producer.promise.completeWithSuccess(1) }
    #expect(await child.completion().value == 2)
  }

  // MARK: Sibling consumers

  @Test(arguments: executors, executors)
  func aRequestingSiblingLeavesAtOnceAndTheParentRunsOnForTheOther(producerOn: Executor, consumersOn: Executor) async {
    let producer = Producer(handlerOn: producerOn, answer: .complete(.cancelled))
    let first = producer.future.map(consumersOn) { $0 + 1 }
    let second = producer.future.map(consumersOn) { $0 + 2 }
    first.getCancelToken().cancel()
    #expect(first.result?.isCancelled == true)  // at once, whatever the executors
    #expect(!producer.promise.isCancellationRequested)
    producerOn.execute { producer.promise.completeWithSuccess(1) }
    #expect(await second.completion().value == 3)
    #expect(await first.completion().isCancelled)
    #expect(producer.requests.values.isEmpty)
  }

  @Test(arguments: executors, executors)
  func theLastPendingSiblingToRequestRequestsTheParent(producerOn: Executor, consumersOn: Executor) async {
    let producer = Producer(handlerOn: producerOn, answer: .complete(.cancelled))
    let first = producer.future.map(consumersOn) { $0 + 1 }
    let second = producer.future.map(consumersOn) { $0 + 2 }
    first.getCancelToken().cancel()
    #expect(!producer.promise.isCancellationRequested)
    second.getCancelToken().cancel()
    #expect(producer.promise.isCancellationRequested)
    #expect(await producer.handlerSaw() == [])
    #expect(await second.completion().isCancelled)
    #expect(await producer.future.completion().isCancelled)
    #expect(producer.requests.values == [[]])
  }

  @Test(arguments: executors, executors)
  func forwardingEvenIfOthersWaitCancelsTheSiblingsWithTheParent(producerOn: Executor, consumersOn: Executor) async {
    let producer = Producer(handlerOn: producerOn, answer: .complete(.cancelled))
    let first = producer.future.map(consumersOn) { $0 + 1 }
    let second = producer.future.map(consumersOn) { $0 + 2 }
    first.getCancelToken().cancel([.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting])
    #expect(await producer.handlerSaw() == [.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting])
    #expect(await first.completion().isCancelled)
    #expect(await second.completion().isCancelled)
  }

  // MARK: Forced requests

  @Test(arguments: executors, executors)
  func aForcedRequestEndsTheConsumerAtOnceAndStillTellsTheProducer(producerOn: Executor, consumersOn: Executor) async {
    let producer = Producer(handlerOn: producerOn, answer: .continue)
    let child = producer.future.map(consumersOn) { $0 + 1 }
    child.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(child.result?.isCancelled == true)  // at once, though the producer answers .continue
    #expect(await producer.handlerSaw() == [])
    #expect(!producer.future.isCompleted)
    producerOn.execute { producer.promise.completeWithSuccess(1) }
    #expect(await producer.future.completion().value == 1)
    #expect(child.result?.isCancelled == true)
  }

  @Test(arguments: executors)
  func aForcedRequestOnAProducersFutureEndsItAndLaterCompletionsLose(producerOn: Executor) async {
    let producer = Producer(handlerOn: producerOn, answer: .continue)
    producer.future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(producer.future.result?.isCancelled == true)
    #expect(await producer.handlerSaw() == [.forceThisFutureToBeCancelledImmediately])
    let lost: Bool = await withCheckedContinuation { continuation in
      producerOn.execute { continuation.resume(returning: !producer.promise.tryComplete(.success(1))) }
    }
    #expect(lost)
    #expect(producer.future.result?.isCancelled == true)
  }

  // MARK: completeUsing hand-over

  @Test(arguments: executors, executors)
  func aRequestOnAHandedOverFutureGoesOnToTheFutureItWasHanded(producerOn: Executor, consumersOn: Executor) async {
    let inner = Producer(handlerOn: producerOn, answer: .complete(.cancelled))
    let outer = Producer(handlerOn: producerOn, answer: .continue)
    let handedOver: Void = await withCheckedContinuation { continuation in
      producerOn.execute {
        outer.promise.completeUsingFuture(inner.future)
        continuation.resume()
      }
    }
    _ = handedOver
    let tail = outer.future.map(consumersOn) { $0 + 1 }
    tail.getCancelToken().cancel()
    #expect(await inner.handlerSaw() == [])
    #expect(await outer.handlerSaw() == [])
    #expect(await tail.completion().isCancelled)
    #expect(await outer.future.completion().isCancelled)
  }

  @Test(arguments: executors, executors)
  func aRequestBeforeTheHandOverIsForwardedWhenItHappens(producerOn: Executor, consumersOn: Executor) async {
    let inner = Producer(handlerOn: producerOn, answer: .complete(.cancelled))
    let outer = Futures.Promise<Int>()
    let tail = outer.future.map(consumersOn) { $0 + 1 }
    tail.getCancelToken().cancel()
    #expect(!inner.promise.isCancellationRequested)
    producerOn.execute { outer.completeUsingFuture(inner.future) }
    #expect(await inner.handlerSaw() == [])
    #expect(await tail.completion().isCancelled)
  }

  @Test(arguments: executors)
  func aHandOverClaimsThePromiseButAHandlersAnswerStillEndsTheFuture(producerOn: Executor) async {
    let inner = Futures.Promise<Int>()
    let outer = Producer(handlerOn: producerOn, answer: .complete(.success(7)))
    outer.promise.completeUsingFuture(inner.future)
    #expect(!outer.promise.tryComplete(.success(1)))  // the hand-over claimed it
    outer.future.getCancelToken().cancel()
    #expect(await outer.future.completion().value == 7)
    inner.completeWithSuccess(2)
    #expect(outer.future.value == 7)
  }

  @Test(arguments: executors)
  func aHandOverClaimsThePromiseButAForcedRequestStillEndsTheFuture(producerOn: Executor) async {
    let inner = Producer(handlerOn: producerOn, answer: .continue)
    let outer = Futures.Promise<Int>()
    outer.completeUsingFuture(inner.future)
    outer.future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(outer.future.result?.isCancelled == true)
    #expect(await inner.handlerSaw() != nil)  // told, so that it can stop its work
    producerOn.execute { inner.promise.completeWithSuccess(3) }
    #expect(await inner.future.completion().value == 3)
    #expect(outer.future.result?.isCancelled == true)
  }
}
