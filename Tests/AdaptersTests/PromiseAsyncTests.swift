import Adapters
import Dispatch
import Promises
import TestSupport
import Testing

@Suite("Promises and async/await")
struct PromiseAsyncTests {
  struct Broken: Error {}

  // MARK: Promise and Guarantee

  @Test func awaitingAPromiseReturnsItsValueOrThrowsItsError() async throws {
    #expect(try await Promise.value(3).async() == 3)
    await #expect(throws: Broken.self) { try await Promise<Int>(error: Broken()).async() }
    await #expect(throws: PMKError.self) { try await Promise<Int>(error: PMKError.cancelled).async() }
  }

  @Test func aPendingPromiseResumesTheAwaiterWhenItResolves() async throws {
    let (promise, resolver) = Promise<String>.pending()
    async let value = promise.async()
    await Task.yield()
    resolver.fulfill("late")
    #expect(try await value == "late")
  }

  @Test func cancellingTheTaskEndsThePlainPromiseAwaitAtOnceAndTheLateResultIsIgnored() async throws {
    let (promise, resolver) = Promise<Int>.pending()
    let waiter = Task { try await promise.async() }
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(promise.isPending, "a plain promise is not cancelled by its awaiter")
    resolver.fulfill(1)  // the continuation was resumed once already: this must not resume it again
    #expect(try await promise.async() == 1)
  }

  /// Plain promises resolved on another thread while their awaiting tasks are cancelled: the
  /// one-shot cell lets exactly one of the two resume each continuation.
  @Test func plainPromiseAwaitsRacingCancellationEachEndExactlyOnce() async {
    let count = Stress.iterations(10_000, minimum: 1_000)
    let ended = Counter()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        let (promise, resolver) = Promise<Int>.pending()
        let waiter = Task {
          do {
            #expect(try await promise.async() == index)
          } catch {
            #expect(error is CancellationError)
          }
          ended.increment()
        }
        DispatchQueue.global().async { resolver.fulfill(index) }
        group.addTask {
          if index % 2 == 0 { await Task.yield() }
          waiter.cancel()
          await waiter.value
        }
      }
    }
    #expect(ended.value == count)
  }

  @Test func awaitingAGuaranteeReturnsItsValue() async {
    let (guarantee, resolve) = Guarantee<Int>.pending()
    async let value = guarantee.async()
    await Task.yield()
    resolve(9)
    #expect(await value == 9)
  }

  // MARK: CancellablePromise

  @Test func awaitingACancellablePromiseReturnsItsValue() async throws {
    #expect(try await Promise.value(5).cancellize().async() == 5)
  }

  @Test func cancellingTheTaskCancelsTheWholeChain() async {
    let task = RecordingTask()
    let (root, _) = CancellablePromise<Int>.pending()
    root.appendCancellableTask(task, reject: nil)
    let tail = root.map(on: nil) { $0 + 1 }
    let waiter = Task { try await tail.async() }
    await root.promise.waitUntilObserved()
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(task.cancels.value == 1)
    #expect(root.isRejected && tail.isRejected)
    #expect(tail.cancelContext.cancelledError is CancellationError)
  }

  @Test func aChainCancelledByItsOwnerThrowsToTheAwaiterInsteadOfHanging() async {
    let (promise, _) = CancellablePromise<Int>.pending()
    let waiter = Task { try await promise.async() }
    await promise.promise.waitUntilObserved()
    promise.cancel()
    await #expect(throws: PMKError.self) { try await waiter.value }
  }

  @Test func aTaskCancelledAfterTheChainSettledChangesNothing() async throws {
    let promise = Promise.value(2).cancellize()
    // A task of its own: Swift Testing reports a test whose own task is cancelled as cancelled,
    // not as passed.
    let value = try await Task {
      let value = try await promise.async()
      withUnsafeCurrentTask { $0?.cancel() }
      return value
    }.value
    #expect(value == 2)
    #expect(!promise.isCancelled)
  }

  /// 10,000 tasks each await a cancellable promise fulfilled from another thread while the task
  /// is cancelled at a random moment: every await returns or throws exactly once (a continuation
  /// resumed twice traps; one never resumed hangs the group).
  @Test func tenThousandAwaitsRacingCancellationEachEndExactlyOnce() async {
    let count = Stress.iterations(10_000, minimum: 1_000)
    let values = Counter()
    let cancellations = Counter()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        let (promise, resolver) = CancellablePromise<Int>.pending()
        let waiter = Task {
          do {
            #expect(try await promise.async() == index)
            values.increment()
          } catch {
            #expect(error is CancellationError)
            cancellations.increment()
          }
        }
        DispatchQueue.global().async { resolver.fulfill(index) }
        group.addTask {
          if index % 2 == 0 { await Task.yield() }
          waiter.cancel()
          await waiter.value
        }
      }
    }
    #expect(values.value + cancellations.value == count)
  }

  // MARK: Async in

  @Test func aPromiseOfAnAsyncOperationResolvesWithItsOutcome() async throws {
    #expect(try await CancellablePromise { 6 * 7 }.async() == 42)
    await #expect(throws: Broken.self) { try await CancellablePromise<Int> { throw Broken() }.async() }
  }

  @Test func cancellingThePromiseCancelsTheOperationsTask() async throws {
    let sawCancellation = Promise<Bool>.pending()
    let promise = CancellablePromise<Int> {
      do {
        try await suspendUntilCancelled()
      } catch {
        sawCancellation.resolver.fulfill(error is CancellationError)
        throw error
      }
      return 1
    }
    promise.cancel()
    #expect(try await sawCancellation.promise.async(), "the operation's wait must be interrupted")
    #expect(promise.isRejected)
    #expect((promise.cancelledError as? PMKError)?.isCancelled == true)
  }
}

extension Promise {
  /// Waits until a handler is attached (the await started), polling with `Task.yield()`.
  func waitUntilObserved() async {
    while waitingCount == 0 { await Task.yield() }
  }
}
