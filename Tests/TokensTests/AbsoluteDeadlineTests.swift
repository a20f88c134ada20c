import TestSupport
import Testing
import Tokens

@Suite("Absolute deadlines on requests and tokens")
struct AbsoluteDeadlineTests {
  @Test func aRequestMadeWithADeadlineCancelsWithTimeoutErrorWhenItPasses() {
    let time = ManualDeadlineScheduler()
    let request = CancellationRequest(deadline: .now + .seconds(5), scheduler: time)
    time.advance(by: .seconds(4))
    #expect(!request.token.isCancelled)
    time.advance(by: .seconds(1))
    #expect(request.token.reason is TimeoutError)
    #expect(time.pendingCount == 0)
  }

  // Before the clamping these trapped with "Overflow in +"; each runs in a child process (an exit
  // test) so that a trap fails this test, not the suite.
  @Test func deadlinesAtTheEndsOfWhatADurationHoldsNeitherTrapNorFireEarly() async {
    await #expect(processExitsWith: .success) {
      let time = ManualDeadlineScheduler()
      let far = CancellationRequest(timeout: .greatest, scheduler: time)
      let start = ContinuousClock.now
      let longAgo = start.advanced(by: .least)
      while ContinuousClock.now == start {}  // the time from now to `longAgo` is below a Duration's range
      let past = CancellationRequest(deadline: longAgo, scheduler: time)
      far.cancel(after: .seconds(1e20), scheduler: time)
      time.advance(by: .greatest)
      precondition(past.token.reason is TimeoutError)
      precondition(!far.token.isCancelled && far.token.deadline != nil)
    }
  }

  @Test func aTokenReadsItsRequestsDeadlineBack() {
    let deadline = ContinuousClock.now + .seconds(5)
    let request = CancellationRequest(deadline: deadline, scheduler: ManualDeadlineScheduler())
    #expect(request.token.deadline == deadline)
    #expect(request.deadline == deadline)
    #expect(CancellationRequest().token.deadline == nil)
    #expect(CancellationToken.none.deadline == nil)
    request.cancel()
    #expect(request.token.deadline == nil)  // completed: the deadline no longer applies
  }

  @Test func aLinkedRequestsTokenReadsTheEarliestDeadlineOfItselfAndItsParents() {
    let time = ManualDeadlineScheduler()
    let now = ContinuousClock.now
    let server = CancellationRequest(deadline: now + .seconds(3), scheduler: time)
    let client = CancellationRequest(timeout: .seconds(60), scheduler: time)
    let child = CancellationRequest(linkedTo: server.token, client.token, deadline: now + .seconds(10), scheduler: time)
    #expect(child.token.deadline == now + .seconds(3))
    server.close()
    #expect(child.token.deadline == now + .seconds(10))
    time.advance(by: .seconds(10))
    #expect(child.token.reason is TimeoutError)
  }

  @Test func aParentsDeadlineCancelsTheChildWithTimeoutError() {
    let time = ManualDeadlineScheduler()
    let parent = CancellationRequest(deadline: .now + .seconds(2), scheduler: time)
    let child = CancellationRequest(linkedTo: parent.token)
    #expect(child.token.deadline == parent.token.deadline)
    time.advance(by: .seconds(2))
    #expect(child.token.reason is TimeoutError)
  }

  @Test func cancelAtReplacesThePendingDeadline() {
    let time = ManualDeadlineScheduler()
    let now = ContinuousClock.now
    let request = CancellationRequest(timeout: .seconds(1), scheduler: time)
    request.cancel(at: now + .seconds(30), scheduler: time)
    #expect(request.token.deadline == now + .seconds(30))
    time.advance(by: .seconds(5))
    #expect(!request.isCancellationRequested)
    #expect(time.pendingCount == 1)
  }

  @Test func aFlatMappedTokenReportsItsInnerTokensDeadline() {
    let deadline = ContinuousClock.now + .seconds(8)
    let inner = CancellationRequest(deadline: deadline, scheduler: ManualDeadlineScheduler())
    let outer = CancellationRequest()
    let flat = outer.token.flatMap { inner.token }
    outer.cancel()  // the flatMap now follows the inner token
    #expect(flat.deadline == deadline)
  }
}
