import Adapters
import Futures
import Promises
import TestSupport
import Testing
import Tokens

@Suite("Facade to facade")
struct FacadeConversionTests {
  struct Broken: Error {}

  /// A producer that records requests and answers them by completing `.cancelled`.
  static func cancellableProducer() -> (Futures.Promise<Int>, Counter) {
    let producer = Futures.Promise<Int>()
    let requests = Counter()
    producer.onRequestCancel(.immediate) { _ in
      requests.increment()
      return .complete(.cancelled)
    }
    return (producer, requests)
  }

  // MARK: Future → CancellablePromise

  @Test func aFutureAsACancellablePromiseResolvesLikeIt() async throws {
    let producer = Futures.Promise<Int>()
    let promise = producer.future.asCancellablePromise()
    producer.completeWithSuccess(8)
    #expect(try await promise.async() == 8)
    await #expect(throws: Broken.self) { try await Future<Int>(fail: Broken()).asCancellablePromise().async() }
    await #expect(throws: PMKError.self) { try await Future<Int>(cancelled: ()).asCancellablePromise().async() }
  }

  @Test func cancellingThePromiseRequestsTheFuturesCancellation() {
    let (producer, requests) = Self.cancellableProducer()
    let promise = producer.future.asCancellablePromise()
    promise.cancel()
    #expect(promise.isRejected, "a cancellable promise rejects at once")
    #expect(requests.value == 1)
    #expect(producer.future.result?.isCancelled == true)
  }

  @Test func cancellingThePromiseLeavesASharedFutureRunningForItsOtherConsumers() {
    let (producer, requests) = Self.cancellableProducer()
    let other = producer.future.map(.immediate) { $0 + 1 }
    let promise = producer.future.asCancellablePromise()
    promise.cancel()
    #expect(promise.isRejected)
    #expect(requests.value == 0)
    producer.completeWithSuccess(1)
    #expect(other.value == 2)
  }

  // MARK: CancellablePromise → Future

  @Test func aCancellablePromiseAsAFutureCompletesLikeIt() {
    let (promise, resolver) = CancellablePromise<Int>.pending()
    let future = promise.asFuture()
    resolver.fulfill(4)
    #expect(future.value == 4)
    let failing = CancellablePromise<Int>(error: Broken()).asFuture()
    #expect(failing.error is Broken)
  }

  @Test func aRequestOnTheFutureCancelsTheChain() {
    let task = RecordingTask()
    let (root, _) = CancellablePromise<Int>.pending()
    root.appendCancellableTask(task, reject: nil)
    let future = root.map(on: nil) { $0 * 2 }.asFuture()
    future.getCancelToken().cancel()
    #expect(task.cancels.value == 1)
    #expect(root.isRejected)
    #expect(future.result?.isCancelled == true, "a cancelled chain is a cancelled future, not a failed one")
  }

  @Test func aChainCancelledFromThePromiseSideCancelsTheFuture() {
    let (promise, _) = CancellablePromise<Int>.pending()
    let future = promise.asFuture()
    promise.cancel()
    #expect(future.result?.isCancelled == true)
  }

  // MARK: Tokens ↔ promises

  @Test func aTokensCancelPromiseRejectsWithTheReasonOrFulfilsWhenTheRequestEnds() async throws {
    let cancelled = CancellationRequest()
    let rejects = cancelled.token.asCancelPromise()
    cancelled.cancel(reason: Broken())
    await #expect(throws: Broken.self) { try await rejects.async() }

    var ending: CancellationRequest? = CancellationRequest()
    let fulfils = ending!.token.asCancelPromise()
    ending = nil
    try await fulfils.async()
    #expect(fulfils.isFulfilled)
  }

  @Test func aTokenOfAContextIsCancelledWithTheChainsError() {
    let (promise, _) = CancellablePromise<Int>.pending()
    let token = CancellationToken(promise.cancelContext)
    #expect(!token.isCancelled)
    promise.map(on: nil) { $0 }.cancel()
    #expect(token.isCancelled)
    #expect((token.reason as? PMKError)?.isCancelled == true)
  }

  @Test func aTokenOfAContextCompletesNotCancelledOnceTheChainIsGone() {
    var token: CancellationToken?
    do {
      let chain = Promise.value(1).cancellize().map(on: nil) { $0 + 1 }
      token = CancellationToken(chain.cancelContext)
      #expect(chain.value == 2)
    }
    let completions = Counter()
    token?.onComplete { cancelled in
      #expect(!cancelled)
      completions.increment()
    }
    #expect(token?.isCompleted == true && token?.isCancelled == false)
    #expect(completions.value == 1)
  }

  // MARK: One token stops every style

  @Test func oneTokenStopsAPromiseChainAFutureAndATask() async {
    let request = CancellationRequest()
    let (chain, _) = CancellablePromise<Int>.pending()
    let (producer, requests) = Self.cancellableProducer()
    let futureRequest = producer.future.getCancelToken()
    let task = Task { try await suspendUntilCancelled() }
    request.token.register(cancelable: chain)
    request.token.register(cancelable: futureRequest)
    request.token.register(cancelable: task)
    request.cancel()
    #expect(chain.isRejected && chain.cancelAttempted)
    #expect(requests.value == 1 && producer.future.result?.isCancelled == true)
    await #expect(throws: CancellationError.self) { try await task.value }
  }

  @Test func aTokenRequestsARegisteredFutureWithTheGivenOptions() {
    let request = CancellationRequest()
    let (producer, requests) = Self.cancellableProducer()
    let shared = producer.future
    let other = shared.map(.immediate) { $0 }
    request.token.register(future: shared.map(.immediate) { $0 }, options: .forceThisFutureToBeCancelledImmediately)
    let branch = shared.map(.immediate) { $0 }
    request.token.register(future: branch)
    request.cancel()
    #expect(branch.result?.isCancelled == true, "the branch is requested though nothing holds a CancelToken")
    #expect(requests.value == 0, "another consumer still wants the shared future")
    producer.completeWithSuccess(3)
    #expect(other.value == 3)
  }

  @Test func aFutureNobodyHoldsIsSkipped() {
    let request = CancellationRequest()
    weak var released: Future<Int>?
    do {
      let future = Futures.Promise<Int>().future
      released = future
      request.token.register(future: future)
    }
    #expect(released == nil, "the registration must not keep the future alive")
    request.cancel()
  }

  // MARK: Future from an async operation

  @Test func aFutureOfAnAsyncOperationCompletesWithItsOutcome() async throws {
    #expect(try await Future { 6 * 7 }.async() == 42)
    await #expect(throws: Broken.self) { try await Future<Int> { throw Broken() }.async() }
  }

  @Test func aCancelRequestCancelsTheOperationsTaskAndTheFutureEndsCancelled() async {
    let future = Future<Int> {
      try await suspendUntilCancelled()
      return 1
    }
    future.getCancelToken().cancel()
    let result = await future.outcome()
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(future.result?.isCancelled == true)
  }

  @Test func anOperationThatFinishesDespiteTheRequestKeepsItsValue() async throws {
    let gate = Futures.Promise<Void>()
    let future = Future<Int> {
      try await gate.future.async()
      return 5  // ignores its cancellation
    }
    future.getCancelToken().cancel()
    gate.completeWithSuccess(())
    #expect(try await future.outcome().get() == 5)
  }
}
