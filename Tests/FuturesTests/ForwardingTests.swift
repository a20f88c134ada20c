import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

@Suite("Futures: requests travel to the running stage")
struct ForwardingTests {
  @Test func aRequestOnTheTailOfAChainReachesTheProducer() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let tail = producer.future.map(.immediate) { $0 + 1 }
      .onSuccess(.immediate) { $0 * 2 }
      .onComplete(.immediate) { (result: FutureResult<Int>) -> Completion<Int> in Completion(result) }
      .onFail(.immediate) { _ in }
      .onCancel(.immediate) {}
    tail.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(producer.future.result?.isCancelled == true)
    #expect(tail.result?.isCancelled == true)
  }

  @Test func aRequestReachesAFutureReturnedFromABlock() {
    let inner = RecordingProducer<String>(answer: .complete(.cancelled))
    let outer = Futures.Promise<Int>()
    let tail = outer.future.onSuccess(.immediate) { _ in inner.future }.map(.immediate) { $0 + "!" }
    outer.completeWithSuccess(1)
    #expect(!tail.isCompleted)
    tail.getCancelToken().cancel()
    #expect(inner.requests.values == [[]])
    #expect(tail.result?.isCancelled == true)
  }

  @Test func aRequestReachesAFutureHandedOverWithCompleteUsing() {
    let inner = RecordingProducer<Int>(answer: .complete(.cancelled))
    let outer = RecordingProducer<Int>()
    outer.promise.completeUsingFuture(inner.future)
    let tail = outer.future.map(.immediate) { $0 }
    tail.getCancelToken().cancel()
    #expect(outer.requests.values == [[]])
    #expect(inner.requests.values == [[]])
    #expect(outer.future.result?.isCancelled == true)
    #expect(tail.result?.isCancelled == true)

    let viaCompletion = RecordingProducer<Int>(answer: .complete(.cancelled))
    let stage = Future(success: 1).onComplete(.immediate) { _ in .completeUsing(viaCompletion.future) }
    stage.getCancelToken().cancel()
    #expect(viaCompletion.requests.values == [[]])
    #expect(stage.result?.isCancelled == true)
  }

  @Test func aRequestWhileABlockRunsReachesTheFutureItReturns() {
    let inner = RecordingProducer<Int>(answer: .complete(.cancelled))
    let outer = Futures.Promise<Int>()
    let tokens = Recorder<CancelToken>()
    let stage = outer.future.onSuccess(.immediate) { (_: Int) -> Future<Int> in
      tokens.values.first?.cancel()  // the request arrives while this block runs
      #expect(inner.requests.values.isEmpty)
      return inner.future
    }
    tokens.record(stage.getCancelToken())
    outer.completeWithSuccess(1)
    #expect(inner.requests.values == [[]])
    #expect(stage.result?.isCancelled == true)
  }

  @Test func aRequestWhileAValueBlockRunsChangesNothing() {
    let outer = Futures.Promise<Int>()
    let tokens = Recorder<CancelToken>()
    let stage = outer.future.map(.immediate) { (value: Int) -> Int in
      tokens.values.first?.cancel()
      return value + 1
    }
    tokens.record(stage.getCancelToken())
    outer.completeWithSuccess(1)
    #expect(stage.value == 2)
  }

  @Test func aRequestBeforeThePromiseHandsOverIsForwardedWhenItDoes() {
    let outer = Futures.Promise<Int>()
    outer.future.getCancelToken().cancel()
    let inner = RecordingProducer<Int>(answer: .complete(.cancelled))
    outer.completeUsingFuture(inner.future)
    #expect(inner.requests.values == [[]])
    #expect(outer.future.result?.isCancelled == true)
  }

  @Test func aRequestThroughAVeryLongChainDoesNotGrowTheStack() async {
    let outcome: Bool = await onSmallStack {
      let root = Futures.Promise<Int>()
      root.automaticallyCancelOnRequestCancel()
      var tail = root.future
      for _ in 0..<100_000 { tail = tail.map(.immediate) { $0 } }
      tail.getCancelToken().cancel()
      return tail.result?.isCancelled == true
    }
    #expect(outcome)
  }
}

@Suite("Futures: cancellation trees")
struct TreeTests {
  @Test func oneConsumerForwardsToTheParent() {
    let producer = RecordingProducer<Int>()
    let child = producer.future.map(.immediate) { $0 }
    child.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(!child.isCompleted)  // the producer answered .continue
    producer.promise.completeWithCancel()
    #expect(child.result?.isCancelled == true)
  }

