import Foundation
import Futures
import TestSupport
import Testing

/// Pending work nobody can reach any more is freed, every block and future of it, and freeing a
/// chain of any length needs no deep stack.
@Suite("Futures: dropped pending work")
struct FutureDroppedWorkTests {
  /// The 1,000,000 stages with `STRESS_FULL_SIZE=1` (CI runs it in a release build), a
  /// tenth of it in the everyday debug `swift test`.
  static let depth = Stress.fullSize ? 1_000_000 : 100_000

  @Test func aDroppedPendingStageAndItsParentAreFreedWithTheirBlocks() {
    let root: WeakBox<Future<Int>>
    let stages: [WeakBox<Future<Int>>]
    let captured: WeakBox<Tracked>
    do {
      let object = Tracked()
      captured = WeakBox(object)
      let producer = Futures.Promise<Int>()
      root = WeakBox(producer.future)
      let mapped = producer.future.map(.immediate) { value in withExtendedLifetime(object) { value + 1 } }
      let queued = mapped.map(.async) { value in withExtendedLifetime(object) { value + 1 } }
      let chained = queued.onSuccess(.immediate) { value in withExtendedLifetime(object) { Future(success: value) } }
      let completed = chained.onComplete(.immediate) { _ in withExtendedLifetime(object) { Completion<Int>.success(0) }
      }
      let failed = completed.onFail(.immediate) { _ in _ = object }
      let sibling = producer.future.map(.immediate) { value in withExtendedLifetime(object) { value } }
      _ = failed
      stages = [mapped, queued, chained, completed, sibling].map { WeakBox($0) }
    }
    #expect(root.value == nil, "the parent was freed")
    #expect(stages.allSatisfy { $0.value == nil }, "every stage was freed")
    #expect(captured.value == nil, "every block was released")
  }

  @Test func aStageOfALiveProducerIsKeptAndRuns() {
    let producer = Futures.Promise<Int>()
    let seen = Recorder<Int>()
    do {
      producer.future.map(.immediate) { $0 + 1 }.onSuccess(.immediate) { seen.record($0) }
    }
    producer.completeWithSuccess(1)
    #expect(seen.values == [2], "a fire-and-forget stage is kept while its producer can complete it")
  }

  @Test func aStageWhoseParentCanStillAnswerARequestIsKept() {
    let stage: Future<Int>
    do {
      let producer = Futures.Promise<Int>()
      producer.onRequestCancel(.immediate) { _ in .complete(.cancelled) }
      stage = producer.future.map(.immediate) { $0 + 1 }
    }
    stage.getCancelToken().cancel()
    #expect(stage.result?.isCancelled == true, "the request reached the released producer's handler")
  }

  @Test func droppingALongPendingChainNeedsNoDeepStack() async {
    let freed = await onSmallStack(256 << 10) { () -> Bool in
      let tail: WeakBox<Future<Int>>
      do {
        let producer = Futures.Promise<Int>()
        var last = producer.future
        for _ in 0..<Self.depth { last = last.map(.immediate) { $0 + 1 } }
        tail = WeakBox(last)
      }
      return tail.value == nil
    }
    #expect(freed)
  }

  @Test func droppingALongPendingChainOfTheTailsHolderNeedsNoDeepStack() async {
    // The tail is dropped last: freeing it frees the chain upstream of it, link by link.
    let freed = await onSmallStack(256 << 10) { () -> Bool in
      let root: WeakBox<Future<Int>>
      do {
        var last: Future<Int>
        do {
          let producer = Futures.Promise<Int>()
          root = WeakBox(producer.future)
          last = producer.future
          for _ in 0..<Self.depth { last = last.map(.immediate) { $0 + 1 } }
        }
        _ = last
      }
      return root.value == nil
    }
    #expect(freed)
  }
}
