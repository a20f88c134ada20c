import TestSupport
import Testing

@testable import Promises

@Suite("Cancellable chains: memory")
struct CancellationMemoryTests {
  @Test func settledMembersLeaveTheirContext() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    var tail = root
    for _ in 0..<100 { tail = tail.map(on: nil) { $0 + 1 } }
    #expect(root.cancelContext.source.memberCount == 101, "every pending member waits on the context")
    resolver.fulfill(0)
    #expect(tail.value == 100)
    #expect(root.cancelContext.source.memberCount == 0, "settled members left their context")
    #expect(root.cancelContext.source.registrationCount == 0, "and registered no handler")
  }

  @Test func aPromiseWrappedTwiceLeavesBothContextsWhenItSettles() {
    let (promise, resolver) = Promise<Int>.pending()
    let first = CancellablePromise(promise: promise, resolver: resolver)
    let second = CancellablePromise(promise: promise, resolver: resolver)
    #expect(first.cancelContext.source.memberCount == 1)
    #expect(second.cancelContext.source.memberCount == 1)
    resolver.fulfill(1)
    #expect(first.cancelContext.source.memberCount == 0, "the earlier member left too")
    #expect(second.cancelContext.source.memberCount == 0)
  }

  @Test func aCancelledWrapperOfALongLivedPendingPromiseLeavesIt() {
    let (promise, resolver) = Promise<Int>.pending()
    weak var firstWrapper: Promise<Int>?
    for index in 0..<1_000 {
      let wrapper = promise.cancellize()
      if index == 0 { firstWrapper = wrapper.promise }
      wrapper.cancel()
      #expect(wrapper.isRejected)
    }
    #expect(promise.lock.withLock { promise.machine.waitingCount } == 0, "no cancelled wrapper still waits on it")
    #expect(firstWrapper == nil, "and none is kept")
    // A wrapper that was not cancelled still follows it.
    let kept = promise.cancellize()
    let seen = kept.map(on: nil) { $0 * 2 }
    resolver.fulfill(21)
    #expect(seen.value == 42)
  }

  @Test func aCancelledWrapperOfALongLivedPendingGuaranteeLeavesIt() {
    let (guarantee, resolve) = Guarantee<Int>.pending()
    weak var firstWrapper: Promise<Int>?
    for index in 0..<1_000 {
      let wrapper = guarantee.cancellize()
      if index == 0 { firstWrapper = wrapper.promise }
      wrapper.cancel()
      #expect(wrapper.isRejected)
    }
    #expect(guarantee.lock.withLock { guarantee.machine.waitingCount } == 0, "no cancelled wrapper still waits on it")
    #expect(firstWrapper == nil, "and none is kept")
    let kept = guarantee.cancellize()
    let seen = kept.map(on: nil) { $0 * 2 }
    resolve(21)
    #expect(seen.value == 42, "a wrapper that was not cancelled still follows it")
  }

  @Test func aCancelledWrapperInAGivenContextLeavesTheLongLivedPendingPromiseItFollows() {
    let (promise, resolver) = Promise<Int>.pending()
    weak var firstWrapper: Promise<Int>?
    for index in 0..<1_000 {
      let context = CancelContext()
      let wrapper = CancellablePromise(promise, cancelContext: context)
      if index == 0 { firstWrapper = wrapper.promise }
      context.cancel()
      #expect(wrapper.isRejected)
    }
    #expect(promise.lock.withLock { promise.machine.waitingCount } == 0, "no cancelled wrapper still waits on it")
    #expect(firstWrapper == nil, "and none is kept")
    let shared = CancelContext()
    let kept = CancellablePromise(promise, cancelContext: shared)
    let seen = kept.map(on: nil) { $0 * 2 }
    resolver.fulfill(21)
    #expect(seen.value == 42, "a wrapper that was not cancelled still follows it")
    #expect(shared.source.memberCount == 0, "and leaves the shared context once settled")
  }

  @Test func aWrapperDroppedWithoutACancelStillDeliversToItsStages() {
    let (promise, resolver) = Promise<Int>.pending()
    let delivered = Counter()
    do {
      // Nothing holds the wrapper or its stage: they must still run when `promise` resolves.
      _ = promise.cancellize().map(on: nil) { _ in delivered.increment() }
    }
    resolver.fulfill(1)
    #expect(delivered.value == 1)
  }

  @Test func aFinishedChainIsFreed() {
    weak var context: CancelContext?
    weak var member: CancellablePromise<Int>?
    do {
      let (root, resolver) = CancellablePromise<Int>.pending()
      let tail = root.map(on: nil) { $0 + 1 }.then(on: nil) { Promise.value($0) }
      context = tail.cancelContext
      member = tail
      resolver.fulfill(1)
      #expect(tail.value == 2)
    }
    #expect(context == nil && member == nil, "no reference cycle outlives a settled chain")
  }

  @Test(arguments: [false, true])
  func aRecoverBranchLinkedToTheChainBeforeItIsFreedWithIt(cancel: Bool) {
    weak var upstream: CancelContext?
    weak var branch: CancelContext?
    do {
      let (root, resolver) = CancellablePromise<Int>.pending()
      let tail = root.recover(on: nil) { _ in Promise.value(0) }.map(on: nil) { $0 + 1 }
      upstream = root.cancelContext
      branch = tail.cancelContext
      resolver.fulfill(1)
      #expect(tail.value == 2)
      if cancel { root.cancel() }  // linked by now: the cancel reaches the branch, which had finished
    }
    #expect(upstream == nil && branch == nil, "the link between a branch and the chain before it keeps neither")
  }

  @Test func aPendingRecoverBranchDroppedWhileTheChainBeforeItLivesIsFreed() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    weak var branch: CancelContext?
    do {
      let (work, _) = Promise<Int>.pending()
      let tail = root.recover(on: nil) { _ in Promise.value(0) }.then(on: nil) { _ in work }
      branch = tail.cancelContext
    }
    resolver.fulfill(1)
    #expect(branch == nil, "the chain before a branch does not keep the branch")
    withExtendedLifetime(root) {}
  }

  @Test func aCancelledChainIsFreed() {
    weak var context: CancelContext?
    do {
      let (root, _) = CancellablePromise<Int>.pending()
      let tail = root.map(on: nil) { $0 + 1 }
      context = tail.cancelContext
      tail.cancel()
    }
    #expect(context == nil)
  }
}