  @Test func aSharedParentLetsTheRequestingBranchGoAndKeepsRunning() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let first = producer.future.map(.immediate) { $0 + 1 }
    let second = producer.future.map(.immediate) { $0 + 2 }
    first.getCancelToken().cancel()
    #expect(first.result?.isCancelled == true)
    #expect(producer.requests.values.isEmpty)
    #expect(!producer.future.isCompleted)
    producer.promise.completeWithSuccess(1)
    #expect(second.value == 3)
    #expect(first.result?.isCancelled == true)
  }

  @Test func theLastConsumerToRequestRequestsTheParent() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let first = producer.future.map(.immediate) { $0 + 1 }
    let second = producer.future.map(.immediate) { $0 + 2 }
    first.getCancelToken().cancel()
    #expect(producer.requests.values.isEmpty)
    second.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(producer.future.result?.isCancelled == true)
    #expect(second.result?.isCancelled == true)
  }

  @Test func aLiveTokenIsNotAConsumer() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let parentToken = producer.future.getCancelToken()
    let child = producer.future.map(.immediate) { $0 }
    child.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(!parentToken.cancelCanBeRequested)
  }

  @Test func forwardEvenIfOthersAreWaitingCancelsTheSiblingsWithTheParent() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let first = producer.future.map(.immediate) { $0 + 1 }
    let second = producer.future.map(.immediate) { $0 + 2 }
    first.getCancelToken().cancel([.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting])
    #expect(producer.requests.values == [[.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting]])
    #expect(first.result?.isCancelled == true)
    #expect(second.result?.isCancelled == true)
  }

  @Test func theDefaultOptionIsAcceptedAndBehavesAsNoOption() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let first = producer.future.map(.immediate) { $0 + 1 }
    _ = producer.future.map(.immediate) { $0 + 2 }
    first.getCancelToken().cancel([.doNotForwardCancelRequestIfThereAreOtherFuturesWaiting])
    #expect(first.result?.isCancelled == true)
    #expect(producer.requests.values.isEmpty)
  }

  @Test func doNotForwardRequestCancelsOnlyThisFuture() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let ran = Counter()
    let child = producer.future.map(.immediate) { (value: Int) -> Int in
      ran.increment()
      return value
    }
    child.getCancelToken().cancel([.doNotForwardRequest])
    #expect(child.result?.isCancelled == true)
    #expect(producer.requests.values.isEmpty)
    #expect(!producer.future.isCompleted)
    producer.promise.completeWithSuccess(1)
    #expect(ran.value == 0)
    #expect(child.result?.isCancelled == true)
  }

  @Test func doNotForwardRequestOnAProducersFutureStillTellsTheProducer() {
    let producer = RecordingProducer<Int>()
    producer.future.getCancelToken().cancel([.doNotForwardRequest])
    #expect(producer.requests.values == [.doNotForwardRequest])
    #expect(!producer.future.isCompleted)
  }

  @Test func forceCompletesAtOnceEvenIfTheProducerIgnoresTheRequestAndStillTellsIt() {
    let producer = RecordingProducer<Int>(answer: .continue)
    let child = producer.future.map(.immediate) { $0 }
    child.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(child.result?.isCancelled == true)
    #expect(producer.requests.values == [[]])
    #expect(!producer.future.isCompleted)

    let root = RecordingProducer<Int>(answer: .continue)
    root.future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(root.future.result?.isCancelled == true)
    #expect(root.requests.values == [.forceThisFutureToBeCancelledImmediately])
    root.promise.completeWithSuccess(1)
    #expect(root.future.result?.isCancelled == true)
  }

  @Test func aForcedConsumerThatPassedItsRequestOnNoLongerCountsAsPending() {
    let producer = RecordingProducer<Int>(answer: .continue)
    let forced = producer.future.map(.immediate) { $0 + 1 }
    forced.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(forced.result?.isCancelled == true)
    #expect(producer.requests.values == [[]])
    // The forced future is no pending consumer: a later one is the last pending and forwards.
    let later = producer.future.map(.immediate) { $0 + 2 }
    later.getCancelToken().cancel()
    // It reached the producer (whose handler ran for the first request, and runs once): had
    // it found a pending sibling, it would have detached and completed cancelled.
    #expect(producer.requests.values == [[]])
    #expect(!later.isCompleted)  // the producer answered .continue
    producer.promise.completeWithSuccess(1)
    #expect(later.value == 3)
  }

  @Test func aForcedConsumerThatForwardedPastItsSiblingsLetsTheLastSiblingForward() {
    let producer = RecordingProducer<Int>(answer: .continue)
    let sibling = producer.future.map(.immediate) { $0 + 1 }
    let forced = producer.future.map(.immediate) { $0 + 2 }
    forced.getCancelToken().cancel([
      .forceThisFutureToBeCancelledImmediately, .forwardCancelRequestEvenIfThereAreOtherFuturesWaiting,
    ])
    #expect(forced.result?.isCancelled == true)
    sibling.getCancelToken().cancel()
    #expect(producer.requests.values.count == 1)  // each handler runs once
    #expect(!sibling.isCompleted)  // it forwarded instead of detaching
  }

  @Test func forceWithDoNotForwardTellsNobody() {
    let producer = RecordingProducer<Int>()
    let child = producer.future.map(.immediate) { $0 }
    child.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately, .doNotForwardRequest])
    #expect(child.result?.isCancelled == true)
    #expect(producer.requests.values.isEmpty)

    let root = RecordingProducer<Int>()
    root.future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately, .doNotForwardRequest])
    #expect(root.future.result?.isCancelled == true)
    #expect(root.requests.values.isEmpty)
  }

  @Test func aDetachedBranchReleasesItsBlock() {
    let producer = RecordingProducer<Int>()
    weak var weakCaptured: Tracked?
    var first: Future<Int>?
    do {
      let captured = Tracked()
      weakCaptured = captured
      first = producer.future.map(.immediate) { value in
        _ = captured
        return value
      }
    }
    _ = producer.future.map(.immediate) { $0 }
    first?.getCancelToken().cancel()
    #expect(first?.result?.isCancelled == true)
    first = nil
    #expect(weakCaptured == nil)
  }
}
