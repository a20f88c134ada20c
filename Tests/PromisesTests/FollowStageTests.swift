import Promises
import TestSupport
import Testing

/// `cancellize()` of a pending promise makes one stage object that follows it: what must still
/// hold (the memory rules are in `CancellationMemoryTests`).
@Suite("Cancellable followers")
struct FollowStageTests {
  @Test func theMemberSettlesLikeThePromiseItWraps() {
    let (fulfilled, fulfil) = Promise<Int>.pending()
    let (rejected, reject) = Promise<Int>.pending()
    let first = fulfilled.cancellize()
    let second = rejected.cancellize()
    fulfil.fulfill(3)
    reject.reject(TestError(id: 8))
    #expect(first.value == 3)
    #expect((second.error as? TestError)?.id == 8)
    first.cancel()
    #expect(first.value == 3, "a cancel after it settled changes nothing")
  }

  @Test func aCancelRejectsTheMemberAndLeavesTheWrappedPromiseRunning() {
    let (promise, resolver) = Promise<Int>.pending()
    let member = promise.cancellize()
    let after = member.map(on: nil) { $0 + 1 }
    member.cancel()
    #expect(member.error?.isCancelled == true)
    #expect(after.error?.isCancelled == true)
    resolver.fulfill(1)
    #expect(promise.value == 1)
    #expect(member.error?.isCancelled == true)
  }

  @Test func aPendingPromiseAndItsMemberDroppedTogetherAreFreed() {
    weak var wrapped: Promise<Int>?
    weak var follower: Promise<Int>?
    do {
      let (promise, _) = Promise<Int>.pending()
      let member = promise.cancellize()
      wrapped = promise
      follower = member.promise
    }
    #expect(wrapped == nil)
    #expect(follower == nil)
  }

  @Test func aCancelRacingTheWrappedPromisesFulfilmentEndsOneWayOnce() {
    let iterations = Stress.iterations(20_000)
    let outcomes = Recorder<Bool>()
    race(
      iterations: iterations,
      setup: { () -> (Resolver<Int>, CancellablePromise<Int>, CancellablePromise<Int>) in
        let (promise, resolver) = Promise<Int>.pending()
        let member = promise.cancellize()
        return (resolver, member, member.map(on: nil) { $0 })
      },
      { state in state.0.fulfill(5) },
      { state in state.1.cancel() },
      check: { state in
        let member = state.1
        #expect(member.value == 5 || member.error?.isCancelled == true)
        // The stage after it may be rejected by the cancel even when the member fulfilled first
        // (it was still pending when the cancel started), never fulfilled after a cancelled member.
        #expect(state.2.value == 5 ? member.value == 5 : state.2.error?.isCancelled == true)
        outcomes.record(member.value == 5)
      })
    #expect(outcomes.values.count == iterations)
  }
}
