import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

@Suite("Futures: combinators and timers")
struct CombinatorTests {
  @Test func combineFuturesSucceedsWithEveryValueInOrder() {
    let a = Futures.Promise<Int>()
    let b = Futures.Promise<String>()
    let pair = combineFutures(a.future, b.future)
    b.completeWithSuccess("b")
    #expect(!pair.isCompleted)
    a.completeWithSuccess(1)
    #expect(pair.value?.0 == 1)
    #expect(pair.value?.1 == "b")
    let five = combineFutures(
      Future(success: 1), Future(success: "2"), Future(success: 3.0), Future(success: true), Future(success: 5))
    #expect(five.value.map { "\($0)" } == "(1, \"2\", 3.0, true, 5)")
    let three = combineFutures(Future(success: 1), Future(success: 2), Future(success: 3))
    #expect(three.value.map { $0.0 + $0.1 + $0.2 } == 6)
    let four = combineFutures(Future(success: 1), Future(success: 2), Future(success: 3), Future(success: 4))
    #expect(four.value.map { $0.0 + $0.1 + $0.2 + $0.3 } == 10)
  }

  @Test func combineFuturesEndsWithTheFirstFailureOrCancellationAtOnce() {
    let a = Futures.Promise<Int>()
    let b = Futures.Promise<Int>()
    let pair = combineFutures(a.future, b.future)
    b.completeWithFail(TestError(code: 5))
    #expect(pair.error as? TestError == TestError(code: 5))
    let c = Futures.Promise<Int>()
    let cancelled = combineFutures(c.future, Future(success: 1))
    c.completeWithCancel()
    #expect(cancelled.result?.isCancelled == true)
  }

  @Test func aRequestOnCombineFuturesReachesEveryInput() {
    let a = RecordingProducer<Int>(answer: .complete(.cancelled))
    let b = RecordingProducer<Int>(answer: .complete(.cancelled))
    let pair = combineFutures(a.future, b.future)
    pair.getCancelToken().cancel()
    #expect(a.requests.values == [[]])
    #expect(b.requests.values == [[]])
    #expect(pair.result?.isCancelled == true)
  }

  @Test func aRequestOnCombineFuturesLeavesASharedInputRunning() {
    let a = RecordingProducer<Int>()
    let b = RecordingProducer<Int>()
    let other = b.future.map(.immediate) { $0 }
    let pair = combineFutures(a.future, b.future)
    pair.getCancelToken().cancel()
    #expect(a.requests.values == [[]])
    #expect(b.requests.values.isEmpty)
    #expect(pair.result?.isCancelled == true)
    b.promise.completeWithSuccess(2)
    #expect(other.value == 2)
  }

  // Found by the independent review of issue 26: a shared first input ended the combined future
  // and cut its other inputs off from the request.
  @Test func aRequestOnCombineFuturesReachesTheInputsAfterASharedOne() {
    let shared = RecordingProducer<Int>()
    let own = RecordingProducer<Int>(answer: .complete(.cancelled))
    let other = shared.future.map(.immediate) { $0 }
    let pair = combineFutures(shared.future, own.future)
    pair.getCancelToken().cancel()
    #expect(shared.requests.values.isEmpty)
    #expect(own.requests.values == [[]])
    #expect(own.future.result?.isCancelled == true)
    #expect(pair.result?.isCancelled == true)
    shared.promise.completeWithSuccess(2)
    #expect(other.value == 2)
  }

