import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

@Suite("Futures: hand-overs never close a cycle, and a handler's hand-over replaces the old one")
struct HandOverTests {
  @Test func aHandOverThatClosesACycleFailsBothFuturesWithACycleError() {
    let a = Futures.Promise<Int>()
    let b = Futures.Promise<Int>()
    let handlerRuns = Counter()
    a.onRequestCancel(.immediate) { _ in
      handlerRuns.increment()
      return .continue
    }
    a.completeUsingFuture(b.future)
    #expect(b.tryComplete(.completeUsing(a.future)))
    #expect(isCycleError(b.future.result))
    #expect(isCycleError(a.future.result))
    a.future.getCancelToken().cancel()  // returns: both futures already ended
    #expect(handlerRuns.value == 0)
  }

  @Test func aFutureHandedItsOwnDerivedStageFailsWithACycleError() {
    let p = Futures.Promise<Int>()
    let stage = p.future.map(.immediate) { $0 }
    p.completeUsingFuture(stage)
    #expect(isCycleError(p.future.result))
    #expect(isCycleError(stage.result))
    stage.getCancelToken().cancel()
  }

  @Test func aFutureHandedItselfFailsWithACycleError() {
    let p = Futures.Promise<Int>()
    p.completeUsingFuture(p.future)
    #expect(isCycleError(p.future.result))
  }

  @Test func aLongerCycleThroughACombinatorIsRefusedToo() {
    let a = Futures.Promise<Int>()
    let b = Futures.Promise<Int>()
    let combined = combineFutures(a.future, b.future)
    a.completeUsingFuture(combined.map(.immediate) { $0.0 })
    #expect(isCycleError(a.future.result))
    #expect(isCycleError(combined.result))
  }

  @Test func aHandlerAnsweringWithACycleFailsTheFuture() {
    let a = Futures.Promise<Int>()
    let downstream = Recorder<Future<Int>>()
    a.onRequestCancel(.immediate) { _ in .complete(.completeUsing(downstream.values[0])) }
    downstream.record(a.future.map(.immediate) { $0 })
    downstream.values[0].getCancelToken().cancel()
    #expect(isCycleError(a.future.result))
  }

  @Test func aRequestOnAChainOfHandOversVisitsEachFutureOnce() {
    let promises = (0..<5).map { _ in Futures.Promise<Int>() }
    let runs = (0..<5).map { _ in Counter() }
    for (promise, count) in zip(promises, runs) {
      promise.onRequestCancel(.immediate) { _ in
        count.increment()
        return .continue
      }
    }
    for index in 0..<4 { promises[index].completeUsingFuture(promises[index + 1].future) }
    promises[0].future.getCancelToken().cancel()
    #expect(runs.map(\.value) == [1, 1, 1, 1, 1])
    promises[4].completeWithSuccess(7)
    #expect(promises.map { $0.future.value } == [7, 7, 7, 7, 7])
  }

  @Test func aRequestOnACycleTooLongToBeRefusedVisitsEachFutureOnce() {
    let promises = (0..<100).map { _ in Futures.Promise<Int>() }
    let runs = (0..<100).map { _ in Counter() }
    for (promise, count) in zip(promises, runs) {
      promise.onRequestCancel(.immediate) { _ in
        count.increment()
        return .continue
      }
    }
    for index in 0..<100 { promises[index].completeUsingFuture(promises[(index + 1) % 100].future) }
    promises[0].future.getCancelToken().cancel()
    #expect(runs.allSatisfy { $0.value == 1 })
    promises[50].future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(promises.allSatisfy { $0.future.result?.isCancelled == true })
  }

  @Test func racingHandOversThatCloseACycleEndBothFutures() {
    race(
      iterations: Stress.iterations(300, minimum: 100),
      setup: { (Futures.Promise<Int>(), Futures.Promise<Int>()) },
      { pair in pair.0.completeUsingFuture(pair.1.future) },
      { pair in pair.1.completeUsingFuture(pair.0.future) },
      check: { pair in
        #expect(isCycleError(pair.0.future.result))
        #expect(isCycleError(pair.1.future.result))
        pair.0.future.getCancelToken().cancel()
      })
  }

  @Test func aHandlersHandOverReplacesTheEarlierOne() {
    let a = Futures.Promise<Int>()
    let b = RecordingProducer<Int>()
    let c = RecordingProducer<Int>()
    a.completeUsingFuture(b.future)
    a.onRequestCancel(.immediate) { _ in .complete(.completeUsing(c.future)) }
    a.future.getCancelToken().cancel()
    #expect(c.requests.values == [[]])
    b.promise.completeWithSuccess(1)
    #expect(a.future.result == nil)
    c.promise.completeWithSuccess(2)
    #expect(a.future.value == 2)
  }

  @Test func aHandlersLaterHandOverReplacesTheEarlierOne() async {
    let a = Futures.Promise<Int>()
    let b = RecordingProducer<Int>()
    let c = RecordingProducer<Int>()
    a.completeUsingFuture(b.future)
    let queue = DispatchQueue(label: "handler")
    a.onRequestCancel(.queue(queue)) { _ in .complete(.completeUsing(c.future)) }
    queue.suspend()  // the handler answers after the request went on to `b`
    a.future.getCancelToken().cancel()
    queue.resume()
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(b.requests.values == [[]])
    #expect(c.requests.values == [[]])
    b.promise.completeWithSuccess(1)
    #expect(a.future.result == nil)
    c.promise.completeWithSuccess(2)
    #expect(a.future.value == 2)
  }
}

/// Whether `result` is a failure with ``CompletionCycleError``.
private func isCycleError<T>(_ result: FutureResult<T>?) -> Bool {
  guard case .fail(let error)? = result else { return false }
  return error is CompletionCycleError
}
