import CancelCore
import Dispatch
import Promises
import TestSupport
import Testing

/// PromiseKit 7 and CancellablePromiseKit spellings that their code compiles against unchanged.
@Suite("PromiseKit 7 and CancellablePromiseKit compatibility")
struct PromiseKit7CompatibilityTests {
  @Test func eachSpellingAcceptsBothKindsOfBody() {
    let root = CancellablePromise(Promise.value([1, 2]))
    let plainThen = root.cancellableThen(on: nil) { Promise.value($0.count) }
    let cancellableMap = root.thenMap(on: nil) { CancellablePromise(Promise.value($0 * 10)) }
    let plainMap = root.cancellableThenMap(on: nil) { Promise.value($0 + 1) }
    let cancellableFlat = root.thenFlatMap(on: nil) { CancellablePromise(Promise.value([$0, $0])) }
    let plainFlat = root.cancellableThenFlatMap(on: nil) { Promise.value([$0]) }
    #expect(plainThen.value == 2)
    #expect(cancellableMap.value == [10, 20])
    #expect(plainMap.value == [2, 3])
    #expect(cancellableFlat.value == [1, 1, 2, 2])
    #expect(plainFlat.value == [1, 2])
    for member in [plainThen.asVoid(), cancellableMap.asVoid(), plainMap.asVoid(), cancellableFlat.asVoid()] {
      #expect(member.cancelContext === root.cancelContext)
    }
    let failing = CancellablePromise<Int>(error: TestError(id: 1))
    #expect(failing.recover(on: nil) { _ in CancellablePromise(Promise.value(5)) }.value == 5)
    #expect(failing.cancellableRecover(on: nil) { _ in Promise.value(6) }.value == 6)
  }

  @Test func aCancellableBodyOfThenMapIsLinkedToTheChain() {
    let (inner, _) = CancellablePromise<Int>.pending()
    let mapped = CancellablePromise(Promise.value([1])).thenMap(on: nil) { _ in inner }
    mapped.cancel()
    #expect(inner.isCancelled, "cancelling the chain cancels the chain the body returned")
  }

  @Test func initCancellableRegistersAnyCancellable() {
    let work = CancelSource()
    let promise = CancellablePromise<Int>(cancellable: work) { _ in }
    promise.cancel()
    #expect(work.isCancelled)
    #expect(isPMKCancelled(promise.error))
    let task = CancelSource()
    let (plain, resolver) = Promise<Int>.pending()
    let wrapped = CancellablePromise(cancellable: task, promise: plain, resolver: resolver)
    wrapped.cancel()
    #expect(task.isCancelled)
    let failed = CancellablePromise<Int>(cancellable: nil, error: TestError(id: 2))
    #expect(failed.error as? TestError == TestError(id: 2))
    #expect(CancellablePromise<Void>(cancellable: nil).isFulfilled)
    let timer = CancelSource()
    let guarantee = Guarantee<Int>(cancellable: timer) { _ in }
    guarantee.cancellize().cancel()
    #expect(timer.isCancelled, "cancelling the cancellable wrapper stops the guarantee's work")
  }

  @Test func aCancelContextMadeDirectlyTakesWork() {
    let context = CancelContext()
    let work = CancelSource()
    let (pending, _) = CancellablePromise<Void>.pending()
    context.append(cancellable: work, reject: nil, thenable: pending)
    let finished = CancelSource()
    context.append(cancellable: finished, reject: nil, thenable: CancellablePromise<Void>())
    context.cancel(with: TestError(id: 3))
    #expect(work.isCancelled, "work of a pending member is stopped")
    #expect(!finished.isCancelled, "work of a member that already settled is left alone")
    #expect(context.cancelledError as? TestError == TestError(id: 3))
  }

  @Test func timeoutRejectsWithTimedOut() async {
    let error = await #expect(throws: PMKError.self) { try await timeout(seconds: 0).async() }
    if case .timedOut? = error {} else { Issue.record("not timedOut") }
  }

  @Test func cancellableWhenOverTwoToFiveInputsOfDifferentTypes() {
    let (late, resolver) = CancellablePromise<String>.pending()
    let pair = cancellableWhen(fulfilled: CancellablePromise(Promise.value(1)), late)
    #expect(pair.isPending)
    resolver.fulfill("a")
    #expect(pair.value.map { $0.0 == 1 && $0.1 == "a" } == true)
    let one = CancellablePromise(Promise.value(1))
    #expect(cancellableWhen(fulfilled: one, one, one).value?.2 == 1)
    #expect(cancellableWhen(fulfilled: one, one, one, one).value?.3 == 1)
    #expect(cancellableWhen(fulfilled: one, one, one, one, one).value?.4 == 1)
    let (pending, _) = CancellablePromise<Int>.pending()
    let cancelled = cancellableWhen(fulfilled: pending, one)
    cancelled.cancel()
    #expect(pending.isCancelled, "the inputs are members of the result's chain")
    let voids: CancellablePromise<Void> = when(fulfilled: CancellablePromise<Void>(), CancellablePromise<Void>())
    #expect(voids.isFulfilled)
  }

  @Test func catchOnlyHandlesOneErrorValueOrTypeAndPassesTheRestOn() async {
    enum Other: Error { case bar }
    let handled = Recorder<String>()
    await withCheckedContinuation { done in
      CancellablePromise<Int>(error: TestError(id: 4)).catch(only: TestError(id: 5), on: nil) { _ in
        handled.record("five")
      }.catch(only: Other.self, on: nil) { _ in
        handled.record("other")
      }.catch(only: TestError(id: 4), on: nil) { _ in
        handled.record("four")
      }.catch(on: nil) { _ in
        handled.record("rest")
      }.finally(on: nil) { done.resume() }
    }
    #expect(handled.values == ["four"])
  }

