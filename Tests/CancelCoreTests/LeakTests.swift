import CancelCore
import TestSupport
import Testing

@Suite("Memory")
struct LeakTests {
  @Test(arguments: ["cancel", "close", "deallocate"])
  func childrenAndClosuresAreFreedWhenASourceEnds(ending: String) {
    var parent: CancelSource? = CancelSource()
    weak let weakParentStorage = parent!.signal.storage
    weak var weakCaptured: Tracked?
    weak var weakChildStorage: CancelStorage?
    var child: CancelSource? = CancelSource(linkedTo: parent!.signal)
    weakChildStorage = child!.signal.storage
    do {
      let captured = Tracked()
      weakCaptured = captured
      parent!.signal.onCancel { _ = captured }
      child!.signal.onComplete { _ in _ = captured }
    }
    switch ending {
    case "cancel": parent!.cancel()
    case "close":
      parent!.close()
      child!.close()
    default:
      parent = nil
      child = nil
    }
    #expect(weakCaptured == nil)
    parent = nil
    child = nil
    #expect(weakParentStorage == nil)
    #expect(weakChildStorage == nil)
  }

  @Test func aSourceWhoseOwnerIsGoneFreesItsHandlersEvenWhileSignalsLive() {
    var source: CancelSource? = CancelSource()
    let signal = source!.signal
    weak var weakCaptured: Tracked?
    do {
      let captured = Tracked()
      weakCaptured = captured
      signal.onCancel { _ = captured }
    }
    source = nil
    #expect(weakCaptured == nil)
    #expect(signal.storage.registrationCount == 0)
  }

  @Test func unregisteredHandlersAreFreedAtOnce() {
    let source = CancelSource()
    weak var weakCaptured: Tracked?
    let registration: CancelRegistration
    do {
      let captured = Tracked()
      weakCaptured = captured
      registration = source.signal.onComplete { _ in _ = captured }
    }
    registration.unregister()
    #expect(weakCaptured == nil)
  }
}
