import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

/// Programs whose request handlers request other futures (or their own again): each returns
/// whether every producer's handler ran exactly once and the outcome is the expected one.
///
/// Before requests were queued, each of them recursed (`cancel` → request → handler → `cancel`
/// …) until the stack overflowed, so the tests run them in a child process (an exit test): a
/// regression fails that test, not the whole suite. The deep ones run on a 256 KiB stack.
enum ReentrantShapes {
  /// `count` producers whose `.immediate` handlers each request the next producer's future (the
  /// last one the first's, if `ring`), through a derived stage of it if `throughStages`.
  static func chain(_ count: Int, ring: Bool = false, throughStages: Bool = false) -> Bool {
    let promises = (0..<count).map { _ in Futures.Promise<Int>() }
    let runs = (0..<count).map { _ in Counter() }
    for index in 0..<count {
      let next: Futures.Promise<Int>? = index + 1 < count ? promises[index + 1] : (ring ? promises[0] : nil)
      promises[index].onRequestCancel(.immediate) { [runs] _ in
        runs[index].increment()
        if let next {
          let target = throughStages ? next.future.map(.immediate) { $0 } : next.future
          target.getCancelToken().cancel()
        }
        return .continue
      }
    }
    let start = throughStages ? promises[0].future.map(.immediate) { $0 } : promises[0].future
    start.getCancelToken().cancel()
    return runs.allSatisfy { $0.value == 1 } && promises.allSatisfy(\.isCancellationRequested)
  }

  /// `count` producers whose handlers each request their own future again, then answer
  /// `.complete(.cancelled)`.
  static func selfRequests(_ count: Int) -> Bool {
    let promises = (0..<count).map { _ in Futures.Promise<Int>() }
    let runs = Counter()
    for promise in promises {
      promise.onRequestCancel(.immediate) { [runs] _ in
        runs.increment()
        promise.future.getCancelToken().cancel()
        return .complete(.cancelled)
      }
    }
    for promise in promises { promise.future.getCancelToken().cancel() }
    return runs.value == count && promises.allSatisfy { $0.future.result?.isCancelled == true }
  }

  /// A batch of `count` inputs whose `.immediate` handlers each cancel the batch, then answer
  /// `.complete(.cancelled)`.
  static func batchCancelledByItsInputs(_ count: Int) -> Bool {
    let promises = (0..<count).map { _ in Futures.Promise<Int>() }
    let batch = FutureBatchOf(promises.map(\.future))
    let runs = Counter()
    for promise in promises {
      promise.onRequestCancel(.immediate) { [runs] _ in
        runs.increment()
        batch.cancel()
        return .complete(.cancelled)
      }
    }
    batch.cancel()
    return runs.value == count && batch.resultsFuture.isCompleted && batch.future.result?.isCancelled == true
  }

  /// `count` producers whose handlers each hand their future over to the next producer's
  /// (`.completeUsing`), which forwards the request there; the last one completes with 7.
  static func handOverChain(_ count: Int) -> Bool {
    let promises = (0..<count).map { _ in Futures.Promise<Int>() }
    let runs = Counter()
    for index in 0..<count {
      let next = index + 1 < count ? promises[index + 1] : nil
      promises[index].onRequestCancel(.immediate) { [runs] _ in
        runs.increment()
        guard let next else { return .complete(.success(7)) }
        return .complete(.completeUsing(next.future))
      }
    }
    promises[0].future.getCancelToken().cancel()
    return runs.value == count && promises.allSatisfy { $0.future.value == 7 }
  }

  /// `count` producers, each handing its future over to the next one's (`completeUsingFuture`),
  /// whose `.immediate` handlers each request the next producer's future; the last one then
  /// completes with 7. Every handler runs once, every future ends with 7.
  ///
  /// The request on the first future passes up the whole chain, and each handler's request
  /// then starts one future further up, where that request already passed: until issue 26 each
  /// of them walked the rest of the chain again, so the whole took time quadratic in `count`.
  static func handOverChainRequestingTheNext(_ count: Int) -> Bool {
    let promises = (0..<count).map { _ in Futures.Promise<Int>() }
    for index in 0..<(count - 1) { promises[index].completeUsingFuture(promises[index + 1].future) }
    let runs = (0..<count).map { _ in Counter() }
    for index in 0..<count {
      let next = promises[min(index + 1, count - 1)]
      promises[index].onRequestCancel(.immediate) { [runs] _ in
        runs[index].increment()
        next.future.getCancelToken().cancel()
        return .continue
      }
    }
    promises[0].future.getCancelToken().cancel()
    promises[count - 1].completeWithSuccess(7)
    return runs.allSatisfy { $0.value == 1 } && promises.allSatisfy { $0.future.value == 7 }
  }
}

