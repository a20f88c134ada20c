import CancelCore
import TestSupport
import Testing

@Suite("Core helpers for facades")
struct FacadeSupportTests {
  @Test func cancelWithDefaultReasonCancelsOnceWithTheSharedCancellationError() {
    let storage = CancelStorage()
    #expect(storage.cancelWithDefaultReason())
    #expect(!storage.cancelWithDefaultReason())
    #expect(storage.reason is CancellationError)
    let closed = CancelStorage()
    _ = closed.close()
    #expect(!closed.cancelWithDefaultReason())
    #expect(!closed.isCancelled)
  }

  /// An error with a payload, so that equal values are still distinct error objects.
  struct Reason: Error, Equatable { let name: String }

  @Test func theIdentityOfAnErrorIsItsObjectNotItsValue() {
    let error: any Error = Reason(name: "a")
    let copy = error
    let equal: any Error = Reason(name: "a")
    #expect(ErrorIdentity(error) == ErrorIdentity(copy), "a copy is the same error object")
    #expect(ErrorIdentity(error) != ErrorIdentity(equal), "an equal error is another object")
    let storage = CancelStorage()
    #expect(!storage.isCancelled(by: ErrorIdentity(error)), "not cancelled yet")
    _ = storage.cancel(reason: error)
    #expect(storage.isCancelled(by: ErrorIdentity(copy)), "cancelled with that very error")
    #expect(!storage.isCancelled(by: ErrorIdentity(equal)), "not with an equal one")
    let closed = CancelStorage()
    _ = closed.close()
    #expect(!closed.isCancelled(by: ErrorIdentity(error)), "a closed source was cancelled by nothing")
  }
}

@Suite("SettleDelivery.deliver")
struct IdleDrainDeliveryTests {
  final class Host: DeferredDelivery, Sendable {
    let name: String
    let log: Recorder<String>
    let nested: [Host]
    init(_ name: String, log: Recorder<String>, nested: [Host] = []) {
      self.name = name
      self.log = log
      self.nested = nested
    }
    func deliverCallbacks() {
      log.record("\(name) begins")
      for host in nested { SettleDelivery.deliver(host) }
      log.record("\(name) ends")
    }
  }

  @Test func anIdleDeliveryRunsAtOnceAndNestedOnesRunInOrderBeforeItReturns() {
    let log = Recorder<String>()
    let inner = Host("inner", log: log)
    let outer = Host("outer", log: log, nested: [Host("a", log: log, nested: [inner]), Host("b", log: log)])
    SettleDelivery.deliver(outer)
    #expect(
      log.values == [
        "outer begins", "outer ends", "a begins", "a ends", "b begins", "b ends", "inner begins", "inner ends",
      ])
    // The thread's queue is idle again: the next delivery runs at once.
    SettleDelivery.deliver(Host("again", log: log))
    #expect(log.values.suffix(2) == ["again begins", "again ends"])
  }
}
