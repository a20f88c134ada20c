import Futures
import TestSupport
import Testing

/// Futures completed inside one delivery deliver in the order they completed, whether a stage is
/// handed straight back to the delivery loop (the tail call of a chain) or queued.
@Suite("Futures: delivery order across futures completed in one delivery")
struct FutureDeliveryOrderTests {
  /// `root` has two handlers: a `map(.immediate)` stage and one that completes `other`; each of
  /// the stage and `other` records when its own handler runs.
  static func deliver(stageFirst: Bool) -> [String] {
    let order = Recorder<String>()
    let root = Futures.Promise<Int>()
    let other = Futures.Promise<Int>()
    var stage: Future<Int>?
    if stageFirst { stage = root.future.map(.immediate) { $0 } }
    root.future.onSuccess(.immediate) { _ in other.completeWithSuccess(1) }
    if !stageFirst { stage = root.future.map(.immediate) { $0 } }
    stage?.onSuccess(.immediate) { _ in order.record("stage") }
    other.future.onSuccess(.immediate) { _ in order.record("other") }
    root.completeWithSuccess(0)
    return order.values
  }

  @Test func aStageCompletedFirstIsDeliveredFirst() {
    #expect(Self.deliver(stageFirst: true) == ["stage", "other"])
  }

  @Test func aStageCompletedAfterAQueuedFutureWaitsBehindIt() {
    #expect(Self.deliver(stageFirst: false) == ["other", "stage"])
  }
}