  @Test func aRequestOnCombineFuturesOfAFutureAndItsOwnStageReachesTheProducer() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let stage = producer.future.map(.immediate) { $0 }
    let pair = combineFutures(producer.future, stage)
    pair.getCancelToken().cancel()
    // Nothing else waits on the producer once the combined future is gone from it: the stage's
    // request, arriving second, reaches it.
    #expect(producer.requests.values == [[]])
    #expect(stage.result?.isCancelled == true)
    #expect(pair.result?.isCancelled == true)
  }

  @Test func aRequestOnAStageOfCombineFuturesReachesTheInputsAfterASharedOne() {
    let shared = RecordingProducer<Int>()
    let first = RecordingProducer<Int>(answer: .complete(.cancelled))
    let last = RecordingProducer<Int>(answer: .complete(.cancelled))
    let other = shared.future.map(.immediate) { $0 }
    let tail = combineFutures(shared.future, first.future, last.future).map(.immediate) { $0.1 }
    tail.getCancelToken().cancel()
    #expect(first.requests.values == [[]] && last.requests.values == [[]])
    #expect(shared.requests.values.isEmpty)
    #expect(tail.result?.isCancelled == true)
    shared.promise.completeWithSuccess(2)
    #expect(other.value == 2)
  }

  @Test func batchReportsValuesResultsAndTheFirstFailure() {
    let inputs = (0..<4).map { _ in Futures.Promise<Int>() }
    let batch = FutureBatchOf(inputs.map(\.future))
    for (index, promise) in inputs.enumerated().reversed() { promise.completeWithSuccess(index) }
    #expect(batch.future.value == [0, 1, 2, 3])
    #expect(batch.resultsFuture.value?.map { $0.value } == [0, 1, 2, 3])

    let failing = (0..<3).map { _ in Futures.Promise<Int>() }
    let failingBatch = FutureBatchOf(futures: failing.map(\.future))
    failing[1].completeWithFail(TestError(code: 1))
    #expect(failingBatch.future.error as? TestError == TestError(code: 1))
    #expect(!failingBatch.resultsFuture.isCompleted)
    failing[0].completeWithSuccess(0)
    failing[2].completeWithCancel()
    #expect(
      failingBatch.resultsFuture.value.map { $0.map(describe) } == [
        "success(0)", "fail(TestError(code: 1))", "cancelled",
      ])

    let empty = FutureBatchOf<Int>([])
    #expect(empty.future.value == [])
    #expect(empty.subFutures.isEmpty)
  }

  @Test func aRequestOnABatchReachesEveryPendingInput() {
    let inputs = (0..<3).map { _ in RecordingProducer<Int>(answer: .complete(.cancelled)) }
    inputs[0].promise.completeWithSuccess(0)
    let batch = FutureBatchOf(inputs.map(\.future))
    batch.future.getCancelToken().cancel()
    #expect(inputs.map { $0.requests.values.count } == [0, 1, 1])
    #expect(batch.future.result?.isCancelled == true)
    #expect(batch.resultsFuture.value.map { $0.map(describe) } == ["success(0)", "cancelled", "cancelled"])

    let more = (0..<2).map { _ in RecordingProducer<Int>(answer: .complete(.cancelled)) }
    let second = FutureBatchOf(more.map(\.future))
    second.cancel()
    #expect(more.map { $0.requests.values.count } == [1, 1])
    #expect(second.resultsFuture.isCompleted)
  }

  @Test func heterogeneousBatch() {
    let number = Futures.Promise<Int>()
    let text = RecordingProducer<String>(answer: .complete(.cancelled))
    let batch = FutureBatch([number.future, text.future])
    #expect(batch.subFutures.count == 2)
    number.completeWithSuccess(1)
    #expect(!batch.future.isCompleted)
    batch.cancel()
    #expect(text.requests.values == [[]])
    #expect(batch.future.result?.isCancelled == true)
    #expect(batch.resultsFuture.value.map { $0.map(describe) } == ["success(1)", "cancelled"])

    let done = FutureBatch([Future(success: 1), Future(success: "a")])
    #expect(done.future.value.map { "\($0)" } == "[1, \"a\"]")
  }

  @Test func afterDelaySucceedsWhenTheTimeHasPassed() {
    let time = ManualDeadlineScheduler()
    let future = Future(afterDelay: 2, success: "done", scheduler: time)
    time.advance(by: .seconds(1))
    #expect(!future.isCompleted)
    time.advance(by: .seconds(1))
    #expect(future.value == "done")
    #expect(time.pendingCount == 0)
  }

  @Test func aRequestStopsTheTimerAndCancelsTheFuture() {
    let time = ManualDeadlineScheduler()
    let future = Future(afterDelay: 2, success: 1, scheduler: time)
    let tail = future.map(.immediate) { $0 + 1 }
    #expect(time.pendingCount == 1)
    tail.getCancelToken().cancel()
    #expect(time.pendingCount == 0)
    #expect(future.result?.isCancelled == true)
    #expect(tail.result?.isCancelled == true)
    time.advance(by: .seconds(5))
    #expect(future.result?.isCancelled == true)
  }

  @Test func afterDelayOnRealTime() async {
    let future = Future(afterDelay: 0.01, success: 7)
    #expect(await future.completion().value == 7)
  }
}

