import Adapters
import TestSupport
import Testing
import Tokens

@Suite("Tokens and tasks")
struct TokenTaskBridgeTests {
  @Test func cancellingTheTokenCancelsTheOperationsTask() async {
    let request = CancellationRequest()
    let outcome = await withCancellationToken(request.token) { () -> String in
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

  @Test func anAlreadyCancelledTokenCancelsTheTaskBeforeTheOperationStarts() async {
    let request = CancellationRequest()
    request.cancel()
    let sawCancellation = await Task { await withCancellationToken(request.token) { Task.isCancelled } }.value
    #expect(sawCancellation)
  }

  @Test func theLinkEndsWithTheOperation() async {
    let request = CancellationRequest()
    let task = Task { () -> Bool in
      await withCancellationToken(request.token) {}
      request.cancel()
      return Task.isCancelled
    }
    #expect(await task.value == false)
    #expect(request.token.signal.storage.registrationCount == 0)
  }

  @Test func aTokenThatCanNeverBeCancelledLeavesTheTaskAlone() async {
    let result = await withCancellationToken(.none) { Task.isCancelled }
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
      await CancelSource().signal.cancelled()  // returns when this task is cancelled
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
        await withCancellationToken(outer.token) {
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
