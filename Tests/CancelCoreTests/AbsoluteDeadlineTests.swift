import CancelCore
import TestSupport
import Testing

@Suite("Absolute deadlines")
struct AbsoluteDeadlineTests {
  @Test func aSourceMadeWithAnInstantCancelsWithTimeoutErrorWhenItPasses() {
    let time = ManualDeadlineScheduler()
    let deadline = ContinuousClock.now.advanced(by: .seconds(5))
    let source = CancelSource(deadline: deadline, scheduler: time)
    time.advance(by: .seconds(4))
    #expect(!source.isCancelled)
    time.advance(by: .seconds(1))
    #expect(source.signal.reason is TimeoutError)
    #expect(time.pendingCount == 0)
  }

  @Test func aSignalReadsItsDeadlineBackUntilTheSourceEnds() {
    let time = ManualDeadlineScheduler()
    let deadline = ContinuousClock.now.advanced(by: .seconds(5))
    let source = CancelSource(deadline: deadline, scheduler: time)
    #expect(source.signal.deadline == deadline)
    #expect(source.deadline == deadline)
    time.advance(by: .seconds(5))
    #expect(source.signal.deadline == nil)  // ended: the deadline no longer applies
  }

  @Test func aSourceWithoutADeadlineReadsNil() {
    #expect(CancelSource().signal.deadline == nil)
    #expect(CancelSignal.never.deadline == nil)
  }

  @Test func aRelativeTimeoutReadsBackAsTheInstantItFallsDue() {
    let before = ContinuousClock.now
    let source = CancelSource(timeout: .seconds(30), scheduler: ManualDeadlineScheduler())
    let after = ContinuousClock.now
    let deadline = try! #require(source.signal.deadline)
    #expect(deadline >= before.advanced(by: .seconds(30)) && deadline <= after.advanced(by: .seconds(30)))
  }

  @Test func aLaterDeadlineReplacesTheEarlierOneAndReadsBack() {
    let time = ManualDeadlineScheduler()
    let now = ContinuousClock.now
    let source = CancelSource(deadline: now.advanced(by: .seconds(5)), scheduler: time)
    source.cancel(at: now.advanced(by: .seconds(50)), scheduler: time)
    #expect(source.deadline == now.advanced(by: .seconds(50)))
    #expect(time.pendingCount == 1)
    time.advance(by: .seconds(10))
    #expect(!source.isCancelled)
  }

  @Test func aDeadlineAlreadyPastCancelsAtTheSchedulersNextTurn() {
    let time = ManualDeadlineScheduler()
    let source = CancelSource(deadline: ContinuousClock.now.advanced(by: .seconds(-1)), scheduler: time)
    time.advance(by: .zero)
    #expect((source.signal.reason as? TimeoutError)?.timeout == .zero)
  }

  @Test func aChildReadsTheEarliestDeadlineOfItselfAndItsAncestors() {
    let time = ManualDeadlineScheduler()
    let now = ContinuousClock.now
    let grandparent = CancelSource(deadline: now.advanced(by: .seconds(5)), scheduler: time)
    let parent = CancelSource(linkedTo: grandparent.signal)
    parent.cancel(at: now.advanced(by: .seconds(10)), scheduler: time)
    let uncle = CancelSource(deadline: now.advanced(by: .seconds(7)), scheduler: time)
    let child = CancelSource(linkedTo: parent.signal, uncle.signal)
    child.cancel(at: now.advanced(by: .seconds(20)), scheduler: time)

    #expect(child.deadline == now.advanced(by: .seconds(5)))
    #expect(parent.deadline == now.advanced(by: .seconds(5)))
    grandparent.close()  // an ended parent no longer counts
    #expect(child.deadline == now.advanced(by: .seconds(7)))
    uncle.close()
    #expect(child.deadline == now.advanced(by: .seconds(10)))
    #expect(CancelSource(linkedTo: CancelSource().signal).deadline == nil)
  }

  @Test func aSourceLinkedTwiceToOneAncestorReadsItsDeadlineOnce() {
    let now = ContinuousClock.now
    let root = CancelSource(deadline: now.advanced(by: .seconds(3)), scheduler: ManualDeadlineScheduler())
    let left = CancelSource(linkedTo: root.signal)
    let right = CancelSource(linkedTo: root.signal)
    let diamond = CancelSource(linkedTo: left.signal, right.signal)
    #expect(diamond.deadline == now.advanced(by: .seconds(3)))
  }

  /// A recursive walk this deep would overflow the small stack many times over.
  @Test func readingTheDeadlineOfADeepChainNeedsNoDeepStack() async {
    let depth = 100_000
    let deadline = await onSmallStack { () -> ContinuousClock.Instant? in
      let time = ManualDeadlineScheduler()
      let root = CancelSource(timeout: .seconds(60), scheduler: time)
      var chain = [root]
      chain.reserveCapacity(depth)
      for _ in 1..<depth { chain.append(CancelSource(linkedTo: chain[chain.count - 1].signal)) }
      let read = chain[chain.count - 1].deadline
      #expect(read == root.deadline)
      root.cancel()
      return read
    }
    #expect(deadline != nil)
  }

  @Test func anInstantOfAnotherClockCancelsOnThatClock() async {
    let clock = SuspendingClock()
    let source = CancelSource(deadline: clock.now.advanced(by: .milliseconds(-1)), clock: clock)
    #expect(await source.signal.cancelled())  // the clock's timer fires at once; nothing sleeps here
    #expect(source.signal.reason is TimeoutError)

    let later = CancelSource(deadline: clock.now.advanced(by: .seconds(60)), clock: clock)
    let readBack = try! #require(later.deadline)
    #expect(readBack > ContinuousClock.now.advanced(by: .seconds(59)))
    later.close()
  }
}
