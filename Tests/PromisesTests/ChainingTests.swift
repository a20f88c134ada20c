import Dispatch
import Promises
import TestSupport
import Testing

@Suite("Thenable and CatchMixin chaining")
struct ChainingTests {
  @Test func thenMapCompactMapDoneGetTapAsVoid() {
    let seen = Recorder<String>()
    let result = Promise.value(2)
      .then(on: nil) { Promise.value($0 * 10) }
      .map(on: nil) { $0 + 1 }
      .compactMap(on: nil) { Int("\($0)") }
      .get(on: nil) { seen.record("get \($0)") }
      .tap(on: nil) { seen.record("tap \((try? $0.get()) ?? -1)") }
    #expect(result.value == 21)
    let done = result.done(on: nil) { seen.record("done \($0)") }
    #expect(done.isFulfilled)
    #expect(result.asVoid().isFulfilled)
    #expect(seen.values == ["get 21", "tap 21", "done 21"])
  }

  @Test func thenAcceptsAGuaranteeAndGuaranteeChainsStayGuarantees() {
    let promise = Promise.value(1).then(on: nil) { Guarantee.value($0 + 1) }
    #expect(promise.value == 2)
    let guarantee: Guarantee<Int> = Guarantee.value(1).map(on: nil) { $0 + 1 }.then(on: nil) { Guarantee.value($0 * 3) }
    #expect(guarantee.value == 6)
    let recorded = Recorder<Int>()
    let voided: Guarantee<Void> = guarantee.get(on: nil) { recorded.record($0) }.done(on: nil) { recorded.record($0) }
    #expect(voided.value != nil)
    #expect(recorded.values == [6, 6])
    #expect(guarantee.asVoid().value != nil)
  }

  @Test func aRejectionSkipsBodiesAndReachesCatch() {
    let ran = Counter()
    let caught = Recorder<Int>()
    let finallyRan = Counter()
    Promise<Int>(error: TestError(id: 4))
      .map(on: nil) { _ in ran.increment() }
      .then(on: nil) { _ -> Promise<Int> in
        ran.increment()
        return .value(1)
      }
      .done(on: nil) { _ in ran.increment() }
      .catch(on: nil) { caught.record(($0 as? TestError)?.id ?? -1) }
      .finally(on: nil) { finallyRan.increment() }
    #expect(ran.value == 0)
    #expect(caught.values == [4])
    #expect(finallyRan.value == 1)
  }

  @Test func throwingBodiesReject() {
    let mapped = Promise.value(1).map(on: nil) { _ -> Int in throw TestError(id: 5) }
    #expect(mapped.error as? TestError == TestError(id: 5))
    let compact = Promise.value("x").compactMap(on: nil) { Int($0) }
    guard case PMKError.compactMap(let value, let type)? = compact.error else {
      Issue.record("expected PMKError.compactMap")
      return
    }
    #expect(value as? String == "x")
    #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
  }

  @Test func returningItsOwnPromiseRejectsWithReturnedSelf() {
    let (root, resolver) = Promise<Int>.pending()
    let box = Recorder<Promise<Int>>()
    let chained = root.then(on: nil) { _ in box.values[0] }
    box.record(chained)
    resolver.fulfill(1)
    guard case PMKError.returnedSelf? = chained.error else {
      Issue.record("expected returnedSelf, got \(String(describing: chained.result))")
      return
    }
  }

  @Test func catchPolicySkipsCancellationByDefault() {
    let caught = Counter()
    let finallyRan = Counter()
    Promise<Int>(error: PMKError.cancelled).catch(on: nil) { _ in caught.increment() }.finally(on: nil) {
      finallyRan.increment()
    }
    #expect(caught.value == 0)
    #expect(finallyRan.value == 1, "finally runs even when catch skipped a cancellation")
    Promise<Int>(error: PMKError.cancelled).catch(on: nil, policy: .allErrors) { _ in caught.increment() }
    #expect(caught.value == 1)
    #expect(PMKError.cancelled.isCancelled)
    #expect(CancellationError().isCancelled)
    #expect(!TestError().isCancelled)
    #expect(!PMKError.badInput.isCancelled)
    let cancelled: any Error = CancellablePromiseError.cancelled
    #expect(cancelled.isCancellation)
  }

