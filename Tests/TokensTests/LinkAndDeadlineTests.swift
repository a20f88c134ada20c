import TestSupport
import Testing
import Tokens

@Suite("Linked requests and deadlines")
struct LinkAndDeadlineTests {
  @Test func aLinkedRequestIsCancelledWhenAnyOfItsTokensIsWithThatReason() {
    let first = CancellationRequest()
    let second = CancellationRequest()
    let child = CancellationRequest(linkedTo: first.token, second.token)
    #expect(!child.isCancellationRequested)
    second.cancel(reason: TestReason())
    #expect(child.isCancellationRequested)
    #expect(child.token.reason is TestReason)
  }

  @Test func aLinkedRequestCanStillBeCancelledByItsOwner() {
    let parent = CancellationRequest()
    let child = CancellationRequest(linkedTo: parent.token)
    child.cancel()
    #expect(child.isCancellationRequested)
    #expect(!parent.isCancellationRequested, "links go one way: parent to child")
  }

  @Test func aTokenThatCompletesWithoutCancellationLeavesTheLinkedRequestCancellable() {
    let parent = CancellationRequest()
    let child = CancellationRequest(linkedTo: parent.token)
    parent.close()
    #expect(!child.isCompleted)
    child.cancel()
    #expect(child.isCancellationRequested)
  }

  @Test func linkingToACancelledTokenCancelsAtOnce() {
    let parent = CancellationRequest()
    parent.cancel(reason: TestReason())
    let child = CancellationRequest(linkedTo: [parent.token])
    #expect(child.token.reason is TestReason)
  }

  @Test func aLinkIsRemovedFromTheParentWhenTheChildEnds() {
    let parent = CancellationRequest()
    var child: CancellationRequest? = CancellationRequest(linkedTo: parent.token)
    #expect(parent.token.signal.storage.registrationCount == 1)
    child = nil
    #expect(parent.token.signal.storage.registrationCount == 0)
    withExtendedLifetime(child) {}
  }

  @Test func aTimeoutCancelsWithTimeoutErrorWhenTimeRunsOut() {
    let time = ManualDeadlineScheduler()
    let request = CancellationRequest(timeout: .seconds(5), scheduler: time)
    time.advance(by: .seconds(4))
    #expect(!request.isCancellationRequested)
    time.advance(by: .seconds(1))
    #expect(request.isCancellationRequested)
    #expect((request.token.reason as? TimeoutError)?.timeout == .seconds(5))
    #expect(request.token.reason?.isCancellation == true)
  }

  @Test func cancelAfterReplacesTheEarlierDeadline() {
    let time = ManualDeadlineScheduler()
    let request = CancellationRequest()
    request.cancel(after: .seconds(10), scheduler: time)
    request.cancel(after: .seconds(20), scheduler: time)
    #expect(time.pendingCount == 1)
    time.advance(by: .seconds(15))
    #expect(!request.isCancellationRequested)
    time.advance(by: .seconds(5))
    #expect(request.token.reason is TimeoutError)
  }

  @Test(arguments: Ending.allCases)
  func theTimerIsReleasedWhenTheRequestEndsAnotherWay(ending: Ending) {
    let time = ManualDeadlineScheduler()
    var request: CancellationRequest? = CancellationRequest(timeout: .seconds(60), scheduler: time)
    let token = request!.token
    switch ending {
    case .cancel: request!.cancel()
    case .close: request!.close()
    case .deallocate: request = nil
    }
    #expect(time.pendingCount == 0)
    #expect(token.isCompleted)
    #expect(!(token.reason is TimeoutError))
    withExtendedLifetime(request) {}
  }

  @Test func theDefaultSchedulerMeasuresRealTime() async {
    let request = CancellationRequest(timeout: .milliseconds(1))
    #expect(await request.token.cancelled())
    #expect(request.token.reason is TimeoutError)
  }
}
