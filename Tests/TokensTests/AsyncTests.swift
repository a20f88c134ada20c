import TestSupport
import Testing
import Tokens

@Suite("Awaiting a token")
struct AsyncTests {
  @Test func cancelledReturnsTrueWhenTheTokenIsCancelled() async {
    let request = CancellationRequest()
    let token = request.token
    let waiter = Task { await token.cancelled() }
    request.cancel()
    #expect(await waiter.value)
  }

  @Test func cancelledReturnsFalseWhenTheRequestGoesAway() async {
    var request: CancellationRequest? = CancellationRequest()
    let token = request!.token
    let waiter = Task { await token.cancelled() }
    request = nil
    #expect(await !waiter.value)
    withExtendedLifetime(request) {}
  }

  @Test func cancelledReturnsWhenTheAwaitingTaskIsCancelledAndLeavesNoHandler() async {
    let request = CancellationRequest()
    let token = request.token
    let waiter = Task { await token.cancelled() }
    waiter.cancel()
    #expect(await !waiter.value)
    #expect(token.signal.storage.registrationCount == 0)
  }

  @Test func cancelledReturnsAtOnceOnCompletedTokens() async {
    let request = CancellationRequest()
    request.cancel()
    #expect(await request.token.cancelled())
    #expect(await !CancellationToken.none.cancelled())
  }
}
