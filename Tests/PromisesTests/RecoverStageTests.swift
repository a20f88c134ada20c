import Promises
import TestSupport
import Testing

/// `recover(on: nil)` waits in its parent, and then in the promise its body returned, as the
/// returned promise itself: what must still hold.
@Suite("Recover stages")
struct RecoverStageTests {
  @Test func aFulfilmentPassesThroughWithoutTheBody() {
    let ran = Counter()
    let (root, resolver) = Promise<Int>.pending()
    let recovered = root.recover(on: nil) { _ -> Promise<Int> in
      ran.increment()
      return .value(0)
    }
    resolver.fulfill(4)
    #expect(recovered.value == 4)
    #expect(ran.value == 0)
  }

  @Test func aRejectionGoesToTheBodyAndTheStageFollowsWhatItReturns() {
    let (root, resolver) = Promise<Int>.pending()
    let (replacement, replace) = Promise<Int>.pending()
    let seen = Recorder<Int>()
    let recovered = root.recover(on: nil) { error -> Promise<Int> in
      seen.record((error as? TestError)?.id ?? -1)
      return replacement
    }
    resolver.reject(TestError(id: 2))
    #expect(seen.values == [2])
    #expect(recovered.result == nil)
    replace.fulfill(9)
    #expect(recovered.value == 9)
  }

  @Test func whatTheBodyReturnsOrThrowsDecidesTheRejection() {
    let fromReturned = Promise<Int>(error: TestError(id: 1)).recover(on: nil) { _ in
      Promise<Int>(error: TestError(id: 5))
    }
    #expect((fromReturned.error as? TestError)?.id == 5)
    let fromThrow = Promise<Int>(error: TestError(id: 1)).recover(on: nil) { _ -> Promise<Int> in
      throw TestError(id: 6)
    }
    #expect((fromThrow.error as? TestError)?.id == 6)
    let fromGuarantee = Promise<Int>(error: TestError(id: 1)).recover(on: nil) { _ in Guarantee.value(8) }
    #expect(fromGuarantee.value == 8)
  }

  @Test func theDefaultPolicyPassesACancellationThroughAndAllErrorsRecoversIt() {
    let ran = Counter()
    let passed = Promise<Int>(error: PMKError.cancelled).recover(on: nil) { _ -> Promise<Int> in
      ran.increment()
      return .value(1)
    }
    #expect(passed.error?.isCancelled == true)
    #expect(ran.value == 0)
    let recovered = Promise<Int>(error: PMKError.cancelled).recover(on: nil, policy: .allErrors) { _ in
      Promise.value(1)
    }
    #expect(recovered.value == 1)
  }

  @Test func returningTheStageItselfRejectsWithReturnedSelf() {
    let (root, resolver) = Promise<Int>.pending()
    let box = Recorder<Promise<Int>>()
    let recovered = root.recover(on: nil) { _ in box.values[0] }
    box.record(recovered)
    resolver.reject(TestError())
    guard case PMKError.returnedSelf? = recovered.error else {
      Issue.record("expected returnedSelf, got \(String(describing: recovered.error))")
      return
    }
  }

  @Test func theBodysCapturesAreReleasedOnceItRanOrWasSkipped() {
    final class Captured: Sendable {}
    for rejects in [false, true] {
      weak var captured: Captured?
      let (root, resolver) = Promise<Int>.pending()
      let recovered: Promise<Int> = {
        let object = Captured()
        captured = object
        return root.recover(on: nil) { _ in withExtendedLifetime(object) { Promise.value(0) } }
      }()
      if rejects { resolver.reject(TestError()) } else { resolver.fulfill(1) }
      #expect(captured == nil, "rejects: \(rejects)")
      #expect(recovered.value == (rejects ? 0 : 1))
    }
  }

  @Test func aHundredThousandStageChainSettlesAndIsFreedInConstantStack() async {
    let depth = 100_000
    let observed = Recorder<String>()
    await onSmallStack(256 << 10) {
      let (root, resolver) = Promise<Int>.pending()
      var tail = root
      for _ in 0..<depth { tail = tail.recover(on: nil) { _ in Promise<Int>(error: TestError(id: 3)) } }
      resolver.reject(TestError(id: 1))
      observed.record("error \((tail.error as? TestError)?.id ?? -1)")
      weak var dropped: Promise<Int>?
      do {
        let (pending, _) = Promise<Int>.pending()
        var last = pending
        for _ in 0..<depth { last = last.recover(on: nil) { _ in Promise.value(0) } }
        dropped = last
      }
      observed.record("dropped freed \(dropped == nil)")
    }
    #expect(observed.values == ["error 3", "dropped freed true"])
  }

  @Test func rejectingRacingAStageBeingAddedRunsItsBodyOnce() {
    let iterations = Stress.iterations(20_000)
    let ran = Counter()
    race(
      iterations: iterations,
      setup: { () -> (Promise<Int>, Resolver<Int>, Recorder<Promise<Int>>) in
        let (promise, resolver) = Promise<Int>.pending()
        return (promise, resolver, Recorder<Promise<Int>>())
      },
      { state in state.1.reject(TestError()) },
      { state in
        state.2.record(
          state.0.recover(on: nil) { _ in
            ran.increment()
            return Promise.value(2)
          })
      },
      check: { state in #expect(state.2.values.first?.value == 2) })
    #expect(ran.value == iterations)
  }
}
