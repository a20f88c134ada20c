import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

@Suite("Futures: results, completions and handlers")
struct FutureBasicsTests {
  @Test func completedInitializersReportTheirResult() {
    #expect(Future(success: 3).value == 3)
    #expect(Future<Int>(fail: TestError(code: 1)).error as? TestError == TestError(code: 1))
    #expect(Future<Int>(cancelled: ()).result?.isCancelled == true)
    #expect(Future<Int>(cancelled: ()).isCompleted)
    #expect(Future(result: .success("x")).value == "x")
  }

  @Test func firstCompletionWinsAndTryCompleteReportsIt() {
    let promise = Futures.Promise<Int>()
    #expect(!promise.future.isCompleted)
    #expect(promise.tryComplete(.success(1)))
    #expect(!promise.tryComplete(.success(2)))
    promise.completeWithFail(TestError())
    promise.completeWithCancel()
    promise.completeWithCancellation()
    #expect(promise.future.value == 1)
  }

  @Test func cancelledIsAStateNotAnError() {
    let promise = Futures.Promise<Int>()
    promise.completeWithCancellation()
    #expect(promise.future.result?.isCancelled == true)
    #expect(promise.future.error == nil)
    #expect(promise.future.value == nil)
  }

  @Test func completeUsingTakesTheOtherFuturesResultAndClaimsThePromise() {
    let first = Futures.Promise<Int>()
    let second = Futures.Promise<Int>()
    #expect(first.tryComplete(.completeUsing(second.future)))
    #expect(!first.tryComplete(.success(9)))
    #expect(!first.future.isCompleted)
    second.completeWithSuccess(5)
    #expect(first.future.value == 5)

    let third = Futures.Promise<Int>()
    third.completeUsingFuture(Future(fail: TestError(code: 2)))
    #expect(third.future.error as? TestError == TestError(code: 2))
  }

  @Test func onCompleteSeesEveryKindOfResultAndItsCompletionIsReturned() {
    let results = Recorder<String>()
    for result in [FutureResult<Int>.success(1), .fail(TestError()), .cancelled] {
      let derived = Future(result: result).onComplete(.immediate) { (result: FutureResult<Int>) -> Completion<String> in
        results.record(describe(result))
        return .success("seen")
      }
      #expect(derived.value == "seen")
    }
    #expect(results.values == ["success(1)", "fail(TestError(code: 0))", "cancelled"])
    let voidForm = Future(success: 1).onComplete(.immediate) { _ in }
    #expect(voidForm.isCompleted)
    let thrown = Future(success: 1).onComplete(.immediate) { _ in throw TestError(code: 4) }
    #expect(thrown.error as? TestError == TestError(code: 4))
    let usingAnother = Future(success: 1).onComplete(.immediate) { _ in .completeUsing(Future(success: "other")) }
    #expect(usingAnother.value == "other")
    let cancelling = Future(success: 1).onComplete(.immediate) { _ -> Completion<Int> in .cancelled }
    #expect(cancelling.result?.isCancelled == true)
  }

  @Test func onSuccessRunsOnlyForSuccessAndMayReturnAValueOrAFuture() {
    let ran = Counter()
    let value = Future(success: 2).onSuccess(.immediate) { $0 * 10 }
    #expect(value.value == 20)
    let fromFuture = Future(success: 2).onSuccess(.immediate) { (number: Int) -> Future<String> in
      Future(success: "n\(number)")
    }
    #expect(fromFuture.value == "n2")
    let failed = Future<Int>(fail: TestError(code: 3)).onSuccess(.immediate) { (_: Int) -> Int in
      ran.increment()
      return 0
    }
    #expect(failed.error as? TestError == TestError(code: 3))
    let cancelled = Future<Int>(cancelled: ()).map(.immediate) { (_: Int) -> Int in
      ran.increment()
      return 0
    }
    #expect(cancelled.result?.isCancelled == true)
    #expect(ran.value == 0)
    let throwing = Future(success: 1).map(.immediate) { (_: Int) throws -> Int in throw TestError(code: 7) }
    #expect(throwing.error as? TestError == TestError(code: 7))
  }

