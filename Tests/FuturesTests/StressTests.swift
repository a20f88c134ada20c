import Futures
import TestSupport
import Testing

/// Races on two real threads. The race (request against completion) runs
/// `Stress.iterations(100_000)` rounds: a few seconds in a debug build on a 2-core machine,
/// mostly the two-thread barrier. The other races run 20,000 rounds, enough to hit every
/// interleaving of their two short critical sections many times. CI divides both by
/// `STRESS_DIVISOR` under ThreadSanitizer. Checks count failures and assert once, so the
/// test framework's per-expectation cost does not dominate the loop.
@Suite("Futures: stress")
struct StressTests {
  struct Chain: Sendable {
    let promise = Futures.Promise<Int>()
    let requests = Counter()
    let tail: Future<Int>
    let token: CancelToken

    init() {
      let requests = self.requests
      promise.onRequestCancel(.immediate) { _ in
        requests.increment()
        return .complete(.cancelled)
      }
      tail = promise.future.map(.immediate) { $0 + 1 }
      token = tail.getCancelToken()
    }
  }

  @Test func requestRacesCompletion() {
    let failures = Counter()
    race(
      iterations: Stress.iterations(100_000),
      setup: { Chain() },
      { $0.token.cancel() },
      { $0.promise.completeWithSuccess(1) },
      check: { chain in
        let root = chain.promise.future.result
        let tail = chain.tail.result
        let consistent: Bool
        switch (root, tail) {
        case (.success(1)?, .success(2)?): consistent = chain.requests.value <= 1
        case (.cancelled?, .cancelled?): consistent = chain.requests.value == 1
        default: consistent = false
        }
        if !consistent { failures.increment() }
      })
    #expect(failures.value == 0)
  }

  @Test func forcedRequestRacesCompletion() {
    let failures = Counter()
    race(
      iterations: Stress.iterations(20_000),
      setup: { Chain() },
      { $0.token.cancel([.forceThisFutureToBeCancelledImmediately]) },
      { $0.promise.completeWithSuccess(1) },
      check: { chain in
        let tail = chain.tail.result
        let tailOK = tail?.value == 2 || tail?.isCancelled == true
        if !tailOK || !chain.promise.future.isCompleted || chain.requests.value > 1 { failures.increment() }
      })
    #expect(failures.value == 0)
  }

  @Test func oneTokenCancelledFromTwoThreadsRequestsOnce() {
    let failures = Counter()
    race(
      iterations: Stress.iterations(20_000),
      setup: { Chain() },
      { $0.token.cancel() },
      { $0.token.cancel() },
      check: { chain in
        if chain.requests.value != 1 || chain.tail.result?.isCancelled != true || chain.token.cancelCanBeRequested {
          failures.increment()
        }
      })
    #expect(failures.value == 0)
  }

  struct Siblings: Sendable {
    let promise = Futures.Promise<Int>()
    let requests = Counter()
    let first: Future<Int>
    let second: Future<Int>

    init() {
      let requests = self.requests
      promise.onRequestCancel(.immediate) { _ in
        requests.increment()
        return .complete(.cancelled)
      }
      first = promise.future.map(.immediate) { $0 }
      second = promise.future.map(.immediate) { $0 }
    }
  }

  @Test func twoLastConsumersRequestingAtOnceRequestTheParentExactlyOnce() {
    let failures = Counter()
    race(
      iterations: Stress.iterations(20_000),
      setup: { Siblings() },
      { $0.first.getCancelToken().cancel() },
      { $0.second.getCancelToken().cancel() },
      check: { siblings in
        let ok =
          siblings.requests.value == 1 && siblings.promise.future.result?.isCancelled == true
          && siblings.first.result?.isCancelled == true && siblings.second.result?.isCancelled == true
        if !ok { failures.increment() }
      })
    #expect(failures.value == 0)
  }
  struct Untold: Sendable {
    let promise = Futures.Promise<Int>()
    let handlerRuns = Counter()
  }

  /// A request both forced and not forwarded does not tell the producer; a handler registered
  /// while that request is being carried out (after it was recorded, before the future completed)
  /// must not run with it either.
  @Test func aHandlerAddedDuringAForcedUnforwardedRequestDoesNotRun() {
    let failures = Counter()
    race(
      iterations: Stress.iterations(20_000),
      setup: { Untold() },
      { $0.promise.future.getCancelToken().cancel([.forceThisFutureToBeCancelledImmediately, .doNotForwardRequest]) },
      { untold in
        let runs = untold.handlerRuns
        untold.promise.onRequestCancel(.immediate) { _ in
          runs.increment()
          return .continue
        }
      },
      check: { untold in
        if untold.handlerRuns.value != 0 || untold.promise.future.result?.isCancelled != true { failures.increment() }
      })
    #expect(failures.value == 0)
  }
}
