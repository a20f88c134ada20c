import CancelCore
import TestSupport
import Testing

/// Deadline arithmetic at the ends of what a `Duration` holds. Each scenario runs in a child
/// process (an exit test) and checks its outcome with `precondition`: before the clamping these
/// trapped with "Overflow in +", and a trap must fail one test, not end the suite.
@Suite("Deadlines at the limits of Duration")
struct DeadlineOverflowTests {
  @Test func aManualTimeoutBeyondTheLatestTimeStaysPendingInsteadOfTrapping() async {
    await #expect(processExitsWith: .success) {
      let time = ManualDeadlineScheduler()
      time.advance(by: .seconds(1e20))
      precondition(time.now == ManualDeadlineScheduler.latestTime)
      let source = CancelSource(timeout: .seconds(1e20), scheduler: time)
      time.advance(by: .seconds(1))
      precondition(!source.isCancelled && time.pendingCount == 1)
      source.cancel()
      precondition(time.pendingCount == 0)
    }
  }

  @Test func advancingPastTheLatestTimeStopsThereAndFiresWhatIsDue() async {
    await #expect(processExitsWith: .success) {
      let time = ManualDeadlineScheduler()
      let early = CancelSource(timeout: .seconds(5), scheduler: time)
      for _ in 0..<19 { time.advance(by: .seconds(Int64.max)) }
      precondition(early.signal.reason is TimeoutError)
      precondition(time.now == ManualDeadlineScheduler.latestTime)
      // At the latest time a zero delay is still due, at the next advance.
      let now = CancelSource(timeout: .zero, scheduler: time)
      time.advance(by: .greatest)
      time.advance(to: .greatest)
      precondition(now.signal.reason is TimeoutError)
      precondition(time.now == ManualDeadlineScheduler.latestTime && time.pendingCount == 0)
    }
  }

  @Test func aManualTimerDueExactlyAtTheLatestTimeFiresAndOneLaterNever() async {
    await #expect(processExitsWith: .success) {
      let time = ManualDeadlineScheduler()
      let atTheEnd = CancelSource(timeout: ManualDeadlineScheduler.latestTime, scheduler: time)
      let after = CancelSource(timeout: .greatest, scheduler: time)
      let past = CancelSource(timeout: .least, scheduler: time)
      time.advance(to: .greatest)
      precondition(atTheEnd.isCancelled && past.isCancelled)
      precondition(!after.isCancelled && time.pendingCount == 1)
      precondition(after.deadline != nil)  // read back as far off, not trapped
    }
  }

  @Test func aDeadlineFurtherInThePastThanADurationReachesFiresInsteadOfTrapping() async {
    await #expect(processExitsWith: .success) {
      let time = ManualDeadlineScheduler()
      let start = ContinuousClock.now
      let longAgo = start.advanced(by: .least)
      // The clock moves on: the time from now to `longAgo` is below what a `Duration` holds.
      while ContinuousClock.now == start {}
      let source = CancelSource(deadline: longAgo, scheduler: time)
      time.advance(by: .zero)
      precondition(source.signal.reason is TimeoutError)
    }
  }
}