@Suite("Futures: request handlers that request again")
struct ReentrantRequestTests {
  // Exit tests (a child process) exist where Swift Testing can spawn one.
  #if os(macOS) || os(Linux) || os(Windows)
    @Test func twoProducersWhoseHandlersRequestEachOtherEnd() async {
      await #expect(processExitsWith: .success) {
        precondition(ReentrantShapes.chain(2, ring: true), "handlers ran other than once each")
      }
    }

    @Test func aHandlerThatRequestsItsOwnFutureAgainEnds() async {
      await #expect(processExitsWith: .success) {
        precondition(ReentrantShapes.selfRequests(1), "the handler ran other than once")
      }
    }

    @Test func inputHandlersThatCancelTheirBatchEnd() async {
      await #expect(processExitsWith: .success) {
        precondition(ReentrantShapes.batchCancelledByItsInputs(3), "handlers ran other than once each")
      }
    }
  #endif

  @Test func aRequestMadeInAHandlerIsCarriedOutWhenTheHandlerReturns() {
    let first = Futures.Promise<Int>()
    let second = RecordingProducer<Int>(answer: .complete(.cancelled))
    let seenInside = Recorder<Bool>()
    first.onRequestCancel(.immediate) { _ in
      second.future.getCancelToken().cancel()
      seenInside.record(second.future.isCompleted)
      return .continue
    }
    first.future.getCancelToken().cancel()
    // Queued while the first handler ran, carried out before the outermost cancel returned.
    #expect(seenInside.values == [false])
    #expect(second.requests.values == [[]])
    #expect(second.future.result?.isCancelled == true)
  }

  @Test func aRequestMadeInABlockThatARequestCompletedIsCarriedOutAfterThatRequest() {
    let producer = Futures.Promise<Int>()
    let other = RecordingProducer<Int>()
    let seenInside = Recorder<Bool>()
    producer.future.onCancel(.immediate) {
      other.future.getCancelToken().cancel()
      seenInside.record(other.promise.isCancellationRequested)
    }
    producer.future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(seenInside.values == [false])
    #expect(other.requests.values == [[]])
  }

  @Test func requestsQueuedByHandlersAreCarriedOutInTheOrderMade() {
    let order = Recorder<Int>()
    let targets = (0..<3).map { index in
      let promise = Futures.Promise<Int>()
      promise.onRequestCancel(.immediate) { _ in
        order.record(index)
        return .continue
      }
      return promise
    }
    let first = Futures.Promise<Int>()
    first.onRequestCancel(.immediate) { _ in
      for target in targets.reversed() { target.future.getCancelToken().cancel() }
      order.record(-1)
      return .continue
    }
    first.future.getCancelToken().cancel()
    #expect(order.values == [-1, 2, 1, 0])
  }

  @Test func eachHandlerRunsOnceHoweverManyRequestsReachItsFuture() {
    let producer = RecordingProducer<Int>()
    producer.future.getCancelToken().cancel()
    producer.future.getCancelToken().cancel([.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting])
    producer.future.map(.immediate) { $0 }.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(producer.promise.isCancellationRequested)
    // A handler registered after a request runs once, at registration, and no later request
    // runs it again.
    let late = Counter()
    producer.promise.onRequestCancel(.immediate) { _ in
      late.increment()
      return .continue
    }
    producer.future.getCancelToken().cancel()
    #expect(late.value == 1)
    #expect(producer.requests.values == [[]])
  }

  @Test func asyncInputHandlersThatCancelTheirBatchRunOnceEach() async {
    let queue = DispatchQueue(label: "handlers")
    let promises = (0..<3).map { _ in Futures.Promise<Int>() }
    let batch = FutureBatchOf(promises.map(\.future))
    let runs = Counter()
    for promise in promises {
      promise.onRequestCancel(.queue(queue)) { _ in
        runs.increment()
        batch.cancel()
        return .complete(.cancelled)
      }
    }
    batch.cancel()
    _ = await batch.resultsFuture.completion()
    // Every handler run was queued before the last input completed: let them all run.
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(runs.value == 3)
  }

  /// 2,000 hand-overs (200 with `STRESS_DIVISOR=10`, under ThreadSanitizer), each handler once.
  /// That each request takes one step (before issue 26 each walked the rest of the chain again:
  /// 50 million visits for 10,000) is checked by counting instructions, not by a time limit that
  /// a busy machine can exceed: the `futures-handover-chain-request-next` workload of
  /// `scripts/check-instruction-counts.sh`.
  @Test func handOversWhoseHandlersRequestTheNextFutureRunEachHandlerOnce() {
    #expect(ReentrantShapes.handOverChainRequestingTheNext(Stress.iterations(2_000)))
  }

  @Test func aBatchRequestsAtMostOnce() {
    let producer = RecordingProducer<Int>()
    let batch = FutureBatchOf([producer.future])
    batch.cancel()
    batch.cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(producer.requests.values == [[]])
    #expect(!producer.future.isCompleted)
  }
}

