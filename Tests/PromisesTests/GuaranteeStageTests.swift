import Dispatch
import Promises
import TestSupport
import Testing

/// `Guarantee.map(on: nil)` (and `done`, `get` and `asVoid`, built on it) waits in its parent as
/// the stage object itself and hands its delivery back when it settles inside its parent's: what
/// must still hold.
@Suite("Guarantee stages")
struct GuaranteeStageTests {
  @Test func handlersOfStagesAndOfTheParentRunInRegistrationOrder() {
    let order = Recorder<String>()
    let (root, resolve) = Guarantee<Int>.pending()
    let doubled = root.map(on: nil) { value -> Int in
      order.record("map \(value)")
      return value * 2
    }
    root.done(on: nil) { order.record("root done \($0)") }
    doubled.done(on: nil) { order.record("doubled done \($0)") }
    let got = root.get(on: nil) { order.record("get \($0)") }
    got.done(on: nil) { order.record("got done \($0)") }
    resolve(21)
    // The parent's own handlers first, in registration order; each stage's after it settled, in
    // the order the stages were registered.
    #expect(
      order.values == ["map 21", "root done 21", "get 21", "doubled done 42", "got done 21"])
    #expect(doubled.value == 42)
  }

  @Test func aStageOnAResolvedGuaranteeRunsAtOnce() {
    let stage = Guarantee.value(2).map(on: nil) { $0 + 1 }
    #expect(stage.value == 3)
  }

  @Test func aStageReleasesWhatItsTransformCapturedOnceItRan() {
    final class Captured: Sendable {}
    weak var captured: Captured?
    let (root, resolve) = Guarantee<Int>.pending()
    let stage: Guarantee<Int> = {
      let object = Captured()
      captured = object
      return root.map(on: nil) { value in
        withExtendedLifetime(object) {}
        return value
      }
    }()
    #expect(captured != nil)
    resolve(1)
    #expect(stage.value == 1)
    #expect(captured == nil)
  }

  @Test func aHundredThousandStageChainResolvedSynchronouslyCompletesInConstantStack() async {
    let depth = 100_000
    let observed = Recorder<Int>()
    // A 256 KB stack: a delivery recursing per stage would overflow it within a few thousand.
    await onSmallStack(256 << 10) {
      let (root, resolve) = Guarantee<Int>.pending()
      var tail = root
      for _ in 0..<depth { tail = tail.map(on: nil) { $0 + 1 } }
      resolve(0)
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
        for _ in 0..<100_000 { tail = tail.map(on: nil) { $0 + 1 } }
        tailStage = tail
      }
      freed.record(tailStage == nil)
    }
    #expect(freed.values == [true])
  }

  @Test func resolvingRacingAStageBeingAddedDeliversToItOnce() {
    let iterations = Stress.iterations(20_000)
    let delivered = Counter()
    race(
      iterations: iterations,
      setup: { () -> (Guarantee<Int>, @Sendable (Int) -> Void, Recorder<Guarantee<Int>>) in
        let (guarantee, resolve) = Guarantee<Int>.pending()
        return (guarantee, resolve, Recorder<Guarantee<Int>>())
      },
      { state in state.1(1) },
      { state in
        state.2.record(
          state.0.map(on: nil) { value in
            delivered.increment()
            return value + 1
          })
      },
      check: { state in
        #expect(state.2.values.first?.value == 2)
      })
    #expect(delivered.value == iterations)
  }

  @Test func aStageOnAQueueStillHopsToIt() async {
    let queue = DispatchQueue(label: "guarantee stage")
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    let onQueue = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      Guarantee.value(1).map(on: queue) { _ in DispatchQueue.getSpecific(key: key) == true }.done(on: nil) {
        continuation.resume(returning: $0)
      }
    }
    #expect(onQueue)
  }
}
