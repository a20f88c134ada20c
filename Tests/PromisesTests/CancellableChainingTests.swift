import CancelCore
import Dispatch
import Promises
import TestSupport
import Testing

@Suite("Cancellable chains: every method keeps the chain cancellable")
struct CancellableChainingTests {
  @Test func everyChainingMethodReturnsAMemberOfTheSameChain() {
    let (root, resolver) = CancellablePromise<[Int]>.pending()
    let members: [any CancellableThenable] = [
      root.map(on: nil) { $0 }, root.compactMap(on: nil) { $0 }, root.done(on: nil) { _ in },
      root.get(on: nil) { _ in }, root.tap(on: nil) { _ in }, root.asVoid(),
      root.then(on: nil) { Promise.value($0) }, root.cancellableThen(on: nil) { CancellablePromise(Promise.value($0)) },
      root.ensure(on: nil) {}, root.ensureThen(on: nil) { CancellablePromise<Void>() },
      root.mapValues(on: nil) { $0 }, root.flatMapValues(on: nil) { [$0] }, root.compactMapValues(on: nil) { $0 },
      root.thenMap(on: nil) { Promise.value($0) },
      root.cancellableThenMap(on: nil) { CancellablePromise(Promise.value($0)) },
      root.thenFlatMap(on: nil) { Promise.value([$0]) },
      root.cancellableThenFlatMap(on: nil) { CancellablePromise(Promise.value([$0])) },
      root.filterValues(on: nil) { _ in true }, root.firstValue, root.lastValue, root.sortedValues(on: nil),
    ]
    for (index, member) in members.enumerated() {
      if index == 8 || index == 9 {
        // After an ensure the chain goes on in a context of its own, linked both ways, so that a
        // cancel waits for the cleanup (see EnsureOrderingTests).
        #expect(member.cancelContext !== root.cancelContext)
      } else {
        #expect(member.cancelContext === root.cancelContext)
      }
    }
    members.last!.cancel()
    resolver.fulfill([1])
    for member in members {
      #expect(member.isRejected && member.isCancelled)
    }
  }

  @Test func chainingMethodsComputeValuesWhenNotCancelled() {
    let root = CancellablePromise(Promise.value([3, 1, 2]))
    #expect(root.map(on: nil) { $0.count }.value == 3)
    #expect(root.compactMap(on: nil) { $0.first }.value == 3)
    #expect(root.mapValues(on: nil) { $0 * 2 }.value == [6, 2, 4])
    #expect(root.flatMapValues(on: nil) { [$0, $0] }.value?.count == 6)
    #expect(root.compactMapValues(on: nil) { $0 > 1 ? $0 : nil }.value == [3, 2])
    #expect(root.thenMap(on: nil) { Promise.value($0 + 1) }.value == [4, 2, 3])
    #expect(root.cancellableThenMap(on: nil) { CancellablePromise(Promise.value($0)) }.value == [3, 1, 2])
    #expect(root.thenFlatMap(on: nil) { Promise.value([$0]) }.value == [3, 1, 2])
    #expect(root.filterValues(on: nil) { $0 > 1 }.value == [3, 2])
    #expect(root.firstValue.value == 3 && root.lastValue.value == 2)
    #expect(root.sortedValues(on: nil).value == [1, 2, 3])
    let seen = Recorder<String>()
    let tail = root.get(on: nil) { _ in seen.record("get") }.tap(on: nil) { _ in seen.record("tap") }
      .done(on: nil) { _ in seen.record("done") }
    #expect(tail.isFulfilled)
    #expect(seen.values == ["get", "tap", "done"])
    #expect(root.thenable === root.promise)
  }

