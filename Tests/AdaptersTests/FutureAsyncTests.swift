import Adapters
import Dispatch
import Futures
import TestSupport
import Testing

@Suite("Futures and async/await")
struct FutureAsyncTests {
  struct Broken: Error {}

  @Test func awaitingReturnsTheValueThrowsTheErrorAndThrowsCancellationErrorForCancelled() async throws {
    #expect(try await Future(success: 4).async() == 4)
    await #expect(throws: Broken.self) { try await Future<Int>(fail: Broken()).async() }
    await #expect(throws: CancellationError.self) { try await Future<Int>(cancelled: ()).async() }
  }

  @Test func aFutureCompletedLaterResumesTheAwaiter() async throws {
    let promise = Futures.Promise<String>()
    async let value = promise.future.async()
    await Task.yield()
    promise.completeWithSuccess("late")
    #expect(try await value == "late")
  }

  @Test func cancellingTheTaskRequestsCancellationOfTheOnlyConsumedFuture() async {
    let promise = Futures.Promise<Int>()
    let requests = Counter()
    promise.onRequestCancel(.immediate) { _ in
      requests.increment()
      return .complete(.cancelled)
    }
    let waiter = Task { try await promise.future.async() }
    await promise.future.waitUntilConsumed()
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(requests.value == 1)
    #expect(promise.future.result?.isCancelled == true)
  }

  @Test func aSharedFutureKeepsRunningForItsOtherConsumersWhileTheCancelledAwaitEndsAtOnce() async throws {
    let promise = Futures.Promise<Int>()
    let requests = Counter()
    promise.onRequestCancel(.immediate) { _ in
      requests.increment()
      return .complete(.cancelled)
    }
    let other = promise.future.map(.immediate) { $0 * 2 }
    let waiter = Task { try await promise.future.async() }
    await promise.future.waitUntilConsumed(count: 2)
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(requests.value == 0, "another consumer still wants the value: the producer must not be asked")
    #expect(!promise.future.isCompleted)
    promise.completeWithSuccess(21)
    #expect(try await other.async() == 42)
  }

  @Test func aProducerThatIgnoresTheRequestStillDecidesTheResult() async throws {
    let promise = Futures.Promise<Int>()
    let asked = Futures.Promise<Void>()
    promise.onRequestCancel(.immediate) { _ in
      asked.completeWithSuccess(())
      return .continue
    }
    let waiter = Task { try await promise.future.async() }
    await promise.future.waitUntilConsumed()
    waiter.cancel()
    try await asked.future.async()
    promise.completeWithSuccess(7)
    #expect(try await waiter.value == 7)
  }

  /// Many tasks await futures that another thread completes while the tasks are cancelled at
  /// random moments: every await returns or throws exactly once.
  @Test func manyAwaitsRacingCancellationAndCompletionEachEndExactlyOnce() async {
    let count = Stress.iterations(10_000, minimum: 1_000)
    let ended = Counter()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        let promise = Futures.Promise<Int>()
        promise.automaticallyCancelOnRequestCancel()
        let task = Task {
          do {
            #expect(try await promise.future.async() == index)
          } catch {
            #expect(error is CancellationError)
          }
          ended.increment()
        }
        DispatchQueue.global().async { promise.completeWithSuccess(index) }
        group.addTask {
          if index % 2 == 0 { await Task.yield() }
          task.cancel()
          await task.value
        }
      }
    }
    #expect(ended.value == count)
  }
}

extension Future {
  /// Waits until `count` consumers are attached, so a test cancels a started await. Polls with
  /// `Task.yield()`, which waits for nothing but the scheduler.
  func waitUntilConsumed(count: Int = 1) async {
    while waitingCount < count { await Task.yield() }
  }
}
