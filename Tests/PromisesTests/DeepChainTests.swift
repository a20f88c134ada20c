import Promises
import TestSupport
import Testing

@Suite("Deep chains and wide joins need no deep stack")
struct DeepChainTests {
  static let depth = 100_000

  @Test func aHundredThousandStageChainResolvedSynchronouslyCompletes() async {
    let observed = Recorder<Int>()
    // A 256 KB stack: recursion per stage would overflow it within a few thousand stages.
    await onSmallStack(256 << 10) {
      let (root, resolver) = Promise<Int>.pending()
      var tail = root
      for _ in 0..<Self.depth {
        tail = tail.map(on: nil) { $0 + 1 }
      }
      let mixed = tail.then(on: nil) { Promise.value($0) }.recover(on: nil) { _ in Promise.value(-1) }
      resolver.fulfill(0)
      observed.record(mixed.value ?? -2)
    }
    #expect(observed.values == [Self.depth])
  }

  @Test func aHundredThousandStageThenChainOfPendingInnerPromisesCompletes() async {
    let observed = Recorder<Int>()
    await onSmallStack(256 << 10) {
      let (root, resolver) = Promise<Int>.pending()
      var tail = root
      for _ in 0..<Self.depth {
        tail = tail.then(on: nil) { Promise.value($0 + 1) }
      }
      resolver.fulfill(0)
      observed.record(tail.value ?? -1)
    }
    #expect(observed.values == [Self.depth])
  }

  @Test func cancellingALongChainOfCancellableThenStagesRejectsItsTail() async {
    let observed = Recorder<Bool>()
    await onSmallStack(256 << 10) {
      let (root, resolver) = Promise<Int>.pending()
      var tail = root.cancellize()
      for _ in 0..<Self.depth / 10 {
        tail = tail.then(on: nil) { Promise.value($0 + 1).cancellize() }
      }
      tail.cancel()
      observed.record(tail.isRejected && tail.error?.isCancelled == true)
      resolver.fulfill(0)
    }
    #expect(observed.values == [true])
  }

  @Test func aLongChainOfCancellableThenStagesFulfilledCompletes() async {
    let observed = Recorder<Int>()
    await onSmallStack(256 << 10) {
      let (root, resolver) = Promise<Int>.pending()
      var tail = root.cancellize()
      for _ in 0..<Self.depth / 10 {
        tail = tail.then(on: nil) { Promise.value($0 + 1).cancellize() }
      }
      resolver.fulfill(0)
      observed.record(tail.value ?? -1)
    }
    #expect(observed.values == [Self.depth / 10])
  }

  @Test func aHundredThousandElementWhenCompletes() async {
    let observed = Recorder<Int>()
    await onSmallStack(256 << 10) {
      let pending = (0..<Self.depth).map { _ in Promise<Int>.pending() }
      let all = when(fulfilled: pending.map(\.promise))
      for (index, entry) in pending.enumerated() { entry.resolver.fulfill(index) }
      observed.record(all.value?.count ?? -1)
      let resolved = when(fulfilled: (0..<Self.depth).map { Promise.value($0) })
      observed.record(resolved.value?.last ?? -1)
      let settled = when(resolved: pending.map(\.promise))
      observed.record(settled.value?.count ?? -1)
    }
    #expect(observed.values == [Self.depth, Self.depth - 1, Self.depth])
  }

  /// Levels of the clean-up shapes below, each several stages and contexts deep (a recursion per
  /// level would overflow the small stack long before): `depth` in CI's full-size release run,
  /// a tenth of it in the everyday debug run.
  static let levels = Stress.fullSize ? depth : depth / 10

  /// `levels` levels of `when(fulfilled:concurrently:)` each pulling the stage after a clean-up
  /// of the level before.
  static func pulledAfterCleanups(_ root: CancellablePromise<Int>, cleaned: Counter) -> CancellablePromise<Int> {
    var tail = root
    for _ in 0..<levels {
      let input = tail.ensure(on: nil) { cleaned.increment() }
      tail = when(fulfilled: [input].makeIterator(), concurrently: 1).map(on: nil) { $0[0] + 1 }
    }
    return tail
  }

  /// `levels` levels of a `then` whose body returns the level before with a clean-up after it.
  static func returnedWithCleanups(_ root: CancellablePromise<Int>, cleaned: Counter) -> CancellablePromise<Int> {
    var tail = root
    for _ in 0..<levels {
      let returned = tail.ensure(on: nil) { cleaned.increment() }.map(on: nil) { $0 + 1 }
      tail = Promise.value(0).cancellize().then(on: nil) { _ in returned }
    }
    return tail
  }

  @Test(arguments: [false, true])
  func deepLevelsOfCleanupsBehindPulledOrReturnedChainsCancelAndComplete(returned: Bool) async {
    let observed = Recorder<Int>()
    await onSmallStack(256 << 10) {
      let build = returned ? Self.returnedWithCleanups : Self.pulledAfterCleanups
      let (cancelledRoot, _) = CancellablePromise<Int>.pending()
      let cancelledCleanups = Counter()
      let cancelled = build(cancelledRoot, cancelledCleanups)
      cancelled.cancel()
      observed.record(isPMKCancelled(cancelled.error) ? cancelledCleanups.value : -1)
      let (root, resolver) = CancellablePromise<Int>.pending()
      let cleanups = Counter()
      let fulfilled = build(root, cleanups)
      resolver.fulfill(0)
      observed.record(fulfilled.value ?? -1)
      observed.record(cleanups.value)
    }
    #expect(observed.values == [Self.levels, Self.levels, Self.levels])
  }
}