  @Test func ensureEnsureThenAndFinallyAlwaysRunOnACancelledChain() {
    let (root, _) = CancellablePromise<Int>.pending()
    let ran = Recorder<String>()
    let caught = Counter()
    let (cleanup, finishCleanup) = CancellablePromise<Void>.pending()
    let ensured = root.ensure(on: nil) { ran.record("ensure") }
    let ensuredThen = ensured.ensureThen(on: nil) {
      ran.record("ensureThen")
      return cleanup
    }
    ensuredThen.catch(on: nil) { _ in caught.increment() }.finally(on: nil) { ran.record("finally") }
    ensuredThen.finally(on: nil) { ran.record("member finally") }
    root.cancel()
    #expect(cleanup.isPending, "the clean-up chain ensureThen returned is not cancelled by the cancel")
    #expect(Set(ran.values) == ["ensure", "ensureThen"], "the stages after it wait for the clean-up")
    finishCleanup.fulfill(())
    // The set, not the order, is the point here.
    #expect(Set(ran.values) == ["ensure", "ensureThen", "finally", "member finally"])
    #expect(ran.values.count == 4)
    #expect(caught.value == 0, "the default policy skips cancellations")
    root.cauterize()
  }

  @Test func aCancelRejectsTheMembersInChainOrder() {
    let (root, _) = CancellablePromise<Int>.pending()
    let first = root.map(on: nil) { $0 + 1 }
    let second = first.map(on: nil) { $0 + 1 }
    let order = Recorder<String>()
    second.catch(on: nil, policy: .allErrors) { _ in order.record("second") }
    root.catch(on: nil, policy: .allErrors) { _ in order.record("root") }
    first.catch(on: nil, policy: .allErrors) { _ in order.record("first") }
    second.cancel()
    #expect(order.values == ["root", "first", "second"], "oldest member first, whatever the order of the handlers")
    #expect(second.isCancelled)
  }

  @Test func aSynchronousHandlerOfARejectedMemberSeesTheChainCancelled() {
    let (root, _) = CancellablePromise<Int>.pending()
    let seen = Recorder<String>()
    // Registered first, so it runs before anything else the root's rejection reaches.
    root.catch(on: nil, policy: .allErrors) { _ in seen.record("root: \(root.isCancelled)") }
    let stage = root.map(on: nil) { $0 + 1 }
    stage.catch(on: nil, policy: .allErrors) { _ in seen.record("stage: \(stage.isCancelled)") }
    root.cancel()
    #expect(seen.values == ["root: true", "stage: true"])
  }

  @Test func catchWithAllErrorsSeesTheCancellation() {
    let (root, _) = CancellablePromise<Int>.pending()
    let caught = Recorder<Bool>()
    root.done(on: nil) { _ in }.catch(on: nil, policy: .allErrors) { caught.record($0.isCancelled) }
    root.cancel()
    #expect(caught.values == [true])
  }

  @Test func recoverHandlingACancellationContinuesOnlyItsOwnBranch() {
    let (root, _) = CancellablePromise<Int>.pending()
    let upstream = root.map(on: nil) { $0 }
    let recovered = upstream.recover(on: nil, policy: .allErrors) { _ in Promise.value(42) }
    let branchTail = recovered.map(on: nil) { $0 + 1 }
    let sibling = upstream.map(on: nil) { $0 }
    root.cancel()
    #expect(branchTail.value == 43, "the recover's branch continues")
    #expect(!branchTail.isCancelled)
    #expect(isPMKCancelled(sibling.error), "the rest of the chain stays cancelled")
    #expect(root.isCancelled && upstream.cancelAttempted, "the recover never un-cancels the context")
    // Default policy: the cancellation passes through recover.
    let (root2, _) = CancellablePromise<Int>.pending()
    let passed = root2.recover(on: nil) { _ in Promise.value(1) }.map(on: nil) { $0 }
    root2.cancel()
    #expect(isPMKCancelled(passed.error))
  }

  @Test func cancellingTheRecoverBranchCancelsTheChainBeforeIt() {
    let (root, _) = CancellablePromise<Int>.pending()
    let recovered = root.cancellableRecover(on: nil) { _ in CancellablePromise(Promise.value(1)) }
    let voidRecovered = root.asVoid().recover(on: nil) { (_: Error) in }
    let handling = root.recover(on: nil, policy: .allErrors) { _ in Promise.value(2) }
    recovered.cancel()
    #expect(isPMKCancelled(root.error) && isPMKCancelled(recovered.error))
    #expect(isPMKCancelled(voidRecovered.error), "a branch whose recover does not handle the cancel is cancelled")
    #expect(voidRecovered.cancelAttempted && voidRecovered.isCancelled)
    #expect(handling.value == 2, "a branch whose recover handles the cancel goes on")
    #expect(!handling.cancelAttempted)
  }

