import CancelCore
import TestSupport
import Testing

@Suite("States and reasons")
struct StateTests {
  @Test func newSourceIsActive() {
    let source = CancelSource()
    #expect(!source.isCancelled)
    #expect(!source.isCompleted)
    guard case .active = source.signal.phase else {
      Issue.record("expected active, got \(source.signal.phase)")
      return
    }
    #expect(source.signal.reason == nil)
  }

  @Test func firstCancelWinsAndLaterOnesReportFalse() {
    let source = CancelSource()
    #expect(source.cancel(reason: CancellationError()))
    #expect(!source.cancel(reason: CancellationError()))
    #expect(!source.close())
    #expect(source.isCancelled)
    #expect(source.isCompleted)
  }

  @Test func closeEndsWithoutCancellationAndBlocksLaterCancel() {
    let source = CancelSource()
    #expect(source.close())
    #expect(!source.close())
    #expect(!source.cancel(reason: CancellationError()))
    #expect(!source.isCancelled)
    #expect(source.isCompleted)
    guard case .closed = source.signal.phase else {
      Issue.record("expected closed, got \(source.signal.phase)")
      return
    }
  }

  @Test(arguments: [1, 3])
  func closeAfterEveryHandlerLeftEndsTheSourceAndRunsLaterCompletionsAsNotCancelled(handlers: Int) {
    let source = CancelSource()
    let ran = Counter()
    let registrations = (0..<handlers).map { _ in source.signal.onCancel { ran.increment() } }
    for registration in registrations { #expect(registration.unregister()) }
    #expect(source.close())
    #expect(!source.cancel(reason: CancellationError()))
    #expect(source.isCompleted && !source.isCancelled)
    let outcomes = Recorder<Bool>()
    source.signal.onComplete { outcomes.record($0) }
    #expect(outcomes.values == [false])
    #expect(ran.value == 0)
  }

  @Test func defaultReasonIsSwiftCancellationError() {
    let source = CancelSource()
    source.cancel()
    #expect(source.signal.reason is CancellationError)
    #expect(source.signal.phase.isCancelled)
  }

  @Test func firstReasonWins() {
    struct First: Error {}
    struct Second: Error {}
    let source = CancelSource()
    source.cancel(reason: First())
    source.cancel(reason: Second())
    source.cancel()
    #expect(source.signal.reason is First)
  }

  @Test func deallocatingAnActiveSourceClosesIt() {
    var source: CancelSource? = CancelSource()
    let signal = source!.signal
    let outcomes = Recorder<Bool>()
    signal.onComplete { outcomes.record($0) }
    source = nil
    #expect(signal.isCompleted)
    #expect(!signal.isCancelled)
    #expect(outcomes.values == [false])
  }

  @Test func neverSignalIsClosedAndRunsNothingButCompletion() {
    let signal = CancelSignal.never
    #expect(!signal.isCancelled)
    #expect(signal.isCompleted)
    let ran = Counter()
    let outcomes = Recorder<Bool>()
    let registration = signal.onCancel { ran.increment() }
    signal.onComplete { outcomes.record($0) }
    #expect(ran.value == 0)
    #expect(outcomes.values == [false])
    #expect(!registration.unregister())
  }

  @Test func checkCancellationThrowsTheReasonOnlyOnceCancelled() throws {
    struct Reason: Error {}
    let source = CancelSource()
    try source.signal.checkCancellation()
    source.cancel(reason: Reason())
    #expect(throws: Reason.self) { try source.signal.checkCancellation() }
    let closed = CancelSource()
    closed.close()
    try closed.signal.checkCancellation()
  }

  @Test func signalsOfOneSourceAreEqualAndHashAlike() {
    let source = CancelSource()
    let other = CancelSource()
    #expect(source.signal == source.signal)
    #expect(source.signal != other.signal)
    #expect(Set([source.signal, source.signal, other.signal]).count == 2)
  }
}
