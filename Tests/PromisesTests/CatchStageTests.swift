import Dispatch
import Promises
import TestSupport
import Testing

/// `catch` waits in its promise as the finalizer's guarantee itself (one object holding the handler
/// and its options) instead of a closure: what must still hold.
@Suite("Catch stages")
struct CatchStageTests {
  @Test func theHandlerGetsTheErrorAndFinallyRunsAfterThePromisesOtherHandlers() {
    let order = Recorder<String>()
    let (root, resolver) = Promise<Int>.pending()
    root.catch(on: nil) { order.record("catch 1: \(($0 as? TestError)?.id ?? -1)") }
      .finally(on: nil) { order.record("finally 1") }
    root.catch(on: nil) { _ in order.record("catch 2") }
      .finally(on: nil) { order.record("finally 2") }
    resolver.reject(TestError(id: 7))
    // The promise's own handlers first, in registration order; each finalizer after its catch ran.
    #expect(order.values == ["catch 1: 7", "catch 2", "finally 1", "finally 2"])
  }

  @Test func aFulfilledPromiseSkipsTheHandlerAndStillEndsTheChain() {
    let order = Recorder<String>()
    let (root, resolver) = Promise<Int>.pending()
    root.catch(on: nil) { _ in order.record("catch") }.finally(on: nil) { order.record("finally") }
    resolver.fulfill(1)
    #expect(order.values == ["finally"])
  }

  @Test func onARejectedPromiseTheHandlerRunsAtOnce() {
    let order = Recorder<String>()
    Promise<Int>(error: TestError()).catch(on: nil) { _ in order.record("catch") }
      .finally(on: nil) { order.record("finally") }
    #expect(order.values == ["catch", "finally"])
  }

  @Test func theDefaultPolicySkipsCancellationsAndAllErrorsReachesThem() {
    let order = Recorder<String>()
    let (root, resolver) = Promise<Int>.pending()
    root.catch(on: nil) { _ in order.record("default") }.finally(on: nil) { order.record("default finally") }
    root.catch(on: nil, policy: .allErrors) { _ in order.record("all errors") }
      .finally(on: nil) { order.record("all errors finally") }
    resolver.reject(PMKError.cancelled)
    #expect(order.values == ["all errors", "default finally", "all errors finally"])
  }

  @Test func aHandlerOnAQueueRunsThereAndTheFinalizerEndsAfterIt() async {
    let queue = QueueProbe.make("catch stage")
    let (root, resolver) = Promise<Int>.pending()
    let labels = await withCheckedContinuation { (continuation: CheckedContinuation<[String?], Never>) in
      let seen = Recorder<String?>()
      root.catch(on: queue) { _ in seen.record(QueueProbe.label) }
        .finally(on: nil) {
          seen.record("finally")
          continuation.resume(returning: seen.values)
        }
      resolver.reject(TestError())
    }
    #expect(labels == ["catch stage", "finally"])
  }

  @Test func theHandlersCapturesAreReleasedOnceTheChainEnded() {
    final class Captured: Sendable {}
    for rejects in [false, true] {
      weak var captured: Captured?
      let (root, resolver) = Promise<Int>.pending()
      let finalizer: PMKFinalizer = {
        let object = Captured()
        captured = object
        return root.catch(on: nil) { _ in withExtendedLifetime(object) {} }
      }()
      #expect(captured != nil)
      if rejects { resolver.reject(TestError()) } else { resolver.fulfill(1) }
      #expect(captured == nil, "rejected: \(rejects)")
      withExtendedLifetime(finalizer) {}
    }
  }

  @Test func aCatchOnAPromiseDroppedPendingIsFreedWithIt() {
    final class Captured: Sendable {}
    weak var captured: Captured?
    weak var promise: Promise<Int>?
    do {
      let object = Captured()
      captured = object
      let (root, _) = Promise<Int>.pending()
      promise = root
      root.catch(on: nil) { _ in withExtendedLifetime(object) {} }
    }
    #expect(promise == nil)
    #expect(captured == nil)
  }

  @Test func rejectingRacingACatchBeingAddedRunsItsHandlerAndFinalizerOnce() {
    let iterations = Stress.iterations(20_000)
    let handled = Counter()
    let ended = Counter()
    race(
      iterations: iterations,
      setup: { Promise<Int>.pending() },
      { state in state.resolver.reject(TestError()) },
      { state in
        state.promise.catch(on: nil) { _ in handled.increment() }.finally(on: nil) { ended.increment() }
      },
      check: { _ in })
    #expect(handled.value == iterations)
    #expect(ended.value == iterations)
  }
}