  @Test func cancellableRecoverLinksTheReturnedChain() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    let (replacement, _) = CancellablePromise<Int>.pending()
    let recovered = root.cancellableRecover(on: nil) { _ in replacement }
    resolver.reject(TestError())
    recovered.cancel()
    #expect(isPMKCancelled(replacement.error), "cancelling the branch reached the chain recover returned")
  }
}

@Suite("Cancellable combinators")
struct CancellableCombinatorTests {
  @Test func firstlyLinksTheChainItsBodyReturns() throws {
    let (inner, _) = CancellablePromise<Int>.pending()
    let chain = firstly { inner }
    chain.cancel()
    #expect(isPMKCancelled(inner.error))
    let thrown = firstly { () throws -> CancellablePromise<Int> in throw TestError() }
    #expect(thrown.isRejected)
    #expect(try hang(CancellablePromise(Promise.value(3))) == 3)
  }

  @Test func raceWithoutAutoCancelMakesInputsMembers() {
    let (a, ra) = CancellablePromise<Int>.pending()
    let (b, _) = CancellablePromise<Int>.pending()
    let winner = race(a, b)
    ra.fulfill(1)
    #expect(winner.value == 1)
    #expect(b.isPending, "a fulfilled race leaves the others running")
    let (c, _) = CancellablePromise<Int>.pending()
    let (d, _) = CancellablePromise<Int>.pending()
    race([c, d]).cancel()
    #expect(isPMKCancelled(c.error) && isPMKCancelled(d.error), "cancelling the result cancels the inputs")
    let (e, re) = CancellablePromise<Int>.pending()
    let (f, _) = CancellablePromise<Int>.pending()
    let rejected = race([e, f])
    re.reject(TestError())
    #expect(rejected.isRejected && isPMKCancelled(f.error), "a rejecting input cancels the rest")
    guard case PMKError.badInput? = race([CancellablePromise<Int>]()).error else {
      Issue.record("empty race")
      return
    }
  }

  @Test func raceAutoCancelTrueCancelsLosersAndFalseTouchesNothing() {
    let (a, ra) = CancellablePromise<Int>.pending()
    let (b, _) = CancellablePromise<Int>.pending()
    let winner = race([a, b], autoCancel: true)
    ra.fulfill(1)
    #expect(winner.value == 1 && isPMKCancelled(b.error), "the loser is cancelled as soon as one wins")
    let (c, _) = CancellablePromise<Int>.pending()
    race([c], autoCancel: true).cancel()
    #expect(isPMKCancelled(c.error))
    let (d, rd) = CancellablePromise<Int>.pending()
    let (e, _) = CancellablePromise<Int>.pending()
    let untouched = race([d, e], autoCancel: false)
    rd.reject(TestError())
    untouched.cancel()
    #expect(e.isPending && !e.cancelAttempted, "autoCancel: false never touches the inputs")
  }

  @Test func whenFulfilledSpellings() {
    let (a, ra) = CancellablePromise<Int>.pending()
    let (b, rb) = CancellablePromise<Int>.pending()
    let all = when(fulfilled: a, b)
    ra.fulfill(1)
    rb.fulfill(2)
    #expect(all.value == [1, 2])
    let (c, _) = CancellablePromise<Int>.pending()
    when(fulfilled: [c]).cancel()
    #expect(isPMKCancelled(c.error), "PromiseKit 7 spelling: inputs are members")
    let (d, rd) = CancellablePromise<Int>.pending()
    let (e, _) = CancellablePromise<Int>.pending()
    let members = when(fulfilled: [d, e])
    rd.reject(TestError())
    #expect(members.isRejected && e.isPending, "a settled result leaves the others alone")
    let (f, rf) = CancellablePromise<Int>.pending()
    let (g, _) = CancellablePromise<Int>.pending()
    let auto = when(fulfilled: [f, g], autoCancel: true)
    rf.reject(TestError())
    #expect(auto.isRejected && isPMKCancelled(g.error))
    let (h, _) = CancellablePromise<Int>.pending()
    when(fulfilled: [h], autoCancel: false).cancel()
    #expect(h.isPending)
  }

