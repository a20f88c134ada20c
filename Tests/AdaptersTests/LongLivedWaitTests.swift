import Adapters
import Promises
import TestSupport
import Testing
import Tokens

/// Waits that end early leave nothing behind in a long-lived promise or token.
@Suite("Long-lived promises and tokens keep nothing of finished waits")
struct LongLivedWaitTests {
  /// The 200,000 calls on one token with `STRESS_FULL_SIZE=1` (CI's release run); a tenth
  /// in the everyday debug `swift test`.
  static let calls = Stress.fullSize ? 200_000 : 20_000

  @Test func aCancelledAwaitTakesItsCallbackOutOfThePromise() async {
    let (promise, resolver) = Promise<Int>.pending()
    for round in 0..<2_000 {
      let waiter = Task { try await promise.async() }
      if round.isMultiple(of: 2) {
        // Half of them are surely waiting in the promise when cancelled.
        while promise.waitingCount == 0 { await Task.yield() }
      }
      waiter.cancel()
      await #expect(throws: CancellationError.self) { try await waiter.value }
    }
    #expect(promise.waitingCount == 0)
    resolver.fulfill(1)
    #expect((try? await promise.async()) == 1)
  }

  @Test func finishedWhenWhileCallsLeaveTheCancelPromise() {
    let request = CancellationRequest()
    let cancelPromise = request.token.asCancelPromise()
    let kept = cancelPromise.waitingCount
    let weakResults = Recorder<WeakBox<Promise<Int>>>()
    for round in 0..<Self.calls {
      let (work, resolver) = Promise<Int>.pending()
      let result = when(work, while: cancelPromise)
      if round.isMultiple(of: Self.calls / 20) { weakResults.record(WeakBox(result)) }
      resolver.fulfill(round)
    }
    #expect(cancelPromise.waitingCount == kept)
    #expect(weakResults.values.allSatisfy { $0.value == nil })
    #expect(request.token.signal.storage.registrationCount == 1)
  }

  @Test func cancelPromisesNobodyHoldsLeaveTheToken() {
    let request = CancellationRequest()
    let weakCancelPromises = Recorder<WeakBox<Promise<Void>>>()
    for round in 0..<Self.calls {
      let (work, resolver) = Promise<Int>.pending()
      let cancelPromise = request.token.asCancelPromise()
      if round.isMultiple(of: Self.calls / 20) { weakCancelPromises.record(WeakBox(cancelPromise)) }
      _ = when(work, while: cancelPromise)
      resolver.fulfill(round)
    }
    #expect(request.token.signal.storage.registrationCount == 0)
    #expect(weakCancelPromises.values.allSatisfy { $0.value == nil })
  }

  @Test func aHeldCancelPromiseStillRejectsWhenTheTokenIsCancelled() {
    let request = CancellationRequest()
    let cancelPromise = request.token.asCancelPromise()
    let (work, resolver) = Promise<Int>.pending()
    let result = when(work, while: cancelPromise)
    request.cancel()
    #expect(cancelPromise.isRejected)
    #expect(result.isRejected)
    #expect(request.token.signal.storage.registrationCount == 0)
    resolver.fulfill(0)
  }
}
