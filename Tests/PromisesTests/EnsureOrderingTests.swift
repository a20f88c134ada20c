import Dispatch
import Promises
import TestSupport
import Testing

/// An `ensure`/`ensureThen` body finishes before any stage after it sees the rejection, cancelled
/// or not; a cleanup chain is not cancelled by the cancel that started it.
@Suite("Cancellable promises: cleanup before the stages after it")
struct EnsureOrderingTests {
  /// An ensure body that blocks until the test lets it go.
  final class HeldCleanup: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let cleaned = Counter()

    func run() {
      entered.signal()
      release.wait()
      cleaned.increment()
    }
  }

  @Test func aCancelOfTheRootWaitsForTheEnsureBodyBeforeLaterStages() async {
    let (root, _) = CancellablePromise<Int>.pending()
    let cleanup = HeldCleanup()
    let ensured = root.ensure(on: .global()) { cleanup.run() }
    let seen = Recorder<Int>()
    ensured.catch(on: nil, policy: .allErrors) { _ in seen.record(cleanup.cleaned.value) }
    root.cancel()
    #expect(ensured.cancelAttempted, "the cancel reached the whole chain")
    cleanup.entered.wait()
    #expect(ensured.isPending, "the stage after the ensure waits for the cleanup")
    #expect(seen.values.isEmpty)
    cleanup.release.signal()
    let result = await outcome(of: ensured.promise)
    #expect(isPMKCancelled(failure(result)))
    #expect(seen.values == [1], "the catch saw the rejection after the cleanup finished")
    #expect(ensured.isCancelled)
  }

  @Test func aCancelOfALaterStageWaitsForTheEnsureBodyToo() async {
    let (root, _) = CancellablePromise<Int>.pending()
    let cleanup = HeldCleanup()
    let ensured = root.ensure(on: .global()) { cleanup.run() }
    let tail = ensured.map(on: nil) { $0 + 1 }
    let seen = Recorder<Int>()
    tail.catch(on: nil, policy: .allErrors) { _ in seen.record(cleanup.cleaned.value) }
    tail.cancel(error: TestError(id: 4))
    #expect(root.error as? TestError == TestError(id: 4), "the members before the ensure are rejected at once")
    #expect(tail.cancelAttempted && root.cancelAttempted)
    cleanup.entered.wait()
    #expect(tail.isPending && ensured.isPending, "the stages after the ensure wait for the cleanup")
    cleanup.release.signal()
    let result = await outcome(of: tail.promise)
    #expect(failure(result) as? TestError == TestError(id: 4))
    #expect(seen.values == [1])
  }

  @Test func aStageAfterAnEnsureThatFinishedIsRejectedAtOnce() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    let ensured = root.ensure(on: nil) {}
    let (work, _) = CancellablePromise<Int>.pending()
    let tail = ensured.then(on: nil) { _ in work }
    resolver.fulfill(1)
    #expect(ensured.value == 1)
    tail.cancel()
    #expect(isPMKCancelled(tail.error), "the cleanup had finished: nothing holds the cancel back")
    #expect(isPMKCancelled(work.error), "and the sub-chain the stage returned is cancelled")
  }

  @Test func anEnsureThenCleanupChainRunsToTheEndAfterACancel() {
    let (root, _) = CancellablePromise<Int>.pending()
    let (cleanupWork, finishCleanup) = CancellablePromise<Void>.pending()
    let started = Counter()
    let ensured = root.ensureThen(on: nil) {
      started.increment()
      return cleanupWork
    }
    let seen = Recorder<Bool>()
    ensured.catch(on: nil, policy: .allErrors) { _ in seen.record(cleanupWork.isResolved) }
    root.cancel()
    #expect(started.value == 1)
    #expect(cleanupWork.isPending, "the cleanup is not cancelled by the cancel that started it")
    #expect(ensured.isPending, "the stage after the ensureThen waits for the cleanup")
    finishCleanup.fulfill(())
    #expect(isPMKCancelled(ensured.error))
    #expect(seen.values == [true])
  }

  @Test func anEnsureWithoutACancelStillPassesTheResultOn() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    let order = Recorder<String>()
    let tail = root.ensure(on: nil) { order.record("ensure") }.map(on: nil) { value -> Int in
      order.record("map")
      return value * 2
    }
    resolver.fulfill(21)
    #expect(tail.value == 42)
    #expect(order.values == ["ensure", "map"])
    #expect(!tail.cancelAttempted)
  }

  /// A chain with a clean-up, and what the stage after it saw.
  struct CleanedChain: Sendable {
    let root: CancellablePromise<Int>
    let resolver: Resolver<Int>
    let tail: CancellablePromise<Int>
    let cleaned = Counter()
    let seenByTail = Recorder<Int>()

    init() {
      (root, resolver) = CancellablePromise<Int>.pending()
      let cleaned = cleaned
      let seen = seenByTail
      tail = root.ensure(on: nil) { cleaned.increment() }.map(on: nil) { $0 + 1 }
      tail.promise.pipe { _ in seen.record(cleaned.value) }
    }
  }

  @Test func aCancelRacingTheFulfilmentNeverReachesTheStageAfterTheCleanupFirst() {
    race(iterations: Stress.iterations(20_000)) { () -> CleanedChain in
      CleanedChain()
    } _: { (chain: CleanedChain) in
      chain.tail.cancel()
    } _: { (chain: CleanedChain) in
      chain.resolver.fulfill(1)
    } check: { (chain: CleanedChain) in
      #expect(chain.cleaned.value == 1, "the clean-up ran exactly once")
      #expect(chain.seenByTail.values == [1], "the stage after it settled once, after the clean-up")
      #expect((chain.tail.value == 2) != isPMKCancelled(chain.tail.error), "fulfilled or cancelled")
      #expect(chain.tail.cancelAttempted)
    }
  }

  @Test func aCancelOfALongChainOfEnsuresRunsEveryCleanupInOrderOnASmallStack() async {
    let depth = 20_000
    let observed = Recorder<Int>()
    // A cancel of the tail travels up through every ensure's links: the core walks them without
    // recursion, and each cleanup releases the next part of the chain through the delivery queue.
    await onSmallStack(256 << 10) {
      let (root, _) = CancellablePromise<Int>.pending()
      let cleaned = Counter()
      var tail = root
      for _ in 0..<depth {
        tail = tail.ensure(on: nil) { cleaned.increment() }
      }
      let last = tail.map(on: nil) { $0 + 1 }
      last.catch(on: nil, policy: .allErrors) { _ in observed.record(cleaned.value) }
      last.cancel()
      observed.record(isPMKCancelled(last.error) ? 1 : 0)
    }
    #expect(observed.values == [depth, 1], "every cleanup ran before the last stage saw the cancel")
  }

  @Test func aCancelHeldForACleanupReachesTheStagesAfterItWhenTheChainWasDropped() {
    let root = Promise.value(1).cancellize()
    let (cleanupWork, finishCleanup) = CancellablePromise<Void>.pending()
    let ran = Counter()
    let seen = Recorder<Bool>()
    // Nothing is kept of the chain after the clean-up: the cancel is all that reaches it.
    root.ensureThen(on: nil) { cleanupWork }.done(on: nil) { _ in ran.increment() }
      .catch(on: nil, policy: .allErrors) { seen.record(isPMKCancelled($0)) }.cancel()
    finishCleanup.fulfill(())
    #expect(ran.value == 0, "the cancel was made before the clean-up finished: no later body starts")
    #expect(seen.values == [true], "the stage after the clean-up is rejected with the cancel error")
  }

  @Test func aStageAddedByEnsureAfterACancelIsRejectedOnceTheCleanupFinishedEvenWhenDropped() async {
    let root = Promise.value(1).cancellize()
    root.cancel()
    let cleanup = HeldCleanup()
    let seen = Recorder<Bool>()
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
      root.ensure(on: .global()) { cleanup.run() }
        .catch(on: nil, policy: .allErrors) { seen.record(isPMKCancelled($0)) }
        .finally(on: nil) { finished.resume() }
      cleanup.entered.wait()
      cleanup.release.signal()
    }
    #expect(cleanup.cleaned.value == 1)
    #expect(seen.values == [true], "the chain was cancelled before the ensure was added")
  }

  @Test func aCancelAfterTheChainFinishedRejectsNothing() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    let tail = root.ensure(on: nil) {}.map(on: nil) { $0 + 1 }
    resolver.fulfill(1)
    tail.cancel()
    #expect(tail.value == 2)
    #expect(tail.cancelAttempted && !tail.isCancelled)
  }

  @Test(arguments: [false, true])
  func stagesAfterTheCleanupRejectedByTheCancelReportItEvenWhenAHandlerSettledTheWorkFirst(cancelAfter: Bool) {
    // A handler registered after the `ensure` runs before the cancel reaches the stages after the
    // cleanup (newest first): it settles the work, the cleanup runs and passes the cancel error on
    // before the held cancel arrives. Those stages are still rejected by this cancel.
    let (work, resolver) = Promise<Int>.pending()
    let root = Promise.value(1).cancellize()
    let waiting = root.then(on: nil) { _ in work }
    let after = waiting.ensure(on: nil) {}.map(on: nil) { $0 + 1 }
    _ = root.cancelContext.signal.onCancel { resolver.fulfill(5) }
    if cancelAfter { after.cancel() } else { root.cancel() }
    #expect(waiting.isRejected && waiting.isCancelled)
    #expect(after.isRejected)
    #expect(after.isCancelled, "a cancel rejected the stages after the cleanup")
  }
}