  @Test func catchOnlyATypeSkipsCancellationsUnlessThePolicyAllows() {
    let seen = Recorder<String>()
    CancellablePromise<Int>(error: PMKError.cancelled).catch(only: PMKError.self, on: nil) { _ in
      seen.record("default")
    }.cauterize()
    CancellablePromise<Int>(error: PMKError.cancelled).catch(only: PMKError.self, on: nil, policy: .allErrors) { _ in
      seen.record("all")
    }.cauterize()
    #expect(seen.values == ["all"])
  }

  @Test func recoverOnlyReplacesOneErrorValueOrType() {
    let failing = CancellablePromise<Int>(error: TestError(id: 6))
    #expect(failing.recover(only: TestError(id: 6), on: nil) { _ in Promise.value(1) }.value == 1)
    #expect(
      failing.recover(only: TestError(id: 7), on: nil) { _ in Promise.value(1) }.error as? TestError == TestError(id: 6)
    )
    #expect(failing.recover(only: TestError.self, on: nil) { _ in CancellablePromise(Promise.value(2)) }.value == 2)
    let void = CancellablePromise<Void>(error: TestError(id: 8))
    #expect(void.recover(only: TestError(id: 8), on: nil) { _ in }.isFulfilled)
    #expect(void.recover(only: PMKError.self, on: nil) { _ in }.error as? TestError == TestError(id: 8))
  }

  @Test func aThenBodyReturningItsOwnMemberRejectsWithReturnedSelf() {
    let slot = Keeper()
    let (root, resolver) = CancellablePromise<Int>.pending()
    slot.promise = root.then(on: nil) { _ in slot.promise! }
    resolver.fulfill(1)
    if case PMKError.returnedSelf? = slot.promise?.error {} else { Issue.record("not returnedSelf") }
  }

  @Test func aRecoverBodyReturningItsOwnResultRejectsWithReturnedSelf() async {
    let slot = Keeper()
    let (failing, reject) = CancellablePromise<Int>.pending()
    slot.promise = failing.recover(only: TestError.self, on: nil) { _ in slot.promise! }
    reject.reject(TestError(id: 12))
    if case PMKError.returnedSelf? = slot.promise?.error {} else { Issue.record("not returnedSelf") }
  }

  @Test func finalizerSpellings() {
    let (pending, _) = CancellablePromise<Int>.pending()
    let finalizer = pending.catch(on: nil) { _ in }.finally(on: nil) {}
    finalizer.cancel(with: TestError(id: 9))
    #expect(finalizer.cancelledError as? TestError == TestError(id: 9))
    #expect(pending.isCancelled)
  }

  @Test func resultMatchesTheStandardLibrarysCaseNamesWithoutABinding() {
    if case .success = Promises.Result<Int>.fulfilled(1) {} else { Issue.record("fulfilled is success") }
    if case .failure = Promises.Result<Int>.rejected(TestError()) {} else { Issue.record("rejected is failure") }
    if case .success = Promises.Result<Int>.rejected(TestError()) { Issue.record("rejected is not success") }
  }

  @Test func aBodyReturningNothingIsPromiseKit7sInitializer() throws {
    let promise = CancellablePromise<Void> { _ in throw TestError(id: 10) }
    #expect(promise.error as? TestError == TestError(id: 10))
    #expect(try CancellablePromise(Promise.value(3)).wait() == 3)
  }

  @Test func theWrappersCancelPromiseFulfilsWhenThePromiseIsReleasedUncancelled() {
    let (cancelPromise, keep) = captureCancelPromise()
    #expect(cancelPromise.isPending)
    keep.release()
    // A dropped pending chain is freed, and with it the wrapper: its cancel promise fulfils.
    #expect(cancelPromise.isFulfilled, "released without a cancel: the work may stop waiting")
  }

  @Test func theWrappersCancelPromiseRejectsOnCancel() {
    var captured: Promise<Void>?
    let promise = CancellablePromise<Int>(wrapper: { cancelPromise in
      captured = cancelPromise
      return Promise<Int>.pending().promise
    })
    promise.cancel()
    #expect(isPMKCancelled(captured?.error))
  }

  @Test func whileIsEnsuredRejectsAValueThatArrivesAfterTheCondition() async throws {
    let (work, workResolver) = Promise<Int>.pending()
    let (condition, conditionResolver) = Promise<Void>.pending()
    let result = when(work, while: condition, isEnsured: true)
    // On the main queue, where the fulfilment is evaluated next (`conf.Q.map`): the condition is
    // rejected after the value arrived and before it is handed on.
    await MainActor.run {
      workResolver.fulfill(1)
      conditionResolver.reject(TestError())
    }
    await #expect(throws: PMKError.self) { try await result.async() }
    #expect(try await when(Promise.value(2), while: Promise(), isEnsured: true).async() == 2)
    let cancellable = CancellablePromise(Promise<Int>.pending().promise)
    let abandoned = when(cancellable, while: Promise(error: TestError(id: 11)), autoCancel: true)
    await #expect(throws: TestError(id: 11)) { try await abandoned.async() }
    #expect(cancellable.isCancelled, "autoCancel cancels the input once the result resolved")
  }
}

/// Holds a wrapper promise until `release()`.
private final class Keeper: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: used by one test on one thread.
  var promise: CancellablePromise<Int>?
  func release() { promise = nil }
}

/// Makes a wrapper promise whose work never ends, returning its `cancelPromise` and its keeper.
private func captureCancelPromise() -> (Promise<Void>, Keeper) {
  let keeper = Keeper()
  var captured: Promise<Void>!
  keeper.promise = CancellablePromise<Int>(wrapper: { cancelPromise in
    captured = cancelPromise
    return Promise<Int>.pending().promise
  })
  return (captured, keeper)
}
