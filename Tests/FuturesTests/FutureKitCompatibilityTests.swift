import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

/// An exception value that is not `Hashable`, compared by identity.
private final class PlainException: Sendable {}

@Suite("Futures: FutureKit 3.5's names behave as documented")
struct FutureKitCompatibilityTests {
  // MARK: FutureKitError

  @Test func futureKitErrorComparesMessagesAndCasesButNotTheMultipleErrors() {
    #expect(FutureKitError(genericError: "a") == .genericError("a"))
    #expect(FutureKitError.genericError("a") != .genericError("b"))
    #expect(FutureKitError.genericError("a") != .resultConversionError("a"))
    #expect(FutureKitError.resultConversionError("r") == .resultConversionError("r"))
    #expect(FutureKitError.completionConversionError("c") == .completionConversionError("c"))
    #expect(FutureKitError.continueWithConversionError("c") != .continueWithConversionError("d"))
    #expect(
      FutureKitError.errorForMultipleErrors("m", [TestError(code: 1)])
        == .errorForMultipleErrors("m", [TestError(code: 2), TestError(code: 3)]))
    #expect(FutureKitError.errorForMultipleErrors("m", []) != .errorForMultipleErrors("n", []))
  }

  /// The guide's advice for a non-`Sendable` exception in Swift 6: wrap its name and reason in a
  /// struct. Such an error equals itself and its twin (it was unequal to itself before review).
  @Test func aWrappedExceptionValueEqualsItselfAndItsTwin() {
    struct Wrapped: Sendable {
      let name: String
      let reason: String
    }
    let error = FutureKitError(exception: Wrapped(name: "N", reason: "R"))
    #expect(error == error)
    #expect(error == FutureKitError(exception: Wrapped(name: "N", reason: "R")))
    #expect(error != FutureKitError(exception: Wrapped(name: "N", reason: "other")))
  }

  @Test func exceptionsCompareByEqualityOrIdentityAndIgnoreTheDetails() {
    #expect(FutureKitError(exception: "boom") == .exceptionCaught("boom", ["where": 1]))
    #expect(FutureKitError(exception: "boom") != .exceptionCaught("bang", nil))
    let object = PlainException()
    #expect(FutureKitError(exception: object) == .exceptionCaught(object, nil))
    #expect(FutureKitError(exception: object) != .exceptionCaught(PlainException(), nil))
    #expect(FutureKitError(exception: 1) != .genericError("1"))
    guard case .exceptionCaught(_, let details) = FutureKitError(exception: object) else {
      Issue.record("not an exception")
      return
    }
    #expect(details == nil)
  }

  // MARK: Future, FutureResult, Completion, AnyFuture

  @Test func ignoreFailuresReturnsTheSameFuture() {
    let future = Future<Int>(fail: TestError())
    #expect(future.ignoreFailures() === future)
  }

  @Test func isFailIsTrueForAFailureOnly() {
    #expect(FutureResult<Int>.fail(TestError()).isFail)
    #expect(!FutureResult<Int>.success(1).isFail)
    #expect(!FutureResult<Int>.cancelled.isFail)
    #expect(!FutureResult<Int>.fail(CancellationError()).isCancelled)  // an error, not a state
  }

  @Test func completionAsIsTheSameCompletion() {
    guard case .success(let value) = Completion<Int>.success(3).As() else {
      Issue.record("not a success")
      return
    }
    #expect(value == 3)
    let future = Future<Int>(success: 1)
    guard case .completeUsing(let same) = Completion<Int>.completeUsing(future).As() else {
      Issue.record("not a hand-over")
      return
    }
    #expect(same === future)
  }

  @Test func mapAsConvertsValuesAndPassesFailuresAndCancellations() async {
    let erased: any AnyFuture = Future<Int>(success: 5)
    let same: Future<Int> = erased.mapAs()
    #expect(await same.completion().value == 5)
    let widened: Future<Int?> = erased.mapAs()
    #expect(await widened.completion().value == Optional(Optional(5)))
    let void: Future<Void> = erased.mapAs()
    #expect(await void.completion().isSuccess)
    let failed: Future<Int> = (Future<String>(fail: TestError(code: 7)) as any AnyFuture).mapAs()
    #expect(await failed.completion().error as? TestError == TestError(code: 7))
    let cancelled: Future<Void> = Future<String>(cancelled: ()).mapAs()
    #expect(await cancelled.completion().isCancelled)
  }

  @Test func mapAsFailsWithAConversionErrorInsteadOfStopping() async {
    let wrong: Future<String> = (Future<Int>(success: 5) as any AnyFuture).mapAs()
    let error = await wrong.completion().error as? FutureKitError
    guard case .resultConversionError? = error else {
      Issue.record("expected resultConversionError, got \(String(describing: error))")
      return
    }
  }

  @Test func aRequestOnMapAsReachesTheProducer() async {
    let producer = RecordingProducer<Int>(answer: .complete(.cancelled))
    let mapped: Future<Int> = (producer.future as any AnyFuture).mapAs()
    mapped.getCancelToken().cancel()
    #expect(producer.requests.values == [[]])
    #expect(await mapped.completion().isCancelled)
  }

  // MARK: Promise

  @Test func isCompletedFollowsTheFutureIncludingAHandOver() {
    let promise = Futures.Promise<Int>()
    #expect(!promise.isCompleted)
    let source = Futures.Promise<Int>()
    promise.completeUsingFuture(source.future)
    #expect(!promise.isCompleted)  // handed over, not completed yet
    source.completeWithSuccess(1)
    #expect(promise.isCompleted)
  }

  @Test func completeWithFailGivenAMessageFailsWithAGenericError() {
    let promise = Futures.Promise<Int>()
    promise.completeWithFail("no")
    promise.completeWithFail("later")
    #expect(promise.future.error as? FutureKitError == .genericError("no"))
  }

  @Test func completeWithExceptionFailsWithExceptionCaught() {
    let promise = Futures.Promise<Int>()
    let exception = PlainException()
    promise.completeWithException(exception)
    promise.completeWithException(PlainException())
    #expect(promise.future.error as? FutureKitError == .exceptionCaught(exception, nil))
  }

  @Test func completeWithBlockRunsTheBlockOnlyWhilePending() {
    let runs = Recorder<Int>()
    let promise = Futures.Promise<Int>()
    promise.completeWithBlock {
      runs.record(1)
      return .success(1)
    }
    promise.completeWithBlock {
      runs.record(2)
      return .success(2)
    }
    #expect(runs.values == [1])
    #expect(promise.future.value == 1)
    let handedOver = Futures.Promise<Int>()
    handedOver.completeUsingFuture(Futures.Promise<Int>().future)
    handedOver.completeWithBlock {
      runs.record(3)
      return .success(3)
    }
    #expect(runs.values == [1])
    #expect(!handedOver.isCompleted)
  }

  @Test func completeWithBlockFailsWithAThrownErrorAndCanHandOver() async {
    let throwing = Futures.Promise<Int>()
    throwing.completeWithBlock { throw TestError(code: 4) }
    #expect(throwing.future.error as? TestError == TestError(code: 4))
    let handing = Futures.Promise<Int>()
    let source = Futures.Promise<Int>()
    handing.completeWithBlock { .completeUsing(source.future) }
    source.completeWithSuccess(9)
    #expect(await handing.future.completion().value == 9)
  }

  @Test func completeWithBlocksRunsExactlyOneOfTheTwo() {
    let events = Recorder<String>()
    let promise = Futures.Promise<Int>()
    promise.completeWithBlocks(
      {
        events.record("block")
        return .success(1)
      }, onAlreadyCompleted: { events.record("already") })
    promise.completeWithBlocks(
      {
        events.record("block 2")
        return .success(2)
      }, onAlreadyCompleted: { events.record("already 2") })
    #expect(events.values == ["block", "already 2"])
    #expect(promise.future.value == 1)
  }

  @Test func completeWithBlocksReportsACompletionThatWonWhileTheBlockRan() {
    let events = Recorder<String>()
    let promise = Futures.Promise<Int>()
    promise.completeWithBlocks(
      {
        promise.completeWithSuccess(7)  // someone else completes meanwhile
        return .success(1)
      }, onAlreadyCompleted: { events.record("already") })
    #expect(events.values == ["already"])
    #expect(promise.future.value == 7)
  }

  @Test func failIfNotCompletedReportsWhetherItFailedTheFuture() {
    let promise = Futures.Promise<Int>()
    #expect(promise.failIfNotCompleted(TestError(code: 1)))
    #expect(!promise.failIfNotCompleted(TestError(code: 2)))
    #expect(!promise.failIfNotCompleted("late"))
    #expect(promise.future.error as? TestError == TestError(code: 1))
    let byMessage = Futures.Promise<Int>()
    #expect(byMessage.failIfNotCompleted("gone"))
    #expect(byMessage.future.error as? FutureKitError == .genericError("gone"))
    let succeeded = Futures.Promise<Int>()
    succeeded.completeWithSuccess(1)
    #expect(!succeeded.failIfNotCompleted("gone"))
    #expect(succeeded.future.value == 1)
  }

  @Test func completeOnCompletionErrorRunsTheBlockOnlyWhenTheCompletionLost() {
    let lost = Recorder<Int>()
    let promise = Futures.Promise<Int>()
    promise.complete(.success(1)) { lost.record(1) }
    promise.complete(.success(2)) { lost.record(2) }
    promise.complete(.cancelled) { lost.record(3) }
    #expect(lost.values == [2, 3])
    #expect(promise.future.value == 1)
  }

  @Test func automaticallyCancelCancelsWhenTheTimerFiresAndNotBefore() {
    let time = ManualDeadlineScheduler()
    let promise = Futures.Promise<Int>()
    promise.automaticallyCancel(afterDelay: 2, scheduler: time)
    time.advance(by: .seconds(1))
    #expect(!promise.isCompleted)
    time.advance(by: .seconds(1))
    #expect(promise.future.result?.isCancelled == true)
    #expect(time.pendingCount == 0)
  }

  @Test func automaticallyCancelLeavesAnEarlierCompletionAndStopsItsTimer() {
    let time = ManualDeadlineScheduler()
    let promise = Futures.Promise<Int>()
    promise.automaticallyCancel(afterDelay: 2, scheduler: time)
    #expect(time.pendingCount == 1)
    promise.completeWithSuccess(3)
    #expect(time.pendingCount == 0)  // the timer was cancelled and released
    time.advance(by: .seconds(5))
    #expect(promise.future.value == 3)
  }

  @Test func automaticallyCancelAlsoCancelsOnARequest() {
    let time = ManualDeadlineScheduler()
    let promise = Futures.Promise<Int>()
    promise.automaticallyCancel(afterDelay: 2, scheduler: time)
    promise.future.getCancelToken().cancel()
    #expect(promise.future.result?.isCancelled == true)
    #expect(time.pendingCount == 0)
  }

  @Test func automaticallyCancelNeverStartsATimerForAnInfiniteDelay() {
    let time = ManualDeadlineScheduler()
    let promise = Futures.Promise<Int>()
    promise.automaticallyCancel(afterDelay: .infinity, scheduler: time)
    #expect(time.pendingCount == 0)
    promise.future.getCancelToken().cancel()
    #expect(promise.future.result?.isCancelled == true)
  }

  @Test func automaticallyFailFailsWhenTheTimerFiresUnlessCompletedOrRequested() {
    let time = ManualDeadlineScheduler()
    let failing = Futures.Promise<Int>()
    failing.automaticallyFail(afterDelay: 1, with: TestError(code: 5), scheduler: time)
    let completed = Futures.Promise<Int>()
    completed.automaticallyFail(afterDelay: 1, with: TestError(code: 6), scheduler: time)
    completed.completeWithSuccess(2)
    let requested = Futures.Promise<Int>()
    requested.automaticallyFail(afterDelay: 1, with: TestError(code: 7), scheduler: time)
    requested.future.getCancelToken().cancel()
    time.advance(by: .milliseconds(999))
    #expect(!failing.isCompleted)
    time.advance(by: .milliseconds(1))
    #expect(failing.future.error as? TestError == TestError(code: 5))
    #expect(completed.future.value == 2)
    #expect(requested.future.result?.isCancelled == true)
    #expect(time.pendingCount == 0)
  }

  @Test func theRealTimeTimerFormsCompleteTheFuture() async {
    let cancelling = Futures.Promise<Int>()
    cancelling.automaticallyCancel(afterDelay: 0)
    let failing = Futures.Promise<Int>()
    failing.automaticallyFail(afterDelay: -1, with: TestError(code: 8))
    #expect(await cancelling.future.completion().isCancelled)
    #expect(await failing.future.completion().error as? TestError == TestError(code: 8))
  }

  // MARK: Executor

  @Test func descriptionsUseFutureKitsNames() {
    #expect(Executor.primary.description == "Primary")
    #expect(Executor.main.description == "Main")
    #expect(Executor.mainImmediate.description == "Main")
    #expect(Executor.mainAsync.description == "MainAsync")
    #expect(Executor.async.description == "Async")
    #expect(Executor.current.description == "Current")
    #expect(Executor.immediate.description == "Immediate")
    #expect(Executor.queue(DispatchQueue(label: "q1")).description == "Queue(q1)")
    let named = OperationQueue()
    named.name = "ops"
    #expect(Executor.operationQueue(named).description == "OperationQueue(ops)")
    #expect(Executor.custom { $0() }.description == "Custom")
  }

  @Test func mainAsyncSubmitsEvenFromTheMainQueue() async {
    let order = Recorder<String>()
    let done: Void = await withCheckedContinuation { continuation in
      DispatchQueue.main.async {
        let future = Executor.mainAsync.execute { order.record("block") }
        order.record("after execute")
        future.onComplete(.immediate) { _ in continuation.resume() }
      }
    }
    _ = done
    #expect(order.values == ["after execute", "block"])
  }

  @Test func mainImmediateRunsAtOnceOnTheMainQueue() async {
    let order = Recorder<String>()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.main.async {
        Executor.mainImmediate.execute { order.record("block") }
        order.record("after execute")
        continuation.resume()
      }
    }
    #expect(order.values == ["block", "after execute"])
  }

  @Test func executeReturnsAFutureOfTheBlock() async {
    let queue = QueueProbe.make("execute")
    let label = Executor.queue(queue).execute { QueueProbe.label }
    #expect(await label.completion().value == Optional("execute"))
    let immediate = Executor.immediate.execute { 4 }
    #expect(immediate.value == 4)  // ran before execute returned
    let thrown = Executor.immediate.execute { () throws -> Int in throw TestError(code: 9) }
    #expect(thrown.error as? TestError == TestError(code: 9))
  }

  @Test func executeWithACompletionBlockCompletesWithIt() async {
    let cancelled = Executor.immediate.execute { () -> Completion<Int> in .cancelled }
    #expect(cancelled.result?.isCancelled == true)
    let source = Futures.Promise<Int>()
    let handedOver = Executor.async.execute { () -> Completion<Int> in .completeUsing(source.future) }
    source.completeWithSuccess(11)
    #expect(await handedOver.completion().value == 11)
    let thrown = Executor.immediate.execute { () throws -> Completion<Int> in throw TestError(code: 10) }
    #expect(thrown.error as? TestError == TestError(code: 10))
  }

  @Test func executeAfterDelayRunsTheBlockWhenTheTimerFires() async {
    let time = ManualDeadlineScheduler()
    let runs = Recorder<Int>()
    let future = Executor.immediate.execute(afterDelay: 3, scheduler: time) { () -> Int in
      runs.record(1)
      return 12
    }
    time.advance(by: .seconds(2))
    #expect(runs.values.isEmpty)
    time.advance(by: .seconds(1))
    #expect(runs.values == [1])
    #expect(future.value == 12)
    let queue = QueueProbe.make("delayed")
    let onQueue = Executor.queue(queue).execute(afterDelay: 1, scheduler: time) { QueueProbe.label }
    time.advance(by: .seconds(1))
    #expect(await onQueue.completion().value == Optional("delayed"))
  }

  @Test func executeAfterDelayWithACompletionBlockAndThrownErrors() {
    let time = ManualDeadlineScheduler()
    let failed = Executor.immediate.execute(afterDelay: 1, scheduler: time) { () -> Completion<Int> in
      .fail(TestError(code: 13))
    }
    let thrown = Executor.immediate.execute(afterDelay: 1, scheduler: time) { () throws -> Int in
      throw TestError(code: 14)
    }
    time.advance(by: .seconds(1))
    #expect(failed.error as? TestError == TestError(code: 13))
    #expect(thrown.error as? TestError == TestError(code: 14))
  }

  @Test func aRequestBeforeTheTimerFiresCancelsAndTheBlockNeverRuns() {
    let time = ManualDeadlineScheduler()
    let runs = Recorder<Int>()
    let future = Executor.immediate.execute(afterDelay: 1, scheduler: time) { runs.record(1) }
    future.getCancelToken().cancel()
    #expect(future.result?.isCancelled == true)
    #expect(time.pendingCount == 0)
    time.advance(by: .seconds(2))
    #expect(runs.values.isEmpty)
  }

  @Test func executeAfterDelayOnTheRealTimeTimer() async {
    let value = Executor.async.execute(afterDelay: 0) { 15 }
    #expect(await value.completion().value == 15)
    let completion = Executor.async.execute(afterDelay: 0) { () -> Completion<Int> in .success(16) }
    #expect(await completion.completion().value == 16)
  }
}
