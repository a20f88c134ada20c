import Dispatch
import Promises
import TestSupport
import Testing

/// `map(on: nil)` and `then(on: nil)` after a member that has already settled run their body
/// inside the call and make the new member settled (it never waits in the chain): the rules of a
/// stage that waits still hold.
@Suite("Cancellable promises: stages after a settled member")
struct SettledParentStageTests {
  @Test func aMapBodyRunsInsideTheCallAndTheMemberIsSettled() {
    let ran = Counter()
    let stage = Promise.value(1).cancellize().map(on: nil) { value -> Int in
      ran.increment()
      return value + 1
    }
    #expect(ran.value == 1, "the body ran before map returned")
    #expect(stage.value == 2)
    stage.cancel()
    #expect(stage.value == 2, "a settled member stays settled")
    #expect(!stage.isCancelled && stage.cancelAttempted)
  }

  @Test func noBodyStartsAfterTheChainWasCancelled() {
    let root = Promise.value(1).cancellize()
    root.cancel()
    let ran = Counter()
    let mapped = root.map(on: nil) { value -> Int in
      ran.increment()
      return value
    }
    let thenned = root.then(on: nil) { value -> CancellablePromise<Int> in
      ran.increment()
      return Promise.value(value).cancellize()
    }
    let thennedPlain = root.then(on: nil) { value -> Promise<Int> in
      ran.increment()
      return Promise.value(value)
    }
    #expect(ran.value == 0)
    #expect(isPMKCancelled(mapped.error) && isPMKCancelled(thenned.error) && isPMKCancelled(thennedPlain.error))
    #expect(root.cancelContext.isCancelled, "the cancel rejected the new members")
  }

  @Test func aCancelDuringTheBodyWinsOverWhatTheBodyReturns() {
    let root = Promise.value(1).cancellize()
    let mapped = root.map(on: nil) { value -> Int in
      root.cancel(error: TestError(id: 7))
      return value
    }
    #expect(mapped.error as? TestError == TestError(id: 7))
    #expect(root.cancelContext.isCancelled)

    let other = Promise.value(1).cancellize()
    let thenned = other.then(on: nil) { value -> Promise<Int> in
      other.cancel(error: TestError(id: 8))
      return Promise.value(value)
    }
    #expect(thenned.error as? TestError == TestError(id: 8))
    #expect(other.cancelContext.isCancelled)
  }

  @Test func aRejectionPassesThroughAndAThrownErrorRejects() {
    let rejected = Promise<Int>(error: TestError(id: 1)).cancellize()
    #expect(rejected.map(on: nil) { $0 + 1 }.error as? TestError == TestError(id: 1))
    #expect(rejected.then(on: nil) { Promise.value($0).cancellize() }.error as? TestError == TestError(id: 1))
    let resolved = Promise.value(1).cancellize()
    let thrown = resolved.map(on: nil) { _ -> Int in throw TestError(id: 2) }
    let thrownByThen = resolved.then(on: nil) { _ -> CancellablePromise<Int> in throw TestError(id: 3) }
    #expect(thrown.error as? TestError == TestError(id: 2))
    #expect(thrownByThen.error as? TestError == TestError(id: 3))
    // A cancel after the chain settled replaces nothing, and the rejected root keeps its error.
    resolved.cancel()
    #expect(thrown.error as? TestError == TestError(id: 2) && !resolved.isCancelled)
    rejected.cancel()
    #expect(rejected.error as? TestError == TestError(id: 1))
  }

  @Test func aThenThatReturnsPendingWorkWaitsAndTheCancelReachesTheWork() {
    let task = CountingTask()
    let (work, resolver) = Promise<Int>.pending()
    let root = Promise.value(1).cancellize()
    let stage = root.then(on: nil) { _ in CancellablePromise(task: task, promise: work, resolver: resolver) }
    #expect(stage.isPending, "it waits for the work the body returned")
    let after = stage.map(on: nil) { $0 + 1 }
    #expect(after.isPending)
    root.cancel()
    #expect(task.cancels.value == 1, "the returned chain is linked into this one")
    #expect(isPMKCancelled(stage.error) && isPMKCancelled(after.error))
    #expect(root.cancelContext.isCancelled)
    resolver.fulfill(5)
    #expect(isPMKCancelled(stage.error), "the first resolution wins")
  }

  @Test func aThenThatReturnsAPlainPendingPromiseIsRejectedByACancelWhileThePromiseRuns() {
    let (work, resolver) = Promise<Int>.pending()
    let stage = Promise.value(1).cancellize().then(on: nil) { _ in work }
    #expect(stage.isPending)
    stage.cancel()
    #expect(isPMKCancelled(stage.error) && work.isPending, "the plain promise keeps running")
    resolver.fulfill(2)
    #expect(work.value == 2 && isPMKCancelled(stage.error))
  }

  @Test func aThenThatReturnsPendingWorkSettlesLikeIt() {
    let (work, resolver) = Promise<Int>.pending()
    let stage = Promise.value(1).cancellize().then(on: nil) { _ in work.cancellize() }
    resolver.fulfill(3)
    #expect(stage.value == 3)
    let (failing, failingResolver) = Promise<Int>.pending()
    let failed = Promise.value(1).cancellize().then(on: nil) { _ in failing }
    failingResolver.reject(TestError(id: 4))
    #expect(failed.error as? TestError == TestError(id: 4))
  }

