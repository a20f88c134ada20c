import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Promises

@Suite("Promise, Guarantee, Resolver")
struct PromiseTests {
  @Test func valueAndErrorInitializersAreResolved() {
    let fulfilled = Promise.value(3)
    #expect(fulfilled.value == 3)
    #expect(fulfilled.isFulfilled && fulfilled.isResolved && !fulfilled.isPending && !fulfilled.isRejected)
    let rejected = Promise<Int>(error: TestError(id: 1))
    #expect(rejected.error as? TestError == TestError(id: 1))
    #expect(rejected.isRejected && !rejected.isFulfilled && rejected.value == nil)
    #expect(Promise<Void>().isFulfilled)
    #expect(Guarantee.value("a").value == "a")
    #expect(Guarantee<Void>().value != nil)
  }

  @Test func pendingPromiseResolvesThroughItsResolver() {
    let (promise, resolver) = Promise<Int>.pending()
    #expect(promise.isPending && promise.result == nil && promise.value == nil && promise.error == nil)
    resolver.fulfill(7)
    #expect(promise.value == 7)
  }

  @Test func resolvingTwiceKeepsTheFirstResolution() {
    let (promise, resolver) = Promise<Int>.pending()
    let seen = Recorder<Int>()
    promise.done(on: nil) { seen.record($0) }.cauterize()
    resolver.fulfill(1)
    resolver.fulfill(2)
    resolver.reject(TestError())
    resolver.resolve(.success(3))
    #expect(promise.value == 1)
    #expect(seen.values == [1])

    let (guarantee, resolve) = Guarantee<Int>.pending()
    resolve(1)
    resolve(2)
    #expect(guarantee.value == 1)
  }

  @Test func resolverCompletionHandlerForms() {
    let (a, ra) = Promise<Int>.pending()
    ra.resolve(5, nil)
    #expect(a.value == 5)
    let (b, rb) = Promise<Int>.pending()
    rb.resolve(5, TestError(id: 2))
    #expect(b.error as? TestError == TestError(id: 2))
    let (c, rc) = Promise<Int>.pending()
    rc.resolve(nil as Int?, nil)
    guard case PMKError.invalidCallingConvention? = c.error else {
      Issue.record("expected invalidCallingConvention")
      return
    }
    let (d, rd) = Promise<Void>.pending()
    rd.resolve(nil)
    #expect(d.isFulfilled)
    let (e, re) = Promise<Void>.pending()
    re.resolve(TestError())
    #expect(e.isRejected)
    let (f, rf) = Promise<Void>.pending()
    rf.fulfill()
    #expect(f.isFulfilled)
  }

  @Test func initResolverRunsBodyAtOnceAndRejectsWhenItThrows() {
    let ran = Counter()
    let promise = Promise<Int> { resolver in
      ran.increment()
      resolver.fulfill(1)
    }
    #expect(ran.value == 1)
    #expect(promise.value == 1)
    let thrown = Promise<Int> { _ in throw TestError(id: 9) }
    #expect(thrown.error as? TestError == TestError(id: 9))
    let guarantee = Guarantee<Int> { resolve in resolve(4) }
    #expect(guarantee.value == 4)
  }