#if os(macOS) || os(Linux) || os(Windows)
  @Suite("Futures: re-entrant requests at depth 100,000 on a 256 KiB stack")
  struct DeepReentrantRequestTests {
    @Test func aChainOfProducersEachRequestingTheNext() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { ReentrantShapes.chain(100_000) }
        precondition(ok, "a handler ran other than once, or a future was not requested")
      }
    }

    @Test func aRingOfProducersEachRequestingTheNext() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { ReentrantShapes.chain(100_000, ring: true) }
        precondition(ok, "a handler ran other than once, or a future was not requested")
      }
    }

    @Test func aChainOfProducersEachRequestingAStageOfTheNext() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { ReentrantShapes.chain(100_000, throughStages: true) }
        precondition(ok, "a handler ran other than once, or a future was not requested")
      }
    }

    @Test func producersRequestingThemselvesAgain() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { ReentrantShapes.selfRequests(100_000) }
        precondition(ok, "a handler ran other than once")
      }
    }

    @Test func aBatchWhoseInputsCancelIt() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { ReentrantShapes.batchCancelledByItsInputs(100_000) }
        precondition(ok, "a handler ran other than once, or the batch did not end")
      }
    }

    @Test func aChainOfHandOversAnsweringRequests() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { ReentrantShapes.handOverChain(100_000) }
        precondition(ok, "a handler ran other than once, or the hand-overs did not end with 7")
      }
    }
  }

#endif

@Suite("Futures: a combinator given one future twice")
struct RepeatedInputTests {
  @Test func aRequestOnCombineFuturesOfOneFutureTwiceReachesItsProducer() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let combined = combineFutures(producer.future, producer.future)
    combined.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(producer.future.result?.isCancelled == true)
    #expect(combined.result?.isCancelled == true)
  }

  @Test func aRequestReachesARepeatedInputAmongOthers() {
    let repeated = RecordingProducer<Int>()
    let other = RecordingProducer<Int>()
    let combined = combineFutures(repeated.future, other.future, repeated.future)
    combined.getCancelToken().cancel()
    #expect(repeated.requests.values == [[]])
    #expect(other.requests.values == [[]])
    #expect(!combined.isCompleted)
    repeated.promise.completeWithSuccess(1)
    other.promise.completeWithSuccess(2)
    #expect(combined.value.map { [$0.0, $0.1, $0.2] } == [1, 2, 1])
  }

  @Test func aRepeatedInputThatFailsEndsTheCombinedFuture() {
    let repeated = Futures.Promise<Int>()
    let combined = combineFutures(repeated.future, repeated.future)
    repeated.completeWithFail(TestError(code: 3))
    #expect(describe(combined.result) == describe(FutureResult<Int>.fail(TestError(code: 3))))
  }

  @Test func aBatchFutureRequestReachesARepeatedInputOnce() {
    let producer = RecordingProducer<Int>()
    let batch = FutureBatchOf([producer.future, producer.future, producer.future])
    batch.future.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    producer.promise.completeWithSuccess(4)
    #expect(batch.future.value == [4, 4, 4])
    #expect(batch.resultsFuture.value?.count == 3)
  }
}