/// A `recover` body never starts after a cancel of its own branch returned; a cancel before the
/// recover still reaches it as the error it handles.
@Suite("Cancellable promises: recover and its branch's cancel")
struct RecoverBranchCancelTests {
  @Test func cancellingTheBranchDoesNotStartItsRecoverBody() {
    let (root, _) = CancellablePromise<Int>.pending()
    let ran = Counter()
    let recovered = root.recover(on: nil, policy: .allErrors) { _ -> Promise<Int> in
      ran.increment()
      return .value(0)
    }
    recovered.cancel()
    #expect(ran.value == 0, "the branch was cancelled: its body must not start")
    #expect(isPMKCancelled(recovered.error))
    #expect(isPMKCancelled(root.error), "the cancel reached the chain before the recover")
  }

  @Test func cancellingTheBranchDoesNotStartAQueuedRecoverBody() async {
    let (root, _) = CancellablePromise<Void>.pending()
    let ran = Counter()
    // The bodies are queued on a suspended queue, so neither can start before both cancels ran
    // (on `.global()`, the first cancel's rejection of the root could start the other body first).
    let queue = DispatchQueue(label: "recover bodies")
    queue.suspend()
    let recovered = root.recover(on: queue, policy: .allErrors) { _ in ran.increment() }
    let other = root.cancellableRecover(on: queue, policy: .allErrors) { _ -> CancellablePromise<Void> in
      ran.increment()
      return CancellablePromise<Void>()
    }
    recovered.cancel()
    other.cancel()
    queue.resume()
    _ = await outcome(of: recovered.promise)
    _ = await outcome(of: other.promise)
    // Let the queue run anything it was given.
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(ran.value == 0)
  }

  @Test func aCancelBeforeTheRecoverStillReachesItsBody() {
    let (root, _) = CancellablePromise<Int>.pending()
    let recovered = root.recover(on: nil, policy: .allErrors) { _ in Promise.value(7) }
    root.cancel()
    #expect(recovered.value == 7, "the recover handles the cancel of the chain before it")
  }
}