  /// A body that returns a settled member of another chain: the new member settles at once, and
  /// the other chain is still linked, so a later cancel of this chain reaches what waits in it.
  @Test func aThenThatReturnsASettledMemberStillLinksItsChain() {
    let returned = Promise.value(2).cancellize()
    let (work, resolver) = Promise<Int>.pending()
    let waitingInReturnedChain = returned.then(on: nil) { _ in work.cancellize() }
    let root = Promise.value(1).cancellize()
    let stage = root.then(on: nil) { _ in returned }
    #expect(stage.value == 2)
    root.cancel()
    #expect(isPMKCancelled(waitingInReturnedChain.error), "the cancel went through the link")
    #expect(returned.value == 2)
    resolver.fulfill(1)
  }

  @Test func aBodyThatReturnsASettledMemberOfACancelledChainGetsItsValue() {
    let returned = Promise.value(2).cancellize()
    returned.cancel(error: TestError(id: 9))
    // The chain returned was cancelled before: linking it does not cancel this one, and the member
    // follows the returned member, which had settled before that cancel.
    let stage = Promise.value(1).cancellize().then(on: nil) { _ in returned }
    #expect(stage.value == 2)
  }

  @Test func aPlainThenAfterASettledPromiseRunsItsBodyInsideTheCall() {
    let ran = Counter()
    let settled = Promise.value(1).then(on: nil) { value -> Promise<Int> in
      ran.increment()
      return Promise.value(value + 1)
    }
    #expect(ran.value == 1 && settled.value == 2)
    let (work, resolver) = Promise<Int>.pending()
    let waiting = Promise.value(1).then(on: nil) { _ in work }
    #expect(waiting.isPending)
    resolver.fulfill(3)
    #expect(waiting.value == 3)
    let thrown = Promise.value(1).then(on: nil) { _ -> Promise<Int> in throw TestError(id: 1) }
    let passed = Promise<Int>(error: TestError(id: 2)).then(on: nil) { Promise.value($0) }
    #expect(thrown.error as? TestError == TestError(id: 1) && passed.error as? TestError == TestError(id: 2))
  }

  @Test func aSettledPromiseMadeCancellableIsItsOwnMembersPromise() {
    let settled = Promise.value(1)
    let member = settled.cancellize()
    #expect(member.promise === settled, "a settled promise never changes: no copy is made")
    member.cancel()
    #expect(settled.value == 1 && member.value == 1)
  }

  /// A stage added by a handler of a settled promise while its other handlers are still being
  /// delivered runs after them, in registration order, whatever the spelling (found by the
  /// break-it review: the stage used to overtake the handlers registered before it).
  @Test(arguments: ["then", "map", "cancellable then", "cancellable plain then", "cancellable map", "cancellable done"])
  func aStageAddedDuringItsParentsDeliveryRunsAfterTheEarlierHandlers(spelling: String) {
    let log = Recorder<String>()
    let (root, resolver) = Promise<Int>.pending()
    let member = root.cancellize()
    @Sendable func logged(_ value: Int) -> Int {
      log.record("C")
      return value
    }
    @Sendable func addStage() {
      switch spelling {
      case "then": _ = root.then(on: nil) { Promise.value(logged($0)) }
      case "map": _ = root.map(on: nil, logged)
      case "cancellable then": _ = member.then(on: nil) { Promise.value(logged($0)).cancellize() }
      case "cancellable plain then": _ = member.then(on: nil) { Promise.value(logged($0)) }
      case "cancellable map": _ = member.map(on: nil, logged)
      default: _ = member.done(on: nil) { _ = logged($0) }
      }
    }
    let parent = spelling.hasPrefix("cancellable") ? member.promise : root
    parent.done(on: nil) { _ in
      log.record("A")
      addStage()
    }.cauterize()
    parent.done(on: nil) { _ in log.record("B") }.cauterize()
    resolver.fulfill(1)
    #expect(log.values == ["A", "B", "C"])
  }

  /// A cancel on another thread against a body running on this one: the member is either
  /// fulfilled (the cancel came after its claim) or rejected with the cancel error, and the chain
  /// reports a rejected member exactly when it is rejected.
  @Test func aCancelRacesAMapBody() {
    final class Round: Sendable {
      let root = Promise.value(1).cancellize()
      let stage = Locked<CancellablePromise<Int>?>(nil)
    }
    race(iterations: Stress.iterations(20_000)) {
      Round()
    } _: { round in
      let stage = round.root.map(on: nil) { $0 + 1 }
      round.stage.withLock { $0 = stage }
    } _: { round in
      round.root.cancel(error: TestError(id: 5))
    } check: { round in
      guard let stage = round.stage.withLock({ $0 }) else {
        Issue.record("no stage")
        return
      }
      if let error = stage.error {
        #expect(error as? TestError == TestError(id: 5))
        #expect(round.root.cancelContext.isCancelled)
      } else {
        #expect(stage.value == 2)
        #expect(!round.root.cancelContext.isCancelled, "only a rejected member makes the chain cancelled")
      }
    }
  }
}
