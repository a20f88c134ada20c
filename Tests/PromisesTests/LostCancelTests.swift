import Dispatch
import Promises
import TestSupport
import Testing

/// Cancels that must not be lost behind a clean-up or a recover (issue 26, items 3 and 4): every
/// member a cancel can reach is rejected, even when the chain before the clean-up or the recover
/// had already settled.
@Suite("Cancellable promises: no cancel lost behind a clean-up or a recover")
struct LostCancelTests {
  /// A serial queue that runs nothing until `resume()`d: a queue still busy when the chain is
  /// cancelled.
  static func busyQueue() -> DispatchQueue {
    let queue = DispatchQueue(label: "busy")
    queue.suspend()
    return queue
  }

  // MARK: The stages after a clean-up

  @Test(arguments: [false, true])
  func aCancelOfASettledChainReachesTheStagesAfterAnEnsureThenStillQueued(keepTheFinalizer: Bool) async {
    let queue = Self.busyQueue()
    let root = Promise.value(1).cancellize()
    let seen = Recorder<String>()
    // Only the root, and maybe the finalizer, are kept: nothing else holds the chain after the
    // clean-up (its promise is not a member).
    let (endPromise, kept) = { () -> (Promise<Void>, CancellableFinalizer?) in
      let end = root.ensureThen(on: queue) {
        seen.record("cleanup")
        return Promise<Void>().cancellize()
      }.done(on: queue) { seen.record("done \($0)") }
      let finalizer = end.catch(on: queue, policy: .allErrors) { seen.record("catch \($0.isCancelled)") }
      return (end.promise, keepTheFinalizer ? finalizer : nil)
    }()
    root.cancel()
    queue.resume()
    let result = await outcome(of: endPromise)
    #expect(isPMKCancelled(failure(result)), "the stage after the clean-up is rejected by the cancel")
    _ = await outcome(of: Promise<Void>.value(()).map(on: queue) { _ in () })  // the catch ran
    #expect(seen.values == ["cleanup", "catch true"])
    withExtendedLifetime(kept) {}
  }

  @Test func aCancelOfASettledChainReachesTheStagesAfterAnEnsureStillQueued() async {
    let queue = Self.busyQueue()
    let root = Promise.value(1).cancellize()
    let seen = Recorder<String>()
    let endPromise = { () -> Promise<Int> in
      let end = root.ensure(on: queue) { seen.record("cleanup") }.map(on: queue) { value -> Int in
        seen.record("map")
        return value
      }
      _ = end.catch(on: queue, policy: .allErrors) { seen.record("catch \($0.isCancelled)") }
      return end.promise
    }()
    root.cancel()
    queue.resume()
    let result = await outcome(of: endPromise)
    #expect(isPMKCancelled(failure(result)))
    _ = await outcome(of: Promise<Void>.value(()).map(on: queue) { _ in () })
    #expect(seen.values == ["cleanup", "catch true"])
  }

  @Test func aCancelOfALaterMemberReachesTheStagesAfterAnEnsureThenStillQueued() async {
    let queue = Self.busyQueue()
    let root = Promise.value(1).cancellize()
    let seen = Recorder<String>()
    let tail = root.ensureThen(on: queue) {
      seen.record("cleanup")
      return Promise<Void>().cancellize()
    }.map(on: queue) { value -> Int in
      seen.record("map")
      return value
    }
    let end = tail.done(on: queue) { seen.record("done \($0)") }
    let endPromise = end.promise
    tail.cancel()
    queue.resume()
    let result = await outcome(of: endPromise)
    #expect(isPMKCancelled(failure(result)))
    #expect(seen.values == ["cleanup"])
    #expect(root.cancelAttempted && tail.isCancelled)
  }

  // MARK: A rejected ensureThen clean-up

  @Test func aRejectedEnsureThenCleanupRejectsTheStagesAfterIt() {
    let root = Promise.value(1).cancellize()
    let seen = Recorder<Int>()
    let end = root.ensureThen(on: nil) { Promise<Void>(error: TestError(id: 7)).cancellize() }
      .map(on: nil) { value -> Int in
        seen.record(value)
        return value
      }
    #expect(end.error as? TestError == TestError(id: 7), "the clean-up's error replaces the value")
    #expect(seen.values.isEmpty)
    #expect(!end.cancelAttempted)
  }

  @Test func aRejectedEnsureThenCleanupReplacesTheChainsOwnError() {
    let root = CancellablePromise<Int>(error: TestError(id: 1))
    let end = root.ensureThen(on: nil) { Promise<Void>(error: TestError(id: 2)).cancellize() }
    #expect(end.error as? TestError == TestError(id: 2))
  }

