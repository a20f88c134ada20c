import Foundation
import TestSupport
import Testing

@testable import Promises

/// Pending work nobody can reach any more is freed, every closure and object of it, and freeing
/// a chain of any length needs no deep stack.
@Suite("Promises: dropped pending work")
struct DroppedWorkTests {
  /// The length of the long chains: the 1,000,000 with `STRESS_FULL_SIZE=1` (CI runs it in
  /// a release build), a tenth of it in the everyday debug `swift test`.
  static let depth = Stress.fullSize ? 1_000_000 : 100_000

  /// A small stack: freeing one stage per frame would overflow it within a few thousand stages.
  static let stack = 256 << 10

  // MARK: Depth

  @Test func droppingALongPendingMapChainNeedsNoDeepStack() async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let root: WeakBox<Promise<Int>>
      let tail: WeakBox<Promise<Int>>
      do {
        let (promise, resolver) = Promise<Int>.pending()
        root = WeakBox(promise)
        var last = promise
        for _ in 0..<Self.depth { last = last.map(on: nil) { $0 + 1 } }
        tail = WeakBox(last)
        _ = resolver
      }
      return root.value == nil && tail.value == nil
    }
    #expect(freed)
  }

  @Test func droppingALongPendingGuaranteeChainNeedsNoDeepStack() async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let tail: WeakBox<Guarantee<Int>>
      do {
        let (guarantee, _) = Guarantee<Int>.pending()
        var last = guarantee
        for _ in 0..<Self.depth { last = last.map(on: nil) { $0 + 1 } }
        tail = WeakBox(last)
      }
      return tail.value == nil
    }
    #expect(freed)
  }

  @Test func droppingALongPendingQueuedChainNeedsNoDeepStack() async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let tail: WeakBox<Promise<Int>>
      do {
        let (promise, _) = Promise<Int>.pending()
        var last = promise
        for _ in 0..<Self.depth / 10 { last = last.then(on: .global()) { Promise.value($0 + 1) } }
        tail = WeakBox(last)
      }
      return tail.value == nil
    }
    #expect(freed)
  }

  /// With `map` stages, and with `then` stages whose bodies return a cancellable promise.
  @Test(arguments: [false, true])
  func droppingALongPendingCancellableChainNeedsNoDeepStackAndFreesIt(nestedStages: Bool) async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let context: WeakBox<CancelContext>
      let tail: WeakBox<CancellablePromise<Int>>
      do {
        let (root, _) = CancellablePromise<Int>.pending()
        var last = root
        if nestedStages {
          for _ in 0..<Self.depth / 10 { last = last.then(on: nil) { Promise.value($0 + 1).cancellize() } }
        } else {
          for _ in 0..<Self.depth { last = last.map(on: nil) { $0 + 1 } }
        }
        context = WeakBox(root.cancelContext)
        tail = WeakBox(last)
      }
      return context.value == nil && tail.value == nil
    }
    #expect(freed)
  }

  /// The shapes of cancellable chain whose stages each own a context (an `ensure`'s hold, a
  /// `recover` branch, a `then` body's sub-chain): freeing one context frees the next.
  enum ContextPerStage: CaseIterable, Sendable {
    case ensure, ensureThen, recover, nestedSubChain
  }

  static func chain(_ shape: ContextPerStage, length: Int, settled: Bool) -> WeakBox<CancellablePromise<Int>> {
    let (pending, resolver) = CancellablePromise<Int>.pending()
    var last: CancellablePromise<Int> = settled ? Promise.value(0).cancellize() : pending
    for _ in 0..<length {
      switch shape {
      case .ensure: last = last.ensure(on: nil) {}
      case .ensureThen: last = last.ensureThen(on: nil) { CancellablePromise<Void>() }
      case .recover: last = last.recover(on: nil) { _ in Promise.value(1) }
      case .nestedSubChain:
        let previous = last
        last = Promise.value(0).cancellize().then(on: nil) { _ in previous }
      }
    }
    _ = resolver
    return WeakBox(last)
  }

  @Test(arguments: ContextPerStage.allCases, [false, true])
  func freeingALongChainOfContextsNeedsNoDeepStack(shape: ContextPerStage, settled: Bool) async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      Self.chain(shape, length: Self.depth / 10, settled: settled).value == nil
    }
    #expect(freed)
  }

  // MARK: Freeing

  /// A task whose cancel counts, to check that a dropped chain released it (and that a cancel
  /// still reached it where it should).
  final class CountingTask: CancellableTask, Sendable {
    let cancels = Counter()
    func cancel() { cancels.increment() }
    var isCancelled: Bool { cancels.value > 0 }
  }

  /// Builds a pending chain with every kind of stage, each closure capturing `captured`.
  static func everyKindOfStage(on root: Promise<Int>, capturing captured: Tracked) -> [any AnyObject & Sendable] {
    let queue = DispatchQueue(label: "dropped")
    let mapped = root.map(on: nil) { value in withExtendedLifetime(captured) { value + 1 } }
    let queued = mapped.map(on: queue) { value in withExtendedLifetime(captured) { value + 1 } }
    let then = queued.then(on: nil) { value in withExtendedLifetime(captured) { Promise.value(value) } }
    let recovered = then.recover(on: nil) { _ in withExtendedLifetime(captured) { Promise.value(0) } }
    let ensured = recovered.ensure(on: nil) { _ = captured }
    let tapped = ensured.tap(on: nil) { _ in _ = captured }
    let got = tapped.get(on: nil) { _ in _ = captured }
    let done = got.done(on: nil) { _ in _ = captured }
    let finalizer = done.catch(on: nil) { _ in _ = captured }
    finalizer.finally(on: nil) { _ = captured }
    let guarantee = root.recover(on: nil) { _ in withExtendedLifetime(captured) { Guarantee.value(0) } }
    let guaranteed = guarantee.map(on: nil) { value in withExtendedLifetime(captured) { value + 1 } }
    return [mapped, queued, then, recovered, ensured, tapped, got, done, finalizer, guarantee, guaranteed]
  }

  @Test func aDroppedPendingChainOfEveryKindIsFreedWithItsClosures() {
    let captured: WeakBox<Tracked>
    let stages: [WeakBox<AnyObject & Sendable>]
    do {
      let object = Tracked()
      captured = WeakBox(object)
      let (root, _) = Promise<Int>.pending()
      stages = Self.everyKindOfStage(on: root, capturing: object).map { WeakBox($0) }
    }
    #expect(captured.value == nil, "every closure was released")
    #expect(stages.allSatisfy { $0.value == nil }, "every stage was freed")
  }

  @Test func aDroppedPendingCombinationOfPromisesIsFreedWithItsInputs() {
    let inputs: [WeakBox<Promise<Int>>]
    let guarantees: [WeakBox<Guarantee<Int>>]
    do {
      let pending = (0..<3).map { _ in Promise<Int>.pending().promise }
      let pendingGuarantees = (0..<2).map { _ in Guarantee<Int>.pending().guarantee }
      _ = when(fulfilled: pending)
      _ = when(resolved: pending)
      let pair: Promise<(Int, Int)> = when(fulfilled: pending[0], pending[1])
      _ = pair
      _ = when(fulfilled: pending[0], pending[1], pendingGuarantees[0])
      _ = when(guarantees: pendingGuarantees)
      _ = race(pending)
      inputs = pending.map { WeakBox($0) }
      guarantees = pendingGuarantees.map { WeakBox($0) }
    }
    #expect(inputs.allSatisfy { $0.value == nil }, "no input keeps another alive through the combination")
    #expect(guarantees.allSatisfy { $0.value == nil })
  }

  @Test func aPendingChainWhoseResolverIsHeldIsKeptAndRuns() async {
    let ran = Counter()
    let resolver: Resolver<Int>
    do {
      let (root, held) = Promise<Int>.pending()
      resolver = held
      root.map(on: nil) { $0 + 1 }.done(on: nil) { _ in ran.increment() }.cauterize()
    }
    resolver.fulfill(1)
    #expect(ran.value == 1, "a chain someone can still settle is not freed")
  }

  @Test func aDroppedPendingCancellableChainOfEveryKindIsFreedWithItsTasks() {
    let captured: WeakBox<Tracked>
    let context: WeakBox<CancelContext>
    let task: WeakBox<CountingTask>
    let members: [WeakBox<AnyObject & Sendable>]
    do {
      let object = Tracked()
      captured = WeakBox(object)
      let counting = CountingTask()
      task = WeakBox(counting)
      let root = CancellablePromise<Int>(task: counting) { _ in }
      context = WeakBox(root.cancelContext)
      let queue = DispatchQueue(label: "dropped")
      let mapped = root.map(on: nil) { value in withExtendedLifetime(object) { value + 1 } }
      let queued = mapped.map(on: queue) { value in withExtendedLifetime(object) { value + 1 } }
      let then = queued.then(on: nil) { value in withExtendedLifetime(object) { Promise.value(value) } }
      let subChain = then.then(on: nil) { value in
        withExtendedLifetime(object) { CancellablePromise<Int>(task: CountingTask()) { _ in } }
      }
      let recovered = subChain.recover(on: nil) { _ in withExtendedLifetime(object) { Promise.value(0) } }
      let cancellableRecovered = recovered.cancellableRecover(on: nil) { _ in
        withExtendedLifetime(object) { Promise.value(0).cancellize() }
      }
      let ensured = cancellableRecovered.ensure(on: nil) { _ = object }
      let ensuredThen = ensured.ensureThen(on: nil) { withExtendedLifetime(object) { CancellablePromise<Void>() } }
      let tapped = ensuredThen.tap(on: nil) { _ in _ = object }
      let done = tapped.done(on: nil) { _ in _ = object }
      let finalizer = done.catch(on: nil) { _ in _ = object }
      finalizer.finally(on: nil) { _ = object }
      let all: [any AnyObject & Sendable] = [
        root, mapped, queued, then, subChain, recovered, cancellableRecovered, ensured, tapped, done, finalizer,
      ]
      members = all.map { WeakBox($0) }
    }
    #expect(context.value == nil, "the context went away")
    #expect(members.allSatisfy { $0.value == nil }, "every member was freed")
    #expect(captured.value == nil, "every closure was released")
    #expect(task.value == nil, "the task was released")
  }

  @Test func aDroppedPendingCombinationOfCancellableChainsIsFreed() {
    let contexts: [WeakBox<CancelContext>]
    do {
      let inputs = (0..<3).map { _ in CancellablePromise<Int>.pending().promise }
      let results: [CancellablePromise<Int>] = [
        race(inputs), race(inputs, autoCancel: true),
        when(fulfilled: inputs).map(on: nil) { $0.count },
        when(fulfilled: inputs, autoCancel: true).map(on: nil) { $0.count },
        when(resolved: inputs).map(on: nil) { $0.count },
        // Pulled lazily, as it is meant to be used (an iterator over members already made holds
        // them, and they their chains, for as long as it waits to be pulled).
        when(
          fulfilled: (0..<3).lazy.map { _ in CancellablePromise<Int>.pending().promise }.makeIterator(), concurrently: 2
        )
        .map(on: nil) { $0.count },
        firstly { inputs[0] },
      ]
      contexts = (inputs + results).map { WeakBox($0.cancelContext) }
    }
    #expect(contexts.map { $0.value == nil } == Array(repeating: true, count: contexts.count))
  }

  @Test func holdingOnlyTheTailACancelStillReachesEveryPendingMemberAndTask() {
    let task = CountingTask()
    let cleanedUp = Counter()
    let subTask = CountingTask()
    let tail: CancellablePromise<Int>
    do {
      let root = CancellablePromise<Int>(task: task) { _ in }
      tail = root.ensure(on: nil) { cleanedUp.increment() }
        .then(on: nil) { _ in CancellablePromise<Int>(task: subTask) { _ in } }
        .map(on: nil) { $0 + 1 }
    }
    tail.cancel()
    #expect(task.cancels.value == 1, "the root's task, held by nobody but the chain")
    #expect(cleanedUp.value == 1, "an ensure in the middle of the chain still ran")
    #expect(tail.isRejected && tail.isCancelled)
    #expect(subTask.cancels.value == 0, "the sub-chain never started")
  }

  @Test func aSubChainNobodyHoldsIsCancelledWithItsParentChain() {
    let subTask = CountingTask()
    let (root, resolver) = CancellablePromise<Int>.pending()
    let tail = root.then(on: nil) { _ in CancellablePromise<Int>(task: subTask) { _ in } }
    resolver.fulfill(1)
    tail.cancel()
    #expect(subTask.cancels.value == 1, "the linked sub-chain was kept while its parent chain could cancel it")
  }

  @Test func holdingOnlyARecoverBranchItsCancelStillReachesTheChainBeforeIt() {
    let task = CountingTask()
    let branch: CancellablePromise<Int>
    do {
      let root = CancellablePromise<Int>(task: task) { _ in }
      branch = root.map(on: nil) { $0 + 1 }.recover(on: nil) { _ in Promise.value(0) }
    }
    branch.cancel()
    #expect(task.cancels.value == 1)
  }

  @Test func aContextHeldAloneStillCancelsItsChain() {
    let task = CountingTask()
    let context: CancelContext
    do {
      let root = CancellablePromise<Int>(task: task) { _ in }
      context = root.map(on: nil) { $0 + 1 }.cancelContext
    }
    context.cancel()
    #expect(task.cancels.value == 1)
  }
}