  @Test func recoverReplacesTheErrorAccordingToPolicy() {
    let recovered = Promise<Int>(error: TestError()).recover(on: nil) { _ in Promise.value(9) }
    #expect(recovered.value == 9)
    let rethrown = Promise<Int>(error: TestError(id: 1)).recover(on: nil) { _ -> Promise<Int> in throw TestError(id: 2)
    }
    #expect(rethrown.error as? TestError == TestError(id: 2))
    let skipped = Promise<Int>(error: PMKError.cancelled).recover(on: nil) { _ in Promise.value(9) }
    #expect(skipped.error?.isCancelled == true)
    let all = Promise<Int>(error: PMKError.cancelled).recover(on: nil, policy: .allErrors) { _ in Promise.value(9) }
    #expect(all.value == 9)
    let passed = Promise.value(1).recover(on: nil) { _ in Promise.value(9) }
    #expect(passed.value == 1)
    let guarantee: Guarantee<Int> = Promise<Int>(error: PMKError.cancelled).recover(on: nil) { _ in Guarantee.value(3) }
    #expect(guarantee.value == 3)
    let voidRecovered = Promise<Void>(error: TestError()).recover(on: nil) { (_: Error) in }
    #expect(voidRecovered.isFulfilled)
    let voidRethrown = Promise<Void>(error: TestError()).recover(on: nil) { (error: Error) throws -> Void in throw error
    }
    #expect(voidRethrown.isRejected)
  }

  @Test func ensureAndEnsureThenAlwaysRunAndKeepTheResult() {
    let ran = Recorder<String>()
    let fulfilled = Promise.value(1).ensure(on: nil) { ran.record("ensure ok") }
    let rejected = Promise<Int>(error: TestError()).ensure(on: nil) { ran.record("ensure err") }
    #expect(fulfilled.value == 1)
    #expect(rejected.isRejected)
    let (cleanup, finishCleanup) = Guarantee<Void>.pending()
    let waited = Promise.value(2).ensureThen(on: nil) {
      ran.record("ensureThen")
      return cleanup
    }
    #expect(waited.isPending, "waits for the guarantee the body returned")
    finishCleanup(())
    #expect(waited.value == 2)
    #expect(ran.values == ["ensure ok", "ensure err", "ensureThen"])
    let finallyRan = Counter()
    Promise<Int>(error: TestError()).finally(on: nil) { finallyRan.increment() }
    #expect(finallyRan.value == 1)
  }

  @Test func cauterizeEndsTheChain() {
    let (promise, resolver) = Promise<Int>.pending()
    promise.cauterize()
    resolver.fulfill(1)
    #expect(promise.value == 1)
  }

  @Test func sequenceMethods() {
    let numbers = Promise.value([3, 1, 2])
    #expect(numbers.mapValues(on: nil) { $0 * 2 }.value == [6, 2, 4])
    #expect(numbers.flatMapValues(on: nil) { [$0, $0] }.value == [3, 3, 1, 1, 2, 2])
    #expect(numbers.compactMapValues(on: nil) { $0 > 1 ? $0 : nil }.value == [3, 2])
    #expect(numbers.thenMap(on: nil) { Promise.value($0 + 1) }.value == [4, 2, 3])
    #expect(numbers.thenFlatMap(on: nil) { Promise.value([$0]) }.value == [3, 1, 2])
    #expect(numbers.filterValues(on: nil) { $0 != 1 }.value == [3, 2])
    #expect(numbers.firstValue.value == 3)
    #expect(numbers.firstValue(on: nil) { $0 < 3 }.value == 1)
    #expect(numbers.lastValue.value == 2)
    #expect(numbers.sortedValues(on: nil).value == [1, 2, 3])
    let empty = Promise.value([Int]())
    guard case PMKError.emptySequence? = empty.firstValue.error, case PMKError.emptySequence? = empty.lastValue.error
    else {
      Issue.record("expected emptySequence")
      return
    }
    let guaranteed = Guarantee.value([2, 1])
    #expect(guaranteed.mapValues(on: nil) { $0 + 1 }.value == [3, 2])
    #expect(guaranteed.filterValues(on: nil) { $0 > 1 }.value == [2])
    #expect(guaranteed.sortedValues(on: nil).value == [1, 2])
  }

  @Test func handlersRunOnTheQueueGiven() async {
    let queue = QueueProbe.make("chain")
    let labels: [String?] = await withCheckedContinuation { continuation in
      Promise.value(1)
        .map(on: queue) { _ in [QueueProbe.label] }
        .then(on: queue) { Promise.value($0 + [QueueProbe.label]) }
        .done(on: queue) { continuation.resume(returning: $0 + [QueueProbe.label]) }
        .cauterize()
    }
    #expect(labels == ["chain", "chain", "chain"])
  }
}