  @Test func aCancelHeldBackByAnEnsureThenWinsOverTheCleanupsError() {
    let (root, _) = CancellablePromise<Int>.pending()
    let (cleanup, finishCleanup) = CancellablePromise<Void>.pending()
    let end = root.ensureThen(on: nil) { cleanup }
    root.cancel()
    #expect(end.isPending)
    finishCleanup.reject(TestError(id: 3))
    #expect(isPMKCancelled(end.error), "the cancel was made first: it wins")
    #expect(end.isCancelled)
  }

  // MARK: A race or when input after a clean-up

  @Test func aCancelOfARaceOverAStageAfterAnEnsureReachesTheMembersBeforeTheCleanup() {
    let (root, _) = CancellablePromise<Int>.pending()
    let cleaned = Counter()
    let ensured = root.ensure(on: nil) { cleaned.increment() }
    let input = ensured.map(on: nil) { $0 + 1 }
    let raced = race([input])
    raced.cancel()
    #expect(isPMKCancelled(root.error), "the member before the clean-up is rejected during cancel()")
    #expect(cleaned.value == 1, "so the clean-up ran during cancel()")
    #expect(isPMKCancelled(ensured.error) && isPMKCancelled(input.error) && isPMKCancelled(raced.error))
  }

  @Test func aCancelOfAWhenOverAStageAfterAnEnsureReachesTheMembersBeforeTheCleanup() {
    let (root, _) = CancellablePromise<Int>.pending()
    let cleaned = Counter()
    let input = root.ensure(on: nil) { cleaned.increment() }.map(on: nil) { $0 + 1 }
    let joined = when(fulfilled: [input])
    joined.cancel()
    #expect(isPMKCancelled(root.error))
    #expect(cleaned.value == 1)
    #expect(isPMKCancelled(input.error) && isPMKCancelled(joined.error))
  }

  @Test func aCancelOfAnOuterChainReachesTheChainBeforeACleanupABodyReturned() {
    let (inner, _) = CancellablePromise<Int>.pending()
    let cleaned = Counter()
    let (gate, open) = CancellablePromise<Int>.pending()
    let outer = gate.then(on: nil) { _ in inner.ensure(on: nil) { cleaned.increment() } }
    open.fulfill(1)
    outer.cancel()
    #expect(isPMKCancelled(inner.error), "the chain before the returned clean-up is cancelled at once")
    #expect(isPMKCancelled(outer.error))
    #expect(cleaned.value == 1)
  }

  // MARK: A recover that had already settled

  @Test func aCancelOfTheChainBeforeASettledRecoverReachesAStageAddedAfterIt() {
    let root = Promise.value(1).cancellize()
    let recovered = root.recover(on: nil) { _ in Promise.value(7) }
    #expect(recovered.value == 1)
    root.cancel()
    let ran = Counter()
    let added = recovered.map(on: nil) { value -> Int in
      ran.increment()
      return value + 20
    }
    #expect(ran.value == 0, "no body starts after the cancel")
    #expect(isPMKCancelled(added.error))
    #expect(added.cancelAttempted)
  }

  @Test func aCancelOfTheChainBeforeASettledRecoverReachesAPendingStageAfterIt() {
    let root = Promise.value(1).cancellize()
    let recovered = root.recover(on: nil) { _ in Promise.value(7) }
    let (work, _) = Promise<Int>.pending()
    let pendingStage = recovered.then(on: nil) { _ in work }
    #expect(pendingStage.isPending)
    root.cancel()
    #expect(isPMKCancelled(pendingStage.error))
    #expect(pendingStage.isCancelled)
  }

  @Test func aCancelOfTheChainBeforeARecoverWhoseBodyIsQueuedStopsTheBranch() async {
    let queue = Self.busyQueue()
    let root = CancellablePromise<Int>(error: TestError(id: 1))
    let ran = Counter()
    let recovered = root.recover(on: queue) { _ -> Promise<Int> in
      ran.increment()
      return Promise.value(7)
    }
    root.cancel()
    #expect(isPMKCancelled(recovered.error), "the branch is rejected at once")
    queue.resume()
    _ = await outcome(of: Promise<Void>.value(()).map(on: queue) { _ in () })
    #expect(ran.value == 0, "no body starts after cancel() returned")
  }

