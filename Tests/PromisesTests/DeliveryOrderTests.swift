import Promises
import TestSupport
import Testing

/// Promises settled inside one delivery are delivered in the order they became ready, whether a
/// stage's delivery is handed straight back to the loop (the tail call of a chain) or queued.
@Suite("Delivery order across promises settled in one delivery")
struct DeliveryOrderTests {
  /// `root` has two callbacks: a `map(on: nil)` stage (`stage`) and a plain one that fulfils
  /// `other`; each of `stage` and `other` records when its own callback runs.
  static func deliver(stageFirst: Bool) -> [String] {
    let order = Recorder<String>()
    let (root, rootResolver) = Promise<Int>.pending()
    let (other, otherResolver) = Promise<Int>.pending()
    var stage: Promise<Int>?
    if stageFirst { stage = root.map(on: nil) { $0 } }
    root.pipe { _ in otherResolver.fulfill(1) }
    if !stageFirst { stage = root.map(on: nil) { $0 } }
    stage?.pipe { _ in order.record("stage") }
    other.pipe { _ in order.record("other") }
    rootResolver.fulfill(0)
    return order.values
  }

  @Test func aStageReadyFirstIsDeliveredFirst() {
    #expect(Self.deliver(stageFirst: true) == ["stage", "other"])
  }

  @Test func aStageReadyAfterAQueuedPromiseWaitsBehindIt() {
    #expect(Self.deliver(stageFirst: false) == ["other", "stage"])
  }

  @Test func twoStagesOfOneParentAreDeliveredInRegistrationOrder() {
    let order = Recorder<String>()
    let (root, resolver) = Promise<Int>.pending()
    let first = root.map(on: nil) { $0 + 1 }
    let second = root.map(on: nil) { $0 + 2 }
    first.pipe { _ in order.record("first") }
    second.pipe { _ in order.record("second") }
    resolver.fulfill(0)
    #expect(order.values == ["first", "second"])
    #expect(first.value == 1 && second.value == 2)
  }
}
