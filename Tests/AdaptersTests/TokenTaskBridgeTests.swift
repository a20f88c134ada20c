import Adapters
import TestSupport
import Testing
import Tokens

@Suite("Tokens and tasks")
struct TokenTaskBridgeTests {
  @Test func cancellingTheTokenCancelsTheOperationsTask() async throws {
    let request = CancellationRequest()
    let outcome = try await withCancellationToken(request.token) { () -> String in
      request.cancel()
      do {
        try await Task.sleep(for: .seconds(30))  // interrupted by the cancellation, never waited out
        return "slept"
      } catch {
        return Task.isCancelled && error is CancellationError ? "cancelled" : "other: \(error)"
      }
    }
    #expect(outcome == "cancelled")
  }

  @Test func theTasksCancellationIsRecordedAsTheTrigger() async throws {
    let task = Task {
      await withTaskCancellationToken { token in
        _ = await token.cancelled()
        return token
      }
    }
    task.cancel()  // runs the scope's cancellation handler, and so the request's cancel, before it returns
    let token = await task.value
    let record = try #require(token.cancellationRecord)
    #expect(record.trigger == .task)
    #expect(record.reason is CancellationError)
    #expect(record.fileID.isEmpty, "a task's cancellation has no call site of ours")
  }

  @Test func anAlreadyCancelledTokenCancelsTheTaskBeforeTheOperationStarts() async throws {
    let request = CancellationRequest()
    request.cancel()
    let sawCancellation = try await withCancellationToken(request.token) { Task.isCancelled }
    #expect(sawCancellation)
  }

  /// The operation runs in a child task: a cancelled token leaves the caller's own task as it was,
  /// so the caller's next cancellation-aware await does not throw (it did when the bridge
  /// cancelled the caller's task itself).
  @Test func theCallersTaskIsNotLeftCancelledByTheToken() async throws {
    let request = CancellationRequest()
    let result = await outcome {
      try await withCancellationToken(request.token) {
        request.cancel()
        try await Task.sleep(for: .seconds(30))  // interrupted at once
      }
    }
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(!withUnsafeCurrentTask { $0?.isCancelled ?? true })
    try await Task.sleep(for: .zero)  // would throw CancellationError in a cancelled task
    try Task.checkCancellation()
  }

  struct Shutdown: Error, Equatable {}

  @Test func anOperationThatThrowsAfterTheCancelThrowsTheTokensReason() async {
    let request = CancellationRequest()
    let result = await outcome {
      try await withCancellationToken(request.token) {
        request.cancel(reason: Shutdown())
        try await Task.sleep(for: .seconds(30))  // throws CancellationError; the call throws the reason
      }
    }
    #expect(throws: Shutdown()) { try result.get() }
  }

  @Test func aTokenThatTimedOutMakesTheCallThrowTheTimeoutError() async throws {
    let time = ManualDeadlineScheduler()
    let request = CancellationRequest(timeout: .seconds(5), scheduler: time)
    let result = await outcome {
      try await withCancellationToken(request.token) {
        time.advance(by: .seconds(5))
        try Task.checkCancellation()
      }
    }
    let thrown = #expect(throws: TimeoutError.self) { try result.get() }
    #expect(thrown?.timeout == .seconds(5))
    try Task.checkCancellation()  // the caller's task goes on
  }

  @Test func aValueReturnedAfterTheCancelIsReturned() async throws {
    let request = CancellationRequest()
    let value = try await withCancellationToken(request.token) { () -> Int in
      request.cancel()
      return Task.isCancelled ? 1 : 0
    }
    #expect(value == 1)
  }

  @Test func cancellingTheCallersTaskCancelsTheOperation() async {
    let started = CancellationRequest()  // cancelled once the operation runs
    let task = Task {
      try await withCancellationToken(CancellationRequest().token) {
        started.cancel()
        // Waits for an event only the task's cancel brings: a stream nobody yields to ends when
        // the iterating task is cancelled.
        let (never, continuation) = AsyncStream<Never>.makeStream()
        defer { continuation.finish() }
        for await _ in never {}
        try Task.checkCancellation()
      }
    }
    await started.token.cancelled()
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }

  @Test func theLinkEndsWithTheOperation() async throws {
    let request = CancellationRequest()
    try await withCancellationToken(request.token) {}
    request.cancel()
    #expect(!withUnsafeCurrentTask { $0?.isCancelled ?? true })
    #expect(request.token.signal.storage.registrationCount == 0)
  }

  @Test func aTokenThatCanNeverBeCancelledLeavesTheTaskAlone() async throws {
    let result = try await withCancellationToken(.none) { Task.isCancelled }
    #expect(!result)
  }

  @Test func cancellingTheTaskCancelsItsToken() async {
    let observed = Recorder<Bool>()
    let task = Task {
      await withTaskCancellationToken { token in
        token.onCancel { observed.record(token.isCancelled) }
        await token.cancelled()
        return token.reason is CancellationError
      }
    }
    task.cancel()
    #expect(await task.value)
    #expect(observed.values == [true])
  }

  @Test func theTokenCompletesUncancelledWhenTheBodyReturns() async {
    let escaped = await withTaskCancellationToken { $0 }
    #expect(escaped.isCompleted)
    #expect(!escaped.isCancelled)
  }

  @Test func anAlreadyCancelledTaskHandsOutACancelledToken() async {
    let task = Task { () -> Bool in
      withUnsafeCurrentTask { $0?.cancel() }
      return await withTaskCancellationToken { $0.isCancelled }
    }
    #expect(await task.value)
  }

  @Test func aTokenCanCancelATaskItIsRegisteredWith() async {
    let request = CancellationRequest()
    let task = Task { () -> Bool in
      // Not `await CancelSource().signal.cancelled()`: that source, dropped at once, closes, which
      // ends the wait before the cancel whenever the task starts first.
      try? await suspendUntilCancelled()
      return Task.isCancelled
    }
    request.token.register(cancelable: task)
    request.cancel()
    #expect(await task.value)
  }

  /// token → task → token, cancelled from both ends at once, the back edge running inside Swift's
  /// task-cancellation handler: every round must end, nothing may deadlock or run twice.
  @Test func aCancellationLoopThroughTheTaskRuntimeNeverDeadlocks() async {
    for _ in 0..<Stress.iterations(5_000, minimum: 500) {
      let outer = CancellationRequest()
      let backEdgeRuns = Counter()
      let task = Task {
        try? await withCancellationToken(outer.token) {
          await withTaskCancellationToken { inner in
            inner.onCancel {
              backEdgeRuns.increment()
              outer.cancel()  // back into the token that cancelled this task
            }
            await inner.cancelled()
          }
        }
      }
      async let fromToken: Void = outer.cancel()
      async let fromTask: Void = task.cancel()
      _ = await (fromToken, fromTask)
      await task.value
      #expect(outer.isCancellationRequested)
      #expect(backEdgeRuns.value <= 1)
    }
  }
}

/// What an async throwing call returned or threw.
private func outcome<T>(of body: () async throws -> T) async -> Result<T, any Error> {
  do { return .success(try await body()) } catch { return .failure(error) }
}
