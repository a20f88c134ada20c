import CancelCore
import TestSupport
import Testing

@Suite("Deadline schedulers at their limits")
struct SchedulerLimitTests {
  @Test func aClockDeadlineOfInt64MaxSecondsWaitsInsteadOfTrapping() async {
    let (entered, clock) = EnteringClock.make()
    let fired = Counter()
    let handle = ClockDeadlineScheduler(clock: clock).schedule(after: .seconds(Int64.max)) { fired.increment() }
    var sleeps = entered.makeAsyncIterator()
    _ = await sleeps.next()  // the task computed its first deadline and sleeps
    handle.cancel()
    await (handle as? Task<Void, Never>)?.value
    #expect(fired.value == 0)
  }

  @Test func aSourceWithAHugeClockTimeoutStaysActiveUntilCancelled() async {
    let (entered, clock) = EnteringClock.make()
    let source = CancelSource(timeout: .seconds(Int64.max), scheduler: ClockDeadlineScheduler(clock: clock))
    var sleeps = entered.makeAsyncIterator()
    _ = await sleeps.next()
    #expect(!source.isCancelled)
    source.cancel()
    #expect(!(source.signal.reason is TimeoutError))
  }

  @Test(arguments: [Duration.seconds(Int64.max), .seconds(Int64.max) * 4, .seconds(-Int64.max) * 4])
  func dispatchDeadlinesBeyondWhatASecondsCountHoldsDoNotTrap(delay: Duration) {
    let source = CancelSource(timeout: delay)  // the Dispatch scheduler: "never", or at once
    source.cancel(reason: CancellationError())
    #expect(source.isCancelled)
    #expect(Duration.seconds(Int64.max).dispatchInterval == .never)
    #expect((Duration.seconds(Int64.max) * 4).dispatchInterval == .never)
    #expect((Duration.seconds(-Int64.max) * 4).dispatchInterval == .nanoseconds(0))
  }

  @Test func manyManualTimersFireInDeadlineOrderWithTiesInSchedulingOrder() {
    let time = ManualDeadlineScheduler()
    let order = Recorder<Int>()
    let count = 20_000
    // Deadlines in a scrambled order, with ties (every deadline is shared by four timers).
    var handles: [any Cancellable] = []
    for index in 0..<count {
      let deadline = (index &* 7_919) % (count / 4)
      handles.append(time.schedule(after: .milliseconds(deadline)) { order.record(index) })
    }
    // Cancel every tenth; the others must still fire, in order.
    for index in stride(from: 0, to: count, by: 10) { handles[index].cancel() }
    #expect(time.pendingCount == count - count / 10)
    time.advance(by: .milliseconds(count / 8))
    time.advance(by: .seconds(3600))
    let expected = (0..<count).filter { $0 % 10 != 0 }.sorted {
      (($0 &* 7_919) % (count / 4), $0) < (($1 &* 7_919) % (count / 4), $1)
    }
    #expect(order.values == expected)
    #expect(time.pendingCount == 0)
  }

  @Test func aManualTimerScheduledByADueActionFiresInTheSameAdvanceWhenDue() {
    let time = ManualDeadlineScheduler()
    let order = Recorder<String>()
    _ = time.schedule(after: .seconds(1)) {
      order.record("first")
      _ = time.schedule(after: .seconds(1)) { order.record("scheduled by first") }
      _ = time.schedule(after: .seconds(10)) { order.record("too late") }
    }
    _ = time.schedule(after: .seconds(3)) { order.record("third") }
    time.advance(by: .seconds(5))
    #expect(order.values == ["first", "scheduled by first", "third"])
    #expect(time.now == .seconds(5))
    #expect(time.pendingCount == 1)
  }

  @Test func cancellingManyManualTimersWithoutAdvancingKeepsTheSchedulerSmall() {
    let time = ManualDeadlineScheduler()
    for _ in 0..<10_000 {
      time.schedule(after: .seconds(1)) {}.cancel()
    }
    #expect(time.pendingCount == 0)
    #expect(time.storedTimerCount < 100)
  }
}

/// `ContinuousClock`, reporting each time a sleep starts.
private struct EnteringClock: Clock {
  typealias Duration = Swift.Duration
  typealias Instant = ContinuousClock.Instant

  let entered: AsyncStream<Void>.Continuation

  static func make() -> (AsyncStream<Void>, EnteringClock) {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    return (stream, EnteringClock(entered: continuation))
  }

  var now: Instant { ContinuousClock().now }
  var minimumResolution: Duration { ContinuousClock().minimumResolution }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    entered.yield()
    try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
  }
}