  @Test func whenResolvedSpellings() {
    let (a, ra) = CancellablePromise<Int>.pending()
    let all = when(resolved: a, CancellablePromise(error: TestError()))
    ra.fulfill(1)
    #expect(all.value?.count == 2)
    let (b, _) = CancellablePromise<Int>.pending()
    when(resolved: [b]).cancel()
    #expect(isPMKCancelled(b.error))
    let (c, _) = CancellablePromise<Int>.pending()
    when(resolved: [c], autoCancel: true).cancel()
    #expect(isPMKCancelled(c.error))
    let (d, _) = CancellablePromise<Int>.pending()
    let untouched = when(resolved: [d], autoCancel: false)
    untouched.cancel()
    #expect(d.isPending && isPMKCancelled(untouched.error))
  }

  @Test func whenFulfilledConcurrentlyLimitsInFlightAndStopsOnCancel() {
    let resolvers = Recorder<Resolver<Int>>()
    let members = Recorder<CancellablePromise<Int>>()
    var produced = 0
    let iterator = AnyIterator<CancellablePromise<Int>> {
      guard produced < 5 else { return nil }
      produced += 1
      let (promise, resolver) = CancellablePromise<Int>.pending()
      resolvers.record(resolver)
      members.record(promise)
      return promise
    }
    let all = when(fulfilled: iterator, concurrently: 2)
    #expect(resolvers.values.count == 2, "two in flight")
    resolvers.values[0].fulfill(0)
    #expect(resolvers.values.count == 3)
    all.cancel()
    #expect(isPMKCancelled(members.values[1].error) && isPMKCancelled(members.values[2].error))
    resolvers.values[1].fulfill(1)
    #expect(resolvers.values.count == 3, "no new input starts after cancel")
    #expect(isPMKCancelled(all.error))

    let values = (0..<10).map { CancellablePromise(Promise.value($0)) }
    #expect(when(fulfilled: values.makeIterator(), concurrently: 3).value == Array(0..<10))
    let failing = [CancellablePromise(Promise.value(1)), CancellablePromise<Int>(error: TestError())]
    #expect(when(fulfilled: failing.makeIterator(), concurrently: 1).isRejected)
    // A rejection stops the pulling, even when the rejected input was already settled.
    let pulls = Counter()
    let rejecting = AnyIterator<CancellablePromise<Int>> {
      pulls.increment()
      return CancellablePromise<Int>(error: TestError())
    }
    #expect(when(fulfilled: rejecting, concurrently: 2).isRejected)
    #expect(pulls.value == 1)
  }

  @Test func whenWhileRejectsWhenTheCancelPromiseRejects() {
    let (work, _) = Promise<Int>.pending()
    let (cancelPromise, cancelResolver) = Promise<Void>.pending()
    let watched = when(work, while: cancelPromise)
    cancelResolver.reject(PMKError.cancelled)
    #expect(isPMKCancelled(watched.error))
    let done = when(Promise.value(2), while: Promise<Void>.pending().promise)
    #expect(done.value == 2)
  }

  @Test func cancellingACancellableAfterStopsTheTimerWithoutAWarning() {
    let time = ManualDeadlineScheduler()
    let timer = after(.seconds(5), scheduler: time)
    let wrapped = cancellable(timer)
    #expect(time.pendingCount == 1)
    wrapped.cancel()
    #expect(time.pendingCount == 0, "cancelling stopped the timer")
    #expect(isPMKCancelled(wrapped.error))
    time.advance(by: .seconds(10))
    #expect(timer.value == nil, "the stopped timer never fires")
  }

  @Test func cancellingARealAfterWrapperRejects() async {
    let wrapped = cancellable(after(seconds: 60))
    wrapped.cancel()
    let result = await outcome(of: wrapped.promise)
    #expect(isPMKCancelled(failure(result)))
  }
}
