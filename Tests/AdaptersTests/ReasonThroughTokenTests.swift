import Adapters
import CancelCore
import Futures
import Promises
import TestSupport
import Testing
import Tokens

/// Work cancelled through a token receives the token's reason wherever its facade can carry one.
@Suite("Adapters: a token's reason reaches what it cancels")
struct ReasonThroughTokenTests {
  @Test func aCancellablePromiseRegisteredOnATimeoutRejectsWithTheTimeout() {
    let time = ManualDeadlineScheduler()
    let request = CancellationRequest(timeout: .seconds(5), scheduler: time)
    let (promise, _) = CancellablePromise<Int>.pending()
    let tail = promise.map(on: nil) { $0 + 1 }
    let caught = Counter()
    tail.catch(on: nil) { _ in caught.increment() }
    let registration = request.token.register(cancelable: promise)
    time.advance(by: .seconds(5))
    #expect(tail.error is TimeoutError, "the chain rejects with the token's reason")
    #expect(tail.error?.isCancellation == true)
    #expect(tail.cancelledError is TimeoutError)
    #expect(caught.value == 0, "the default catch policy skips it as a cancellation")
    _ = registration
  }

  @Test func aChainRegisteredOnATokenRejectsWithTheTokensOwnReason() {
    let request = CancellationRequest()
    let (promise, _) = CancellablePromise<Int>.pending()
    let finalizer = promise.catch(on: nil) { _ in }
    request.token.register(cancelable: promise)
    request.cancel(reason: TestReason())
    #expect(promise.error is TestReason)
    #expect(finalizer.cancelAttempted)
  }

  @Test func aRequestOrSourceRegisteredOnATokenGetsItsReason() {
    let request = CancellationRequest()
    let other = CancellationRequest()
    let source = CancelSource()
    request.token.register(cancelable: other)
    request.token.register(cancelable: source)
    request.cancel(reason: TestReason())
    #expect(other.token.reason is TestReason)
    #expect(source.signal.reason is TestReason)
  }

  @Test func aFutureRegisteredOnATokenIsCancelledWithoutAReason() {
    let request = CancellationRequest()
    let producer = Futures.Promise<Int>()
    producer.automaticallyCancelOnRequestCancel()
    let future = producer.future
    request.token.register(future: future)
    request.cancel(reason: TestReason())
    #expect(future.result?.isCancelled == true, "a future's cancelled state carries no reason")
  }
}

private struct TestReason: Error {}

@Suite("Adapters: a chain's reason reaches the work it stops")
struct WorkReasonTests {
  @Test func cancellingAWorksPromiseStopsTheWorkWithTheChainsReason() {
    let seen = Recorder<String>()
    let work = CancellableWork<Int> { signal, completion in
      signal.onCancel { (reason: any Error) in
        seen.record(String(describing: type(of: reason)))
        completion(.failure(reason))
      }
    }
    let promise = work.promise()
    let time = ManualDeadlineScheduler()
    let request = CancellationRequest(timeout: .seconds(1), scheduler: time)
    request.token.register(cancelable: promise)
    time.advance(by: .seconds(1))
    #expect(seen.values == ["TimeoutError"], "the work was stopped with the token's reason")
    #expect(promise.error is TimeoutError)
  }
}
