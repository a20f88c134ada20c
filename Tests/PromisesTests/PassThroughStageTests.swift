import Promises
import TestSupport
import Testing

/// `ensure(on: nil)` and `tap(on: nil)` wait in their parent as the returned promise itself: what
/// must still hold.
@Suite("Pass-through stages")
struct PassThroughStageTests {
  @Test func ensureRunsItsBodyOnceThenSettlesLikeTheParentEitherWay() {
    for rejects in [false, true] {
      let order = Recorder<String>()
      let (root, resolver) = Promise<Int>.pending()
      let ensured = root.ensure(on: nil) { order.record("ensure") }
      ensured.done(on: nil) { order.record("done \($0)") }.catch(on: nil) { _ in order.record("catch") }
      root.done(on: nil) { _ in order.record("root done") }.catch(on: nil) { _ in order.record("root catch") }
      if rejects { resolver.reject(TestError(id: 3)) } else { resolver.fulfill(7) }
      #expect(
        order.values
          == (rejects ? ["ensure", "root catch", "catch"] : ["ensure", "root done", "done 7"]), "rejects: \(rejects)")
      #expect((ensured.error as? TestError)?.id == (rejects ? 3 : nil))
      #expect(ensured.value == (rejects ? nil : 7))
    }
  }

  @Test func tapSeesTheResultAndPassesItOn() {
    let seen = Recorder<String>()
    let (root, resolver) = Promise<Int>.pending()
    let tapped = root.tap(on: nil) { result in
      switch result {
      case .fulfilled(let value): seen.record("fulfilled \(value)")
      case .rejected: seen.record("rejected")
      }
    }
    resolver.fulfill(5)
    #expect(seen.values == ["fulfilled 5"])
    #expect(tapped.value == 5)

    let rejected = Promise<Int>(error: TestError(id: 9)).tap(on: nil) { result in
      if case .rejected(let error) = result { seen.record("rejected \((error as? TestError)?.id ?? -1)") }
    }
    #expect(seen.values == ["fulfilled 5", "rejected 9"])
    #expect((rejected.error as? TestError)?.id == 9)
  }

  @Test func theBodiesCapturesAreReleasedOnceTheyRan() {
    final class Captured: Sendable {}
    weak var forEnsure: Captured?
    weak var forTap: Captured?
    let (root, resolver) = Promise<Int>.pending()
    let stages: [Promise<Int>] = {
      let first = Captured()
      let second = Captured()
      forEnsure = first
      forTap = second
      return [
        root.ensure(on: nil) { withExtendedLifetime(first) {} },
        root.tap(on: nil) { _ in withExtendedLifetime(second) {} },
      ]
    }()
    #expect(forEnsure != nil && forTap != nil)
    resolver.fulfill(1)
    #expect(forEnsure == nil)
    #expect(forTap == nil)
    #expect(stages.map(\.value) == [1, 1])
  }

  @Test func aHundredThousandStageChainSettlesAndIsFreedInConstantStack() async {
    let depth = 100_000
    let observed = Recorder<String>()
    await onSmallStack(256 << 10) {
      let ran = Counter()
      let (root, resolver) = Promise<Int>.pending()
      var tail = root
      for index in 0..<depth {
        tail =
          index.isMultiple(of: 2)
          ? tail.ensure(on: nil) { ran.increment() } : tail.tap(on: nil) { _ in ran.increment() }
      }
      resolver.fulfill(4)
      observed.record("value \(tail.value ?? -1), ran \(ran.value)")
      weak var dropped: Promise<Int>?
      do {
        let (pending, _) = Promise<Int>.pending()
        var last = pending
        for _ in 0..<depth { last = last.ensure(on: nil) {} }
        dropped = last
      }
      observed.record("dropped freed \(dropped == nil)")
    }
    #expect(observed.values == ["value 4, ran \(depth)", "dropped freed true"])
  }

  @Test func settlingRacingAStageBeingAddedRunsItsBodyOnce() {
    let iterations = Stress.iterations(20_000)
    let ran = Counter()
    race(
      iterations: iterations,
      setup: { () -> (Promise<Int>, Resolver<Int>, Recorder<Promise<Int>>) in
        let (promise, resolver) = Promise<Int>.pending()
        return (promise, resolver, Recorder<Promise<Int>>())
      },
      { state in state.1.fulfill(1) },
      { state in state.2.record(state.0.ensure(on: nil) { ran.increment() }) },
      check: { state in #expect(state.2.values.first?.value == 1) })
    #expect(ran.value == iterations)
  }
}
