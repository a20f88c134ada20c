import Futures
import Promises
import TestSupport
import Testing

/// Promises and futures share the core's per-thread delivery loop: settled inside one delivery,
/// they are delivered in the order they settled, whichever facade hands its next stage back.
@Suite("Promises and futures settled in one delivery keep their order")
struct MixedDeliveryOrderTests {
  @Test func promisesAndFuturesSettledInOneDeliveryKeepTheirOrder() {
    let order = Recorder<String>()
    let root = Futures.Promise<Int>()
    let (plain, resolver) = Promises.Promise<Int>.pending()
    root.future.onSuccess(.immediate) { _ in resolver.fulfill(1) }
    let stage = root.future.map(.immediate) { $0 + 1 }
    plain.done(on: nil) { _ in order.record("promise") }.cauterize()
    stage.onSuccess(.immediate) { _ in order.record("stage") }
    root.completeWithSuccess(0)
    #expect(order.values == ["promise", "stage"], "the promise settled first, so it is delivered first")
  }
}
