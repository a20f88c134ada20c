import CancelCore
import Dispatch
import TestSupport
import Testing

@Suite("Registration handles")
struct RegistrationTests {
  @Test func unregisterBeforeCancelRemovesAndReleasesTheHandler() {
    let source = CancelSource()
    let ran = Counter()
    weak var weakTracked: Tracked?
    let registration: CancelRegistration
    do {
      let tracked = Tracked()
      weakTracked = tracked
      registration = source.signal.onCancel {
        _ = tracked; ran.increment()
      }
    }
    #expect(source.signal.storage.registrationCount == 1)
    #expect(registration.unregister())
    #expect(weakTracked == nil)
    #expect(!registration.unregister())
    source.cancel()
    #expect(ran.value == 0)
    #expect(source.signal.storage.registrationCount == 0)
  }

  @Test func unregisterAfterTheHandlerRanReturnsFalse() {
    let source = CancelSource()
    let registration = source.signal.onCancel {}
    source.cancel()
    #expect(!registration.unregister())
  }

  @Test func unregisterAfterCloseReturnsFalse() {
    let source = CancelSource()
    let registration = source.signal.onComplete { _ in }
    source.close()
    #expect(!registration.unregister())
  }

  @Test func inertHandleUnregistersNothing() {
    #expect(!CancelRegistration.inert.unregister())
  }

  @Test func staleHandleDoesNotRemoveTheHandlerThatReusedItsSlot() {
    let source = CancelSource()
    let ran = Recorder<String>()
    let keep = source.signal.onCancel { ran.record("keep") }
    let old = source.signal.onCancel { ran.record("old") }
    _ = source.signal.onCancel { ran.record("filler") }
    #expect(old.unregister())  // frees a middle slot
    _ = source.signal.onCancel { ran.record("new") }  // reuses that slot
    #expect(!old.unregister())
    source.cancel()
    #expect(ran.values == ["new", "filler", "keep"])
    _ = keep
  }

  @Test func orderStaysNewestFirstAfterManySlotReuses() {
    let source = CancelSource()
    let ran = Recorder<Int>()
    var registrations: [CancelRegistration] = []
    for index in 0..<50 { registrations.append(source.signal.onCancel { ran.record(index) }) }
    for index in stride(from: 1, to: 50, by: 2) { #expect(registrations[index].unregister()) }
    for index in 50..<60 { _ = source.signal.onCancel { ran.record(index) } }
    source.cancel()
    let expected = Array(50..<60).reversed() + stride(from: 48, through: 0, by: -2)
    #expect(ran.values == Array(expected))
  }

  @Test func removingTheOldestHandlerKeepsNewestFirstOrderForTheRest() {
    let source = CancelSource()
    let ran = Recorder<String>()
    let oldest = source.signal.onCancel { ran.record("A") }
    source.signal.onCancel { ran.record("B") }
    source.signal.onCancel { ran.record("C") }
    #expect(oldest.unregister())
    source.signal.onCancel { ran.record("D") }
    source.cancel()
    #expect(ran.values == ["D", "C", "B"])
  }

  @Test func unregisterNeverWaitsForARunningHandler() async {
    let source = CancelSource()
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let registration = source.signal.onCancel {
      entered.signal()
      release.wait()
    }
    let finished = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      source.cancel()
      finished.signal()
    }
    entered.wait()
    // The handler is blocked inside the cancelling thread; this must answer at once.
    #expect(!registration.unregister())
    release.signal()
    finished.wait()
  }

  @Test func emptiedTableGivesBackItsMemory() {
    let source = CancelSource()
    var registrations: [CancelRegistration] = []
    for _ in 0..<10_000 { registrations.append(source.signal.onCancel {}) }
    #expect(source.signal.storage.registrationCount == 10_000)
    for registration in registrations.shuffled() { #expect(registration.unregister()) }
    #expect(source.signal.storage.registrationCount == 0)
    // And it still works afterwards.
    let ran = Counter()
    source.signal.onCancel { ran.increment() }
    source.cancel()
    #expect(ran.value == 1)
  }
}