  @Test func handlersRunInRegistrationOrderOnTheResolvingThread() async {
    let (promise, resolver) = Promise<Int>.pending()
    let order = Recorder<Int>()
    let threads = Recorder<UInt>()
    for index in 0..<5 {
      promise.done(on: nil) { _ in
        order.record(index)
        threads.record(currentThreadID())
      }.cauterize()
    }
    let resolvingThread: UInt = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        resolver.fulfill(1)
        continuation.resume(returning: currentThreadID())
      }
    }
    #expect(order.values == [0, 1, 2, 3, 4])
    #expect(threads.values == Array(repeating: resolvingThread, count: 5))
  }

  @Test func aHandlerAddedAfterResolutionStillRunsOnItsQueue() async {
    let promise = Promise.value(2)
    let queue = QueueProbe.make("late")
    let label: String? = await withCheckedContinuation { continuation in
      promise.done(on: queue) { _ in continuation.resume(returning: QueueProbe.label) }.cauterize()
    }
    #expect(label == "late")
    // With `on: nil` it runs at once, on this thread, before `done` returns.
    let ran = Counter()
    promise.done(on: nil) { _ in ran.increment() }.cauterize()
    #expect(ran.value == 1)
  }

  @Test func defaultQueueIsMainAsInPromiseKit() async {
    #expect(conf.Q.map?.label == DispatchQueue.main.label)
    #expect(conf.Q.return?.label == DispatchQueue.main.label)
    #expect(conf.catchPolicy == .allErrorsExceptCancellation)
    // Swift Testing drains the main queue (on Linux from a worker thread after `dispatchMain()`),
    // so ask the queue, not the thread.
    let label: String? = await withCheckedContinuation { continuation in
      Promise.value(1).map { _ in 1 }.done { _ in continuation.resume(returning: QueueProbe.mainLabel) }.cauterize()
    }
    #expect(label == "main")
  }

  @Test func flagsAreAcceptedOnAQueue() async {
    let queue = QueueProbe.make("flags")
    let label: String? = await withCheckedContinuation { continuation in
      Promise.value(1).map(on: queue, flags: .barrier) { _ in QueueProbe.label }.done(on: nil) {
        continuation.resume(returning: $0)
      }.cauterize()
    }
    #expect(label == "flags")
  }

  @Test func waitBlocksUntilResolvedFromAnotherThread() throws {
    let (promise, resolver) = Promise<Int>.pending()
    DispatchQueue.global().async { resolver.fulfill(42) }
    #expect(try promise.wait() == 42)
    let (failing, failingResolver) = Promise<Int>.pending()
    DispatchQueue.global().async { failingResolver.reject(TestError(id: 3)) }
    #expect(throws: TestError(id: 3)) { try failing.wait() }
    let (guarantee, resolve) = Guarantee<String>.pending()
    DispatchQueue.global().async { resolve("g") }
    #expect(guarantee.wait() == "g")
  }

  @Test func waitOnAChainWhoseHandlersRunOnTheMainQueueDoesNotDeadlockOffMain() {
    #expect(!Thread.isMainThread)
    let chained = after(.milliseconds(1)).map { 5 }.map { $0 + 1 }
    #expect(chained.wait() == 6)
  }

  @Test func aDeallocatedPendingPromiseIsTheOnlyOneThatWarns() {
    #expect(Promise<Int>.pending().promise.warnsIfPending)
    #expect(Promise<Int> { _ in }.warnsIfPending)
    #expect(Guarantee<Int>.pending().guarantee.warnsIfPending)
    #expect(!Promise.value(1).map(on: nil) { $0 }.warnsIfPending)
    #expect(!after(seconds: 100).warnsIfPending)
  }

  @Test func descriptionsUsePromiseKitsFormat() {
    #expect(Promise.value(1).description == "Promise(1)")
    #expect(Promise<Int>.pending().promise.description == "Promise(…Int)")
    #expect(Promise<Int>(error: TestError(id: 2)).description == "Promise(TestError(id: 2))")
    #expect(Guarantee.value(1).description == "Guarantee(1)")
    #expect(Guarantee<Int>.pending().guarantee.description == "Guarantee(…Int)")
  }

  @Test func debugDescriptionsNameTheStateAndTheWaitingHandlers() {
    let (pending, resolver) = Promise<Int>.pending()
    #expect(pending.debugDescription == "Promise<Int>.pending(handlers: 0)")
    pending.done(on: nil) { _ in }.cauterize()
    #expect(pending.debugDescription == "Promise<Int>.pending(handlers: 1)")
    resolver.fulfill(3)
    #expect(pending.debugDescription == "Promise<Int>.fulfilled(3)")
    #expect(
      Promise<Int>(error: TestError(id: 1)).debugDescription == "Promise<Int>.rejected(TestError.TestError(id: 1))")
    #expect(Guarantee.value(1).debugDescription == "Guarantee<Int>.fulfilled(1)")
    #expect(Guarantee<Int>.pending().guarantee.debugDescription == "Guarantee<Int>.pending(handlers: 0)")
  }

  @Test func resultsArePromiseKitsFulfilledOrRejected() {
    if case .fulfilled(1)? = Promise.value(1).result {} else { Issue.record("not fulfilled") }
    if case .rejected(let error)? = Promise<Int>(error: TestError(id: 4)).result {
      #expect(error as? TestError == TestError(id: 4))
    } else {
      Issue.record("not rejected")
    }
    #expect(Promise<Int>.pending().promise.result == nil)
    #expect(Promises.Result<Int>.fulfilled(1).isFulfilled)
    #expect(throws: TestError(id: 5)) { try Promises.Result<Int>.rejected(TestError(id: 5)).get() }
    if case .success(7) = Promises.Result<Int>.fulfilled(7).swiftResult {} else { Issue.record("not success") }
    if case .rejected? = Promises.Result(Swift.Result<Int, Error>.failure(TestError())) as Promises.Result? {
    } else {
      Issue.record("not rejected")
    }
  }

  @Test func resolverTakesEitherKindOfResult() {
    let (first, firstResolver) = Promise<Int>.pending()
    firstResolver.resolve(Promises.Result.fulfilled(1))
    #expect(first.value == 1)
    let (second, secondResolver) = Promise<Int>.pending()
    secondResolver.resolve(Swift.Result.failure(TestError(id: 3)))
    #expect(failure(second.result) as? TestError == TestError(id: 3))
  }
}
