import Promises
import TestSupport
import Testing

/// `then(on: nil)` on a pending promise waits in its parent as the stage object itself, then in
/// the promise its body returned: what must still hold.
@Suite("Promise then stages")
struct ThenStageTests {
  @Test func aStageSettlesLikeThePendingPromiseItsBodyReturned() {
    let (root, resolver) = Promise<Int>.pending()
    let (inner, innerResolver) = Promise<String>.pending()
    let stage = root.then(on: nil) { value -> Promise<String> in
      #expect(value == 1)
      return inner
    }
    resolver.fulfill(1)
    #expect(stage.isPending)
    innerResolver.fulfill("done")
    #expect(stage.value == "done")
    let (rejectedInner, rejecter) = Promise<Int>.pending()
    let rejected = Promise<Int>.pending()
    let second = rejected.promise.then(on: nil) { _ in rejectedInner }
    rejected.resolver.fulfill(0)
    rejecter.reject(TestError(id: 7))
    #expect(second.error as? TestError == TestError(id: 7))
  }

  @Test func aRejectionPassesThroughWithoutRunningTheBody() {
    let ran = Counter()
    let (root, resolver) = Promise<Int>.pending()
    let stage = root.then(on: nil) { value -> Promise<Int> in
      ran.increment()
      return Promise.value(value)
    }
    resolver.reject(TestError(id: 3))
    #expect(stage.error as? TestError == TestError(id: 3))
    #expect(ran.value == 0)
  }

  @Test func aThrowingBodyRejectsTheStage() {
    let (root, resolver) = Promise<Int>.pending()
    let stage = root.then(on: nil) { _ -> Promise<Int> in throw TestError(id: 4) }
    resolver.fulfill(0)
    #expect(stage.error as? TestError == TestError(id: 4))
  }

  @Test func aStageFollowsAGuaranteeItsBodyReturned() {
    let (root, resolver) = Promise<Int>.pending()
    let (guarantee, resolve) = Guarantee<Int>.pending()
    let stage = root.then(on: nil) { _ in guarantee }
    resolver.fulfill(0)
    #expect(stage.isPending)
    resolve(9)
    #expect(stage.value == 9)
  }

  @Test func handlersRunInRegistrationOrderAfterTheParentsOwn() {
    let order = Recorder<String>()
    let (root, resolver) = Promise<Int>.pending()
    let stage = root.then(on: nil) { value -> Promise<Int> in
      order.record("body \(value)")
      return Promise.value(value + 1)
    }
    _ = root.done(on: nil) { order.record("root done \($0)") }
    _ = stage.done(on: nil) { order.record("stage done \($0)") }
    resolver.fulfill(1)
    #expect(order.values == ["body 1", "root done 1", "stage done 2"])
  }

  @Test func aHundredThousandStagesWaitingOnPendingPromisesResolveInConstantStack() async {
    let depth = 100_000
    let observed = Recorder<Int>()
    // A 256 KB stack: a delivery recursing per stage would overflow it within a few thousand.
    await onSmallStack(256 << 10) {
      let (root, resolver) = Promise<Int>.pending()
      let (inner, innerResolver) = Promise<Int>.pending()
      var tail = root
      for _ in 0..<depth { tail = tail.then(on: nil) { _ in inner } }
      let counted = tail.map(on: nil) { $0 + 1 }
      resolver.fulfill(0)
      innerResolver.fulfill(depth)
      observed.record(counted.value ?? -1)
    }
    #expect(observed.values == [depth + 1])
  }

  @Test func aDroppedPendingChainOfAHundredThousandStagesIsFreedInConstantStack() async {
    let freed = Recorder<Bool>()
    await onSmallStack(256 << 10) {
      weak var tailStage: Promise<Int>?
      do {
        let (root, _) = Promise<Int>.pending()
        var tail = root
        for _ in 0..<100_000 { tail = tail.then(on: nil) { Promise.value($0 + 1) } }
        tailStage = tail
      }
      freed.record(tailStage == nil)
    }
    #expect(freed.values == [true])
  }

  @Test func resolvingRacingAStageBeingAddedRunsItsBodyOnce() {
    let iterations = Stress.iterations(20_000)
    let ran = Counter()
    race(
      iterations: iterations,
      setup: { () -> (Promise<Int>, Resolver<Int>, Recorder<Promise<Int>>) in
        let (promise, resolver) = Promise<Int>.pending()
        return (promise, resolver, Recorder<Promise<Int>>())
      },
      { state in state.1.fulfill(1) },
      { state in
        state.2.record(
          state.0.then(on: nil) { value -> Promise<Int> in
            ran.increment()
            return Promise.value(value + 1)
          })
      },
      check: { state in
        #expect(state.2.values.first?.value == 2)
      })
    #expect(ran.value == iterations)
  }
}
