import Adapters
import Dispatch
import Foundation
import TestSupport
import Testing

@Suite("Dispatch, Operation and NotificationCenter")
struct FoundationWorkTests {
  // MARK: Dispatch timers

  @Test func scheduledWorkRunsOnTheQueueAndReportsItsValue() async throws {
    let queue = DispatchQueue(label: "scheduled")
    let key = DispatchSpecificKey<String>()
    queue.setSpecific(key: key, value: "scheduled")
    let result: Swift.Result<String?, any Error> = await withCheckedContinuation { continuation in
      queue.schedule(after: .milliseconds(5), signal: .never, execute: { DispatchQueue.getSpecific(key: key) }) {
        continuation.resume(returning: $0)
      }
    }
    #expect(try result.get() == "scheduled")
  }

  @Test func cancellingBeforeTheDeadlineStopsTheTimerAndReleasesTheWork() async throws {
    let source = CancelSource()
    let ran = Counter()
    weak var weakCaptured: Tracked?
    let outcome = Recorder<Bool>()
    do {
      let captured = Tracked()
      weakCaptured = captured
      DispatchQueue.global().schedule(
        after: .seconds(3600), signal: source.signal,
        execute: { () -> Void in
          _ = captured
          ran.increment()
        }
      ) { outcome.record((try? $0.get()) == nil) }
    }
    source.cancel()
    #expect(outcome.values == [true], "completion ran at once with a failure")
    #expect(ran.value == 0)
    #expect(weakCaptured == nil, "the work closure is released by the cancel itself")
  }

  @Test func startRacingCancelReportsOnceAndSuccessExactlyWhenTheWorkRan() {
    let queue = DispatchQueue(label: "race")
    for _ in 0..<Stress.iterations(20_000) {
      let source = CancelSource()
      let ran = Counter()
      let reports = Recorder<Bool>()
      let done = DispatchSemaphore(value: 0)
      queue.schedule(signal: source.signal, execute: { ran.increment() }) {
        reports.record((try? $0.get()) != nil)
        done.signal()
      }
      source.cancel()
      done.wait()
      #expect(reports.values.count == 1)
      #expect(reports.values == [ran.value == 1])
    }
  }

  @Test func aThrownErrorIsAFailureNotACancellation() async {
    struct Broken: Error {}
    let result: Swift.Result<Int, any Error> = await withCheckedContinuation { continuation in
      DispatchQueue.global().schedule(signal: .never, execute: { () throws -> Int in throw Broken() }) {
        continuation.resume(returning: $0)
      }
    }
    guard case .failure(let error) = result else {
      Issue.record("expected a failure")
      return
    }
    #expect(error is Broken)
    #expect(!error.isCancellation)
  }

  @Test func cancellingAWorkItemYouOwnKeepsItFromRunning() async {
    let source = CancelSource()
    let ran = Counter()
    let item = DispatchWorkItem { ran.increment() }
    let outcome = Recorder<Bool>()
    DispatchQueue.global().async(item, after: .seconds(3600), signal: source.signal) {
      outcome.record($0.isCancellation)
    }
    source.cancel()
    #expect(item.isCancelled)
    #expect(outcome.values == [true])
    #expect(ran.value == 0)
  }

  @Test func aWorkItemThatRunsReportsSuccess() async throws {
    let ran = Counter()
    let item = DispatchWorkItem { ran.increment() }
    let result: Swift.Result<Void, any Error> = await withCheckedContinuation { continuation in
      DispatchQueue.global().async(item, signal: CancelSource().signal) { continuation.resume(returning: $0) }
    }
    try result.get()
    #expect(ran.value == 1)
  }

  // MARK: Operations

  @Test func cancellingTheSignalCancelsTheOperation() async {
    let queue = OperationQueue()
    queue.isSuspended = true  // the operation cannot start before we cancel
    let source = CancelSource()
    let operation = BlockOperation {}
    let result: Swift.Result<Void, any Error> = await withCheckedContinuation { continuation in
      queue.addOperation(operation, signal: source.signal) { continuation.resume(returning: $0) }
      source.cancel()
      queue.isSuspended = false
    }
    #expect(operation.isCancelled)
    #expect(result.isCancellation)
    guard case .failure(let error) = result else { return }
    #expect(error is CancellationError)
  }

  @Test func cancellingTheOperationEndsTheOutcomeCancelled() async {
    let queue = OperationQueue()
    queue.isSuspended = true
    let operation = BlockOperation {}
    operation.name = "resize"
    let result: Swift.Result<Void, any Error> = await withCheckedContinuation { continuation in
      queue.addOperation(operation, signal: .never) { continuation.resume(returning: $0) }
      operation.cancel()
      queue.isSuspended = false
    }
    guard case .failure(let error) = result else {
      Issue.record("expected the cancelled operation to end the outcome cancelled")
      return
    }
    #expect((error as? OperationCancelledError)?.operationName == "resize")
    #expect(error.isCancellation)
  }

  @Test func aFinishedOperationSucceedsAndKeepsItsOwnCompletionBlock() async throws {
    let queue = OperationQueue()
    let order = Recorder<String>()
    let operation = BlockOperation { order.record("body") }
    operation.completionBlock = { order.record("own completion") }
    let result: Swift.Result<Void, any Error> = await withCheckedContinuation { continuation in
      queue.addOperation(operation, signal: .never) {
        order.record("adapter")
        continuation.resume(returning: $0)
      }
    }
    try result.get()
    #expect(order.values == ["body", "own completion", "adapter"])
  }

  @Test func aFinishedOperationIsFreedWithEverythingItsCompletionHeld() {
    let queue = OperationQueue()
    weak var weakOperation: BlockOperation?
    weak var weakCaptured: Tracked?
    do {
      let captured = Tracked()
      weakCaptured = captured
      let operation = BlockOperation { _ = captured }
      weakOperation = operation
      let finished = DispatchSemaphore(value: 0)
      queue.addOperation(operation, signal: CancelSource().signal) { _ in finished.signal() }
      finished.wait()
    }
    queue.waitUntilAllOperationsAreFinished()
    // The queue's worker lets go of the operation just after the queue reports it finished: give
    // it that moment (a spin bounded far beyond it, for a busy machine; a completion block that
    // kept the operation never lets go).
    let deadline = ContinuousClock.now + .seconds(300)
    while weakOperation != nil && ContinuousClock.now < deadline { sched_yield() }
    // Linux Foundation never clears a finished operation's completion block: a block that captured
    // its operation kept it (and what it held) forever.
    #expect(weakOperation == nil, "nothing keeps a finished operation")
    #expect(weakCaptured == nil)
  }

  // MARK: Notifications

  @Test func observeOnceDeliversTheFirstNotificationOnly() async throws {
    let center = NotificationCenter()
    let name = Notification.Name("test.once")
    let count = Counter()
    let number: Int? = await withCheckedContinuation { continuation in
      center.observeOnce(name, signal: .never) { result in
        count.increment()
        continuation.resume(returning: (try? result.get())?.userInfo?["n"] as? Int)
      }
      center.post(name: name, object: nil, userInfo: ["n": 1])
      center.post(name: name, object: nil, userInfo: ["n": 2])
    }
    #expect(number == 1)
    #expect(count.value == 1)
  }

  @Test func cancellingRemovesTheObserver() async {
    let center = NotificationCenter()
    let name = Notification.Name("test.cancel")
    let source = CancelSource()
    let outcomes = Recorder<Bool>()
    center.observeOnce(name, signal: source.signal) { outcomes.record($0.isCancellation) }
    source.cancel()
    center.post(name: name, object: nil)
    #expect(outcomes.values == [true])
  }
}