/// The stages after a settled `recover`, `ensure` or `ensureThen` that nobody holds stay reachable
/// by a cancel of the chain before them while they wait (issue 26, "D1"): kept no longer than
/// that.
extension CancellationMemoryTests {
  @Test(arguments: UnheldStagesCancelTests.Shape.allCases)
  func unheldStagesLeaveTheChainBeforeThemOnceTheySettled(shape: UnheldStagesCancelTests.Shape) {
    let (head, resolver) = CancellablePromise<Int>.pending()
    resolver.fulfill(1)
    let source = head.cancelContext.source
    let registrations = source.registrationCount
    for round in 0..<3 {
      let (inner, seal) = Promise<Int>.pending()
      let end: WeakBox<Promise<Void>> = {
        let end = shape.build(head, inner).done(on: nil) { _ in }
        end.catch(on: nil, policy: .allErrors) { _ in }
        return WeakBox(end.promise)
      }()
      #expect(
        source.registrationCount + source.memberCount > registrations, "waiting, the stages are reachable from the head"
      )
      seal.fulfill(round)
      #expect(end.value == nil, "settled, the stages are freed")
      if shape.linksAContextToTheHead {
        // Known, and not this fix's: linking a context to the head (an `ensure`'s, a race's)
        // leaves one registration in the head until it ends (issue 26, item 9).
        #expect(source.registrationCount <= registrations + round + 1)
      } else {
        #expect(source.registrationCount == registrations, "and leave nothing in the chain before them")
      }
      #expect(source.memberCount == 0)
    }
  }

  @Test(arguments: UnheldStagesCancelTests.Shape.allCases)
  func unheldStagesWaitingOnWorkNobodyCanSettleAreFreedWithTheChainBeforeThem(
    shape: UnheldStagesCancelTests.Shape
  ) {
    let (head, end): (WeakBox<CancelContext>, WeakBox<Promise<Void>>) = {
      let (root, resolver) = CancellablePromise<Int>.pending()
      let end = shape.build(root, Promise<Int>.pending().promise).done(on: nil) { _ in }
      resolver.fulfill(1)
      let kept = WeakBox(end.promise)
      #expect(kept.value != nil, "kept while the head can still cancel them")
      return (WeakBox(root.cancelContext), kept)
    }()
    #expect(head.value == nil && end.value == nil, "freed once nothing can cancel them or settle them")
  }
}