  @Test func onFailAndOnCancelRunOnlyForTheirCaseAndPassTheResultOn() {
    let seen = Recorder<String>()
    let failed = Future<Int>(fail: TestError(code: 1)).onFail(.immediate) { _ in seen.record("fail") }
      .onCancel(.immediate) { seen.record("cancel-after-fail") }
    #expect(failed.error as? TestError == TestError(code: 1))
    let cancelled = Future<Int>(cancelled: ()).onCancel(.immediate) { seen.record("cancel") }
      .onFail(.immediate) { _ in seen.record("fail-after-cancel") }
    #expect(cancelled.result?.isCancelled == true)
    let succeeded = Future(success: 4).onFail(.immediate) { _ in seen.record("x") }.onCancel(.immediate) {
      seen.record("y")
    }
    #expect(succeeded.value == 4)
    #expect(seen.values == ["fail", "cancel"])
  }

  @Test func blocksWaitingOnAPendingFutureRunInRegistrationOrderWhenItCompletes() {
    let promise = Futures.Promise<Int>()
    let order = Recorder<Int>()
    for index in 0..<5 {
      promise.future.onSuccess(.immediate) { _ in order.record(index) }
    }
    #expect(order.values.isEmpty)
    promise.completeWithSuccess(1)
    #expect(order.values == [0, 1, 2, 3, 4])
  }

  @Test func futureBlockInitializerRunsTheBlockOnItsExecutor() async {
    let now = Future { 5 }
    #expect(now.value == 5)
    let failing = Future<Int> { throw TestError(code: 8) }
    #expect(failing.error as? TestError == TestError(code: 8))
    let queue = QueueProbe.make("future-init")
    let later = Future(.queue(queue)) { QueueProbe.label ?? "none" }
    #expect(describe(await later.completion()) == "success(future-init)")
  }

  @Test func moduleQualifiedPromiseNamesTheProducer() {
    let promise: Futures.Promise<Int> = Futures.Promise()
    let future: Futures.Future<Int> = promise.future
    promise.completeWithSuccess(1)
    #expect(future.value == 1)
  }

  @Test func aLongChainOnImmediateCompletesWithoutGrowingTheStack() async {
    // 100,000 stages on a thread with a 512 KB stack: recursion per stage would overflow it.
    let outcome: Int? = await onSmallStack {
      let root = Futures.Promise<Int>()
      var tail = root.future
      for _ in 0..<100_000 { tail = tail.map(.immediate) { $0 + 1 } }
      root.completeWithSuccess(0)
      return tail.value
    }
    #expect(outcome == 100_000)
  }

  @Test func aLongCompleteUsingChainCompletesWithoutGrowingTheStack() async {
    let outcome: Int? = await onSmallStack {
      let root = Futures.Promise<Int>()
      var promises = [root]
      for _ in 0..<50_000 {
        let next = Futures.Promise<Int>()
        next.completeUsingFuture(promises.last!.future)
        promises.append(next)
      }
      root.completeWithSuccess(3)
      return promises.last!.future.value
    }
    #expect(outcome == 3)
  }
}

@Suite("Futures: values of every kind survive their erasure")
struct ValueErasureTests {
  /// Through a promise, a stage, a block-made future (unspecialized library code) and a
  /// `Future<any Sendable>`: scalar values travel inline, others boxed; every path must agree.
  private func roundTrip<T: Sendable & Equatable>(_ value: T) {
    let promise = Futures.Promise<T>()
    let mapped = promise.future.map(.immediate) { $0 }
    promise.completeWithSuccess(value)
    #expect(promise.future.value == value)
    #expect(mapped.value == value)
    #expect(mapped.result?.value == value)
    #expect(Future(.immediate) { value }.value == value)
    #expect(Future(.immediate) { value }.map(.immediate) { $0 }.value == value)
    #expect(Future(success: value).anySendableFuture.value as? T == value)
    let completed = Futures.Promise<T>()
    completed.complete(.completeUsing(Future(.immediate) { value }))
    #expect(completed.future.value == value)
  }

  @Test func scalarsAndBoxedValuesRoundTrip() {
    roundTrip(Int.min)
    roundTrip(-1)
    roundTrip(UInt.max)
    roundTrip(Int64.min)
    roundTrip(UInt64.max)
    roundTrip(Int32.min)
    roundTrip(UInt32.max)
    roundTrip(true)
    roundTrip(false)
    roundTrip(-0.0)
    roundTrip(Double.infinity)
    roundTrip(Float(-1.5))
    roundTrip(Int8(-3))
    roundTrip("a string")
    roundTrip([1, 2, 3])
    let void = Future<Void>(success: ()).map(.immediate) { 7 }
    #expect(void.value == 7)
    #expect(Future(.immediate) {}.map(.immediate) { true }.value == true)
  }
}
