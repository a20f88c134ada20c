import CancelCore
import TestSupport
import Testing

/// Each test that lets a deadline cancel its task runs in a task of its own: Swift Testing treats
/// the cancellation of a test's own task as the test being cancelled.
@Suite("withCancellationDeadline")
struct DeadlineHelperTests {
  struct Failure: Error {}

  @Test func anOperationStillRunningWhenTheDeadlinePassesIsCancelledAndTheCallThrowsTimeoutError() async {
    let time = ManualDeadlineScheduler()
    let deadline = ContinuousClock.now.advanced(by: .seconds(5))
    let result = await Task {
      try await withCancellationDeadline(deadline, scheduler: time) {
        time.advance(by: .seconds(5))
        #expect(Task.isCancelled)
        try Task.checkCancellation()  // throws CancellationError; the call throws the timeout instead
      }
    }.result
    #expect(throws: TimeoutError.self) { try result.get() }
    #expect(time.pendingCount == 0)
  }

  @Test func anOperationThatEndsInTimeReturnsItsValueAndStopsTheTimer() async throws {
    let time = ManualDeadlineScheduler()
    let value = try await withCancellationDeadline(after: .seconds(5), scheduler: time) {
      time.advance(by: .seconds(4))
      return Task.isCancelled ? -1 : 42
    }
    #expect(value == 42)
    #expect(time.pendingCount == 0)
    #expect(!withUnsafeCurrentTask { $0?.isCancelled ?? false })
  }

  @Test func anErrorThrownBeforeTheDeadlineIsThrownUnchanged() async {
    let time = ManualDeadlineScheduler()
    await #expect(throws: Failure.self) {
      try await withCancellationDeadline(after: .seconds(5), scheduler: time) { throw Failure() }
    }
  }

  @Test func anyErrorThrownAfterTheDeadlinePassedBecomesTheTimeout() async {
    let time = ManualDeadlineScheduler()
    let result = await Task {
      try await withCancellationDeadline(after: .seconds(3), scheduler: time) {
        time.advance(by: .seconds(3))
        throw Failure()  // what the stopped work happened to produce
      }
    }.result
    let thrown = #expect(throws: TimeoutError.self) { try result.get() }
    #expect(thrown?.timeout == .seconds(3))
  }

  @Test func aDeadlineAlreadyPastCancelsBeforeTheOperationAwaits() async {
    let result = await Task {
      try await withCancellationDeadline(ContinuousClock.now.advanced(by: .seconds(-1))) {
        try await suspendUntilCancelled()  // the dispatch timer of zero delay cancels the task
      }
    }.result
    #expect(throws: TimeoutError.self) { try result.get() }
  }

  actor Store {
    var items: [Int] = []

    func load(time: ManualDeadlineScheduler) async throws -> [Int] {
      try await withCancellationDeadline(after: .seconds(1), scheduler: time) {
        self.assertIsolated()
        items.append(1)
      }
      do {
        try await withCancellationDeadline(after: .seconds(1), scheduler: time) {
          items.append(2)
          time.advance(by: .seconds(1))
          try Task.checkCancellation()
        }
      } catch is TimeoutError {
        items.append(3)
      }
      return items
    }
  }

  @Test func anActorPassesAClosureThatTouchesItsState() async throws {
    let items = try await Task { try await Store().load(time: ManualDeadlineScheduler()) }.value
    #expect(items == [1, 2, 3])
  }

  /// The deadline cancels only the operation's child task: after a timeout the caller's own task
  /// goes on (its next cancellation-aware await would throw if the deadline had cancelled it).
  @Test func theCallersTaskIsNotLeftCancelledByATimeout() async throws {
    let time = ManualDeadlineScheduler()
    await #expect(throws: TimeoutError.self) {
      try await withCancellationDeadline(after: .seconds(1), scheduler: time) {
        time.advance(by: .seconds(1))
        try await Task.sleep(for: .seconds(30))  // interrupted at once
      }
    }
    #expect(!withUnsafeCurrentTask { $0?.isCancelled ?? true })
    try await Task.sleep(for: .zero)
    try Task.checkCancellation()
  }

  @MainActor final class Screen {
    var rows: [String] = []
  }

  @MainActor @Test func mainActorCodePassesAClosureThatTouchesUIState() async throws {
    let screen = Screen()
    try await withCancellationDeadline(after: .seconds(60), scheduler: ManualDeadlineScheduler()) {
      MainActor.assertIsolated()
      screen.rows.append("loaded")
    }
    #expect(screen.rows == ["loaded"])
  }

  final class Counter {
    var value = 0
  }

  @Test func nonisolatedCodePassesANonSendableClosure() async throws {
    let counter = Counter()
    try await withCancellationDeadline(after: .seconds(60), scheduler: ManualDeadlineScheduler()) {
      counter.value += 1
    }
    #expect(counter.value == 1)
  }
}
