import CancelCore
import TestSupport
import Testing

@Suite("Deadlines")
struct DeadlineTests {
  @Test func timeoutAtCreationCancelsWithTimeoutErrorWhenTimeRunsOut() {
    let time = ManualDeadlineScheduler()
    let source = CancelSource(timeout: .seconds(5), scheduler: time)
    time.advance(by: .seconds(4))
    #expect(!source.isCancelled)
    time.advance(by: .seconds(1))
    #expect(source.isCancelled)
    #expect((source.signal.reason as? TimeoutError)?.timeout == .seconds(5))
    #expect(source.signal.reason?.isCancellation == true)
  }

  @Test func cancelAfterReplacesTheEarlierDeadline() {
    let time = ManualDeadlineScheduler()
    let source = CancelSource()
    source.cancel(after: .seconds(10), scheduler: time)
    source.cancel(after: .seconds(20), scheduler: time)
    #expect(time.pendingCount == 1)
    time.advance(by: .seconds(15))
    #expect(!source.isCancelled)
    time.advance(by: .seconds(5))
    #expect(source.isCancelled)
  }

  @Test(arguments: ["cancel", "close", "deallocate"])
  func theTimerIsReleasedWhenTheSourceEndsAnotherWay(ending: String) {
    let time = ManualDeadlineScheduler()
    var source: CancelSource? = CancelSource(timeout: .seconds(60), scheduler: time)
    weak let weakStorage = source!.signal.storage
    #expect(time.pendingCount == 1)
    switch ending {
    case "cancel": source!.cancel()
    case "close": source!.close()
    default: source = nil
    }
    #expect(time.pendingCount == 0)
    source = nil
    #expect(weakStorage == nil)
  }

  @Test func aDeadlineOnAnEndedSourceSchedulesNothing() {
    let time = ManualDeadlineScheduler()
    let source = CancelSource()
    source.cancel()
    source.cancel(after: .seconds(1), scheduler: time)
    #expect(time.pendingCount == 0)
  }

  @Test func aFiredDeadlineDoesNotReplaceAnEarlierReason() {
    struct Reason: Error {}
    let time = ManualDeadlineScheduler()
    let source = CancelSource(timeout: .seconds(1), scheduler: time)
    source.cancel(reason: Reason())
    time.advance(by: .seconds(2))
    #expect(source.signal.reason is Reason)
  }

  @Test func manualSchedulerRunsDueActionsInDeadlineOrder() {
    let time = ManualDeadlineScheduler()
    let order = Recorder<Int>()
    _ = time.schedule(after: .seconds(3)) { order.record(3) }
    _ = time.schedule(after: .seconds(1)) { order.record(1) }
    let cancelled = time.schedule(after: .seconds(2)) { order.record(2) }
    cancelled.cancel()
    time.advance(by: .seconds(10))
    #expect(order.values == [1, 3])
    #expect(time.now == .seconds(10))
  }

  @Test func dispatchDeadlineCancelsInRealTime() async {
    let source = CancelSource(timeout: .milliseconds(20))
    let cancelled = await source.signal.cancelled()
    #expect(cancelled)
    #expect(source.signal.reason is TimeoutError)
  }

  @Test func clockDeadlineCancelsOnTheGivenClock() async {
    let source = CancelSource(timeout: .milliseconds(20), scheduler: ClockDeadlineScheduler(clock: ContinuousClock()))
    #expect(await source.signal.cancelled())
    #expect(source.signal.reason is TimeoutError)
  }

  @Test func cancellingAClockDeadlineCancelsItsTask() async {
    let stopped = CancelSource()
    let handle = ClockDeadlineScheduler(clock: ContinuousClock()).schedule(after: .seconds(3600)) { stopped.cancel() }
    handle.cancel()
    guard let task = handle as? Task<Void, Never> else {
      Issue.record("expected a Task handle")
      return
    }
    await task.value
    #expect(!stopped.isCancelled)
  }
}
