import Foundation
import TestSupport
import Testing
import Tokens

/// `CancellationToken.current` and its synchronous binding, `CancellationToken.withCurrent`.
@Suite("The current token (synchronous scopes)")
struct CurrentTokenTests {
  struct Outer: Error, Equatable {}
  struct Inner: Error, Equatable {}

  @Test func thereIsNoCurrentTokenOutsideAnyScope() {
    #expect(CancellationToken.current == nil)
  }

  @Test func aScopeBindsItsTokenForItsOperationOnly() {
    let request = CancellationRequest()
    let inside = CancellationToken.withCurrent(request.token) { CancellationToken.current }
    #expect(inside == request.token)
    #expect(CancellationToken.current == nil, "the enclosing value is back after the scope")
  }

  @Test func aScopeReturnsAndThrowsWhatItsOperationDoes() {
    let request = CancellationRequest()
    #expect(CancellationToken.withCurrent(request.token) { 42 } == 42)
    #expect(throws: Inner()) { try CancellationToken.withCurrent(request.token) { throw Inner() } }
  }

  @Test func aNestedScopeIsCancelledByTheEnclosingTokenWithItsReason() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let current = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(inner.token) { () -> CancellationToken? in
        outer.cancel(reason: Outer())
        return CancellationToken.current
      }
    }
    #expect(current?.isCancelled == true)
    #expect(current?.reason is Outer)
    #expect(!inner.isCancellationRequested, "the scope's own token is not cancelled by the enclosing one")
  }

  @Test func aNestedScopeIsCancelledByItsOwnTokenWithItsReason() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let current = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(inner.token) { () -> CancellationToken? in
        inner.cancel(reason: Inner())
        return CancellationToken.current
      }
    }
    #expect(current?.reason is Inner)
    #expect(!outer.isCancellationRequested, "cancellation flows inward only")
  }

  @Test func theFirstReasonWinsThroughThreeScopes() {
    let outer = CancellationRequest()
    let middle = CancellationRequest()
    let inner = CancellationRequest()
    let current = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(middle.token) {
        CancellationToken.withCurrent(inner.token) { () -> CancellationToken? in
          middle.cancel(reason: Inner())
          outer.cancel(reason: Outer())
          return CancellationToken.current
        }
      }
    }
    #expect(current?.reason is Inner)
  }

  @Test func whenBothAreAlreadyCancelledTheEnclosingReasonWins() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    outer.cancel(reason: Outer())
    inner.cancel(reason: Inner())
    let reason = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(inner.token) { CancellationToken.current?.reason }
    }
    #expect(reason is Outer)
  }

  @Test(arguments: [(10, 20), (20, 10)])
  func aNestedScopesDeadlineIsTheEarliestOfTheirs(outerSeconds: Int, innerSeconds: Int) {
    let time = ManualDeadlineScheduler()
    let now = ContinuousClock.now
    let outer = CancellationRequest(deadline: now + .seconds(outerSeconds), scheduler: time)
    let inner = CancellationRequest(deadline: now + .seconds(innerSeconds), scheduler: time)
    let deadline = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(inner.token) { CancellationToken.current?.deadline }
    }
    #expect(deadline == now + .seconds(min(outerSeconds, innerSeconds)))
  }

  @Test func aNestedScopeWithoutADeadlineReadsTheEnclosingOne() {
    let time = ManualDeadlineScheduler()
    let deadline = ContinuousClock.now + .seconds(7)
    let outer = CancellationRequest(deadline: deadline, scheduler: time)
    let inner = CancellationRequest()
    let read = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(inner.token) { CancellationToken.current?.deadline }
    }
    #expect(read == deadline)
  }

  @Test func theEnclosingDeadlineCancelsTheNestedScopeWithATimeoutError() {
    let time = ManualDeadlineScheduler()
    let outer = CancellationRequest(timeout: .seconds(5), scheduler: time)
    let inner = CancellationRequest()
    let current = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(inner.token) { () -> CancellationToken? in
        time.advance(by: .seconds(5))
        return CancellationToken.current
      }
    }
    #expect(current?.reason is TimeoutError)
  }

  @Test func aCombinedTokenCompletesWithoutCancellationWhenItsScopeEnds() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let combined = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(inner.token) { () -> CancellationToken? in
        #expect(CancellationToken.current != outer.token && CancellationToken.current != inner.token)
        #expect(CancellationToken.current?.isCompleted == false)
        return CancellationToken.current
      }
    }
    #expect(combined?.isCompleted == true)
    #expect(combined?.isCancelled == false)
    outer.cancel()
    #expect(combined?.isCancelled == false, "its links left the enclosing token with the scope")
  }

  @Test func theEnclosingScopesTokenIsBackAfterANestedOne() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let after = CancellationToken.withCurrent(outer.token) { () -> CancellationToken? in
      CancellationToken.withCurrent(inner.token) {}
      return CancellationToken.current
    }
    #expect(after == outer.token)
  }

  @Test func nestingTheSameTokenOrOneThatCannotBeCancelledCombinesNothing() {
    let outer = CancellationRequest()
    let same = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(outer.token) { CancellationToken.current }
    }
    #expect(same == outer.token)
    let underNone = CancellationToken.withCurrent(outer.token) {
      CancellationToken.withCurrent(CancellationToken.none) { CancellationToken.current }
    }
    #expect(underNone == outer.token)
    let noneOutside = CancellationToken.withCurrent(CancellationToken.none) {
      CancellationToken.withCurrent(outer.token) { CancellationToken.current }
    }
    #expect(noneOutside == outer.token)
  }

  /// A block submitted to a queue runs outside the scope: the current token does not travel
  /// with it (hand it over explicitly).
  @Test func aBlockSubmittedToAQueueDoesNotSeeTheScope() async {
    let request = CancellationRequest()
    let seen: CancellationToken? = await withCheckedContinuation { continuation in
      CancellationToken.withCurrent(request.token) {
        DispatchQueue.global().async { continuation.resume(returning: CancellationToken.current) }
      }
    }
    #expect(seen == nil)
  }

  /// Code that is not in any task (a thread of its own) binds and reads the token too.
  @Test func aThreadOutsideAnyTaskBindsAndReadsTheToken() async {
    let request = CancellationRequest()
    let token = request.token
    let seen: (inside: CancellationToken?, after: CancellationToken?) = await withCheckedContinuation { continuation in
      Thread {
        let inside = CancellationToken.withCurrent(token) { CancellationToken.current }
        continuation.resume(returning: (inside, CancellationToken.current))
      }.start()
    }
    #expect(seen.inside == token)
    #expect(seen.after == nil)
  }
}