  @Test func aRecoverThatHandlesTheCancelStillContinuesItsBranch() {
    let (root, _) = CancellablePromise<Int>.pending()
    let recovered = root.recover(on: nil, policy: .allErrors) { _ in Promise.value(7) }
    root.cancel()
    let next = recovered.map(on: nil) { $0 + 1 }
    #expect(next.value == 8)
    #expect(!recovered.cancelAttempted)
    #expect(root.isCancelled)
  }

  @Test func aRecoverThatDoesNotHandleTheCancelPassesItToItsBranchAsACancel() {
    let (root, _) = CancellablePromise<Int>.pending()
    let recovered = root.recover(on: nil) { _ in Promise.value(7) }
    let tapped = Recorder<Bool>()
    let tail = recovered.tap(on: nil) { tapped.record($0.isFulfilled) }
    root.cancel()
    #expect(isPMKCancelled(tail.error))
    #expect(tapped.values.isEmpty, "the tap's body does not start: its branch was cancelled")
    #expect(recovered.isCancelled && tail.isCancelled, "the cancel rejected the branch's members")
    #expect(recovered.cancelAttempted)
  }
}

extension LostCancelTests {
  @Test func aRejectingRaceInputCancelsAnotherInputAfterAnEnsureThroughItsCleanup() {
    let (root, _) = CancellablePromise<Int>.pending()
    let cleaned = Counter()
    let seenAfter = Recorder<Int>()
    let input = root.ensure(on: nil) { cleaned.increment() }.map(on: nil) { $0 }
    input.promise.pipe { _ in seenAfter.record(cleaned.value) }
    let raced = race([CancellablePromise<Int>(error: TestError(id: 5)), input])
    #expect(raced.error as? TestError == TestError(id: 5))
    #expect(isPMKCancelled(root.error), "the member before the clean-up is cancelled too")
    #expect(isPMKCancelled(input.error))
    #expect(seenAfter.values == [1], "the stage after the clean-up saw the rejection after the clean-up ran")
  }

  @Test func aRecoverOfAllErrorsAddedToAChainAlreadyCancelledStartsItsBranchAnew() {
    let root = CancellablePromise<Void>()
    root.cancel()
    let recovered = root.recover(on: nil, policy: .allErrors) { (_: Error) in }
    let done = recovered.done(on: nil) {}
    #expect(done.isFulfilled, "as PromiseKit 7's recover, which un-cancels the chain there")
    #expect(!recovered.cancelAttempted)
    #expect(root.cancelAttempted, "the chain before it stays cancelled")
    let defaultPolicy = root.recover(on: nil) { (_: Error) in }
    #expect(isPMKCancelled(defaultPolicy.error), "a recover that does not handle cancellations is cancelled with it")
  }

  @Test func aTapAfterARaceSeesTheCancelRejectionOfAnInputItsChainWasNotCancelled() {
    let (root, _) = CancellablePromise<Int>.pending()
    let raced = race([root.map(on: nil) { $0 }])
    let seen = Recorder<Bool>()
    let tapped = raced.tap(on: nil) { result in
      if case .rejected(let error) = result { seen.record(error.isCancelled) }
    }
    root.cancel()
    #expect(seen.values == [true], "the race's own chain was not cancelled: its tap sees the rejection")
    #expect(isPMKCancelled(tapped.error))
    #expect(!tapped.cancelAttempted)
  }

  @Test func aTapAfterARecoverThatRethrowsTheCancelSeesIt() {
    let (root, _) = CancellablePromise<Int>.pending()
    let recovered = root.recover(on: nil, policy: .allErrors) { error -> Promise<Int> in throw error }
    let seen = Recorder<Bool>()
    let tapped = recovered.tap(on: nil) { result in
      if case .rejected(let error) = result { seen.record(error.isCancelled) }
    }
    root.cancel()
    #expect(seen.values == [true], "the recover handled the cancel: its branch goes on with the rethrown error")
    #expect(isPMKCancelled(tapped.error))
  }

  @Test func aChainLinkedWithAppendCancelContextReachesTheMembersBeforeACleanup() {
    let (root, _) = CancellablePromise<Int>.pending()
    let cleaned = Counter()
    let afterCleanup = root.ensure(on: nil) { cleaned.increment() }
    let (other, _) = CancellablePromise<Int>.pending()
    other.appendCancelContext(from: afterCleanup)
    other.cancel()
    #expect(isPMKCancelled(root.error), "the member before the clean-up is rejected during cancel()")
    #expect(cleaned.value == 1)
    #expect(isPMKCancelled(afterCleanup.error))
  }
}
