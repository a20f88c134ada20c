import CancelCore
import Dispatch
import Foundation
import Promises
import TestSupport
import Testing

/// Bad input gets a documented meaning or an error, never a trap.
@Suite("Promises: bad input")
struct BadInputTests {
  @Test func afterAnInfiniteDelayNeverFiresAndCanBeCancelled() {
    let forever = after(seconds: .infinity)
    #expect(forever.value == nil)
    let huge = after(seconds: 1e300)
    #expect(huge.value == nil)
    let wrapper = cancellable(after(seconds: .infinity))
    wrapper.cancel()
    #expect(isPMKCancelled(wrapper.error))
  }

  @Test func afterANaNOrNegativeDelayFiresNow() async {
    for seconds in [TimeInterval.nan, -1, -TimeInterval.infinity] {
      let guarantee = after(seconds: seconds)
      await withCheckedContinuation { continuation in
        guarantee.done(on: nil) { continuation.resume() }
      }
      #expect(guarantee.value != nil, "\(seconds) counts as no delay")
    }
  }

  @Test func raceOverNoGuaranteesNeverResolves() {
    let raced: Guarantee<Int> = race()
    #expect(raced.value == nil)
  }

  @Test func racesOverNoPromisesRejectWithBadInput() {
    let none: [Promise<Int>] = []
    let noMembers: [CancellablePromise<Int>] = []
    let results: [Error?] = [
      race(none).error, race(fulfilled: none).error, race(noMembers).error,
      race(noMembers, autoCancel: true).error,
    ]
    for error in results {
      guard case PMKError.badInput? = error else {
        Issue.record("expected PMKError.badInput, got \(String(describing: error))")
        continue
      }
    }
  }

  @Test func whenConcurrentlyWithoutConcurrencyRejectsWithBadInput() {
    for limit in [0, -1] {
      let inputs = [CancellablePromise<Int>.pending().promise].makeIterator()
      let result = when(fulfilled: inputs, concurrently: limit)
      guard case PMKError.badInput? = result.error else {
        Issue.record("expected PMKError.badInput, got \(String(describing: result.result))")
        continue
      }
    }
  }
}