@Suite("Futures: no block or handler runs under a lock")
struct ReentrancyTests {
  @Test func aHandlerCompletingThePromiseSynchronouslyOnImmediateDoesNotDeadlock() {
    let promise = Futures.Promise<Int>()
    promise.onRequestCancel(.immediate) { _ in
      promise.completeWithSuccess(5)  // the producer completes from inside its own handler
      #expect(promise.future.value == 5)
      return .complete(.cancelled)
    }
    let tail = promise.future.onComplete(.immediate) { (result: FutureResult<Int>) -> Completion<Int> in
      // Re-enter the completed future from its own callback.
      #expect(promise.future.isCompleted)
      promise.future.onSuccess(.immediate) { _ in }
      promise.future.getCancelToken().cancel()
      return Completion(result)
    }
    tail.getCancelToken().cancel()
    #expect(tail.value == 5)
  }

  @Test func aHandlerCompletingThePromiseSynchronouslyOnMainDoesNotDeadlock() async {
    let promise = Futures.Promise<Int>()
    promise.onRequestCancel(.main) { _ in
      promise.completeWithCancel()
      return .continue
    }
    let tail = promise.future.onComplete(.main) { (result: FutureResult<Int>) -> Completion<Int> in
      promise.future.getCancelToken().cancel()
      return Completion(result)
    }
    DispatchQueue.global().async { tail.getCancelToken().cancel() }
    #expect(await tail.completion().isCancelled)
  }

  @Test func aBlockMayCancelTheFutureItProduces() {
    let promise = Futures.Promise<Int>()
    promise.automaticallyCancelOnRequestCancel()
    let tokens = Recorder<CancelToken>()
    let tail = promise.future.onComplete(.immediate) { (result: FutureResult<Int>) -> Completion<Int> in
      tokens.values.first?.cancel([.forceThisFutureToBeCancelledImmediately])
      return Completion(result)
    }
    tokens.record(tail.getCancelToken())
    promise.completeWithSuccess(1)
    #expect(tail.result?.isCancelled == true)
  }
}

@Suite("Futures: bad input")
struct FutureBadInputTests {
  @Test func aFutureAfterAnInfiniteDelayNeverCompletesAndCanBeCancelled() {
    let time = ManualDeadlineScheduler()
    for delay in [TimeInterval.infinity, 1e300] {
      let future = Future(afterDelay: delay, success: 1, scheduler: time)
      time.advance(by: .seconds(1_000_000))
      #expect(!future.isCompleted)
      future.getCancelToken().cancel()
      #expect(future.result?.isCancelled == true)
      #expect(time.pendingCount == 0)
    }
  }

  @Test func aFutureAfterANaNOrNegativeDelayCompletesNow() {
    let time = ManualDeadlineScheduler()
    for delay in [TimeInterval.nan, -1, -TimeInterval.infinity] {
      let future = Future(afterDelay: delay, success: 1, scheduler: time)
      time.advance(by: .zero)
      #expect(future.value == 1, "\(delay) counts as no delay")
    }
  }
}
