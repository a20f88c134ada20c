import Dispatch
import Promises
import TestSupport
import Testing

/// `Guarantee.then(on: nil)` waits in its parent, and then in the guarantee its body returned, as
/// the stage object itself: what must still hold.
@Suite("Guarantee then stages")
struct GuaranteeThenStageTests {
  @Test func aStageFollowsAGuaranteeResolvedLater() {
    let (root, resolveRoot) = Guarantee<Int>.pending()
    let (inner, resolveInner) = Guarantee<String>.pending()
    let order = Recorder<String>()
    let stage = root.then(on: nil) { value -> Guarantee<String> in
      order.record("body \(value)")
      return inner
    }
    stage.done(on: nil) { order.record("done \($0)") }
    resolveRoot(1)
    #expect(stage.value == nil)
    resolveInner("x")
    #expect(stage.value == "x")
    #expect(order.values == ["body 1", "done x"])
  }

  @Test func aStageWhoseBodyReturnsAResolvedGuaranteeSettlesInThatDelivery() {
    let (root, resolve) = Guarantee<Int>.pending()
    let order = Recorder<String>()
    let stage = root.then(on: nil) { Guarantee.value($0 * 2) }
    stage.done(on: nil) { order.record("stage \($0)") }
    root.done(on: nil) { order.record("root \($0)") }
    resolve(21)
    // The parent's handlers first, in registration order, then the stage's.
    #expect(order.values == ["root 21", "stage 42"])
    #expect(stage.value == 42)
  }

  @Test func aStageOnAResolvedGuaranteeRunsAtOnce() {
    #expect(Guarantee.value(2).then(on: nil) { Guarantee.value($0 + 1) }.value == 3)
  }

  @Test func theBodysCapturesAreReleasedOnceItRan() {
    final class Captured: Sendable {}
    weak var captured: Captured?
    let (root, resolve) = Guarantee<Int>.pending()
    let (inner, resolveInner) = Guarantee<Int>.pending()
    let stage: Guarantee<Int> = {
      let object = Captured()
      captured = object
      return root.then(on: nil) { _ in withExtendedLifetime(object) { inner } }
    }()
    #expect(captured != nil)
    resolve(1)
    // Ran, and now waits on `inner`: the body is gone already.
    #expect(captured == nil)
    resolveInner(5)
    #expect(stage.value == 5)
  }

  @Test func aHundredThousandStageChainResolvedSynchronouslyCompletesInConstantStack() async {
    let depth = 100_000
    let observed = Recorder<Int>()
    await onSmallStack(256 << 10) {
      let (root, resolve) = Guarantee<Int>.pending()
      var tail = root
      for _ in 0..<depth { tail = tail.then(on: nil) { Guarantee.value($0 + 1) } }
      resolve(0)
      observed.record(tail.value ?? -1)
    }
    #expect(observed.values == [depth])
  }

  @Test func aChainOfStagesWaitingOnPendingInnerGuaranteesSettlesInConstantStack() async {
    let depth = 100_000
    let observed = Recorder<Int>()
    await onSmallStack(256 << 10) {
      let (root, resolve) = Guarantee<Int>.pending()
      let (gate, open) = Guarantee<Void>.pending()
      var tail = root
      for _ in 0..<depth { tail = tail.then(on: nil) { value in gate.map(on: nil) { value + 1 } } }
      resolve(0)
      open(())
      observed.record(tail.value ?? -1)
    }
    #expect(observed.values == [depth])
  }

  @Test func aDroppedPendingChainOfAHundredThousandStagesIsFreedInConstantStack() async {
    let freed = Recorder<Bool>()
    await onSmallStack(256 << 10) {
      weak var tailStage: Guarantee<Int>?
      do {
        let (root, _) = Guarantee<Int>.pending()
        var tail = root
        for _ in 0..<100_000 { tail = tail.then(on: nil) { Guarantee.value($0 + 1) } }
        tailStage = tail
      }
      freed.record(tailStage == nil)
    }
    #expect(freed.values == [true])
  }

  @Test func resolvingRacingAStageBeingAddedDeliversToItOnce() {
    let iterations = Stress.iterations(20_000)
    let ran = Counter()
    race(
      iterations: iterations,
      setup: { () -> (Guarantee<Int>, @Sendable (Int) -> Void, Recorder<Guarantee<Int>>) in
        let (guarantee, resolve) = Guarantee<Int>.pending()
        return (guarantee, resolve, Recorder<Guarantee<Int>>())
      },
      { state in state.1(1) },
      { state in
        state.2.record(
          state.0.then(on: nil) { value in
            ran.increment()
            return Guarantee.value(value + 1)
          })
      },
      check: { state in
        #expect(state.2.values.first?.value == 2)
      })
    #expect(ran.value == iterations)
  }

  @Test func aStageOnAQueueStillHopsToIt() async {
    let queue = QueueProbe.make("guarantee then stage")
    let label = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
      Guarantee.value(1).then(on: queue) { _ in Guarantee.value(QueueProbe.label) }.done(on: nil) {
        continuation.resume(returning: $0)
      }
    }
    #expect(label == "guarantee then stage")
  }
}
