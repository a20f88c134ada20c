import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Futures: cancel requests reach the producer")
struct RequestTests {
  @Test func continueLeavesTheFuturePendingUntilTheProducerCompletes() {
    let producer = RecordingProducer<Int>(answer: .continue)
    #expect(!producer.promise.isCancellationRequested)
    producer.future.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(producer.promise.isCancellationRequested)
    #expect(!producer.future.isCompleted)
    producer.promise.completeWithCancel()
    #expect(producer.future.result?.isCancelled == true)
    #expect(producer.promise.isCancellationRequested)
  }

  @Test func completeAnswerCompletesTheFuture() {
    let producer = RecordingProducer<Int>(answer: .complete(.success(42)))
    producer.future.getCancelToken().cancel()
    #expect(producer.future.value == 42)
  }

  @Test func completeAnswerIsAppliedEvenIfThePromiseWasReleased() {
    weak var weakPromise: Futures.Promise<Int>?
    let future: Future<Int> = {
      let promise = Futures.Promise<Int>()
      promise.onRequestCancel(.immediate) { _ in .complete(.cancelled) }
      weakPromise = promise
      return promise.future
    }()
    #expect(weakPromise == nil)
    future.getCancelToken().cancel()
    #expect(future.result?.isCancelled == true)
  }

  @Test func automaticallyCancelCompletesCancelledOnRequest() {
    let promise = Futures.Promise<String>()
    promise.automaticallyCancelOnRequestCancel()
    let token = promise.future.getCancelToken()
    #expect(token.cancelCanBeRequested)
    token.cancel()
    #expect(promise.future.result?.isCancelled == true)
    #expect(!token.cancelCanBeRequested)
  }

  @Test func aRequestBeforeTheHandlerRegistersIsDeliveredWhenItRegisters() {
    let promise = Futures.Promise<Int>()
    promise.future.getCancelToken().cancel([.doNotForwardRequest])
    #expect(promise.isCancellationRequested)
    #expect(!promise.future.isCompleted)
    let seen = Recorder<CancellationOptions>()
    promise.onRequestCancel(.immediate) { options in
      seen.record(options)
      return .continue
    }
    #expect(seen.values == [.doNotForwardRequest])
    promise.automaticallyCancelOnRequestCancel()
    #expect(promise.future.result?.isCancelled == true)
  }

  @Test func handlersRunInRegistrationOrderAndTheFirstCompleteWins() {
    let promise = Futures.Promise<Int>()
    let order = Recorder<Int>()
    promise.onRequestCancel(.immediate) { _ in
      order.record(1)
      return .continue
    }
    promise.onRequestCancel(.immediate) { _ in
      order.record(2)
      return .complete(.success(2))
    }
    promise.onRequestCancel(.immediate) { _ in
      order.record(3)
      return .complete(.success(3))
    }
    promise.future.getCancelToken().cancel()
    #expect(order.values == [1, 2, 3])
    #expect(promise.future.value == 2)
  }

  @Test func requestsAfterCompletionChangeNothing() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let token = producer.future.getCancelToken()
    producer.promise.completeWithSuccess(1)
    #expect(!token.cancelCanBeRequested)
    token.cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(producer.future.value == 1)
    #expect(producer.requests.values.isEmpty)
    #expect(!producer.promise.isCancellationRequested)
  }

  @Test func eachTokenRequestsAtMostOnce() {
    let producer = RecordingProducer<Int>()
    let token = producer.future.getCancelToken()
    token.cancel()
    token.cancel()
    token.cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(producer.requests.values.count == 1)
    #expect(!producer.future.isCompleted)
    // Another token still requests (forced, it completes the future).
    producer.future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately])
    #expect(producer.future.result?.isCancelled == true)
  }

  @Test func aTokenIsACoreCancellable() {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let cancellable: any Cancellable = producer.future.getCancelToken()
    cancellable.cancel()
    #expect(producer.future.result?.isCancelled == true)
  }

  @Test func handlersAreReleasedOnceTheFutureCompletes() {
    let promise = Futures.Promise<Int>()
    weak var weakCaptured: Tracked?
    do {
      let captured = Tracked()
      weakCaptured = captured
      promise.onRequestCancel(.immediate) { _ in
        _ = captured
        return .continue
      }
    }
    #expect(weakCaptured != nil)
    promise.completeWithSuccess(1)
    #expect(weakCaptured == nil)
    promise.onRequestCancel(.immediate) { _ in .continue }
  }

  @Test func pollingProducerSeesTheRequest() async {
    let promise = Futures.Promise<Int>()
    Thread {
      // A producer doing its work step by step, checking for a request between steps. Each
      // "step" yields the CPU: a bare spin would starve the threads of a loaded test run,
      // including the one that makes the request.
      while !promise.isCancellationRequested { sched_yield() }
      promise.completeWithCancel()
    }.start()
    // Requested from here, with no suspension between starting the producer and the request: the
    // request does not wait for a cooperative thread, which a parallel run may keep busy.
    promise.future.getCancelToken().cancel()
    #expect(await promise.future.completion().isCancelled)
  }
}
