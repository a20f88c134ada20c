import CancelCore
import TestSupport
import Testing

@Suite("Links to parents")
struct LinkTests {
  @Test func cancellingAParentCancelsTheChildWithTheSameReason() {
    struct Reason: Error {}
    let parent = CancelSource()
    let child = CancelSource(linkedTo: parent.signal)
    parent.cancel(reason: Reason())
    #expect(child.isCancelled)
    #expect(child.signal.reason is Reason)
  }

  @Test func anyParentCancelsTheChildAndTheOtherLinkIsRemoved() {
    let first = CancelSource()
    let second = CancelSource()
    let child = CancelSource(linkedTo: first.signal, second.signal)
    #expect(first.signal.storage.registrationCount == 1)
    #expect(second.signal.storage.registrationCount == 1)
    second.cancel()
    #expect(child.isCancelled)
    #expect(first.signal.storage.registrationCount == 0)
    #expect(!first.isCancelled)
  }

  @Test func cancellingTheChildLeavesTheParentAlone() {
    let parent = CancelSource()
    let child = CancelSource(linkedTo: parent.signal)
    child.cancel()
    #expect(!parent.isCancelled)
    #expect(parent.signal.storage.registrationCount == 0)
  }

  @Test(arguments: ["cancel", "close", "deallocate"])
  func theLinkIsRemovedWhenTheChildEnds(ending: String) {
    let parent = CancelSource()
    var child: CancelSource? = CancelSource(linkedTo: parent.signal)
    weak let weakChildStorage = child!.signal.storage
    #expect(parent.signal.storage.registrationCount == 1)
    switch ending {
    case "cancel": child!.cancel()
    case "close": child!.close()
    default: child = nil
    }
    #expect(parent.signal.storage.registrationCount == 0)
    child = nil
    #expect(weakChildStorage == nil)
  }

  @Test func linkingToACancelledParentCancelsAtOnce() {
    struct Reason: Error {}
    let parent = CancelSource()
    parent.cancel(reason: Reason())
    let child = CancelSource()
    #expect(!child.link(to: parent.signal))
    #expect(child.isCancelled)
    #expect(child.signal.reason is Reason)
  }

  @Test func linkingToAClosedParentDoesNothing() {
    let parent = CancelSource()
    parent.close()
    let child = CancelSource()
    #expect(!child.link(to: parent.signal))
    #expect(!child.isCompleted)
  }

  @Test func linkingAnEndedChildOrToItselfKeepsNoLink() {
    let parent = CancelSource()
    let child = CancelSource()
    #expect(!child.link(to: child.signal))
    child.close()
    #expect(!child.link(to: parent.signal))
    #expect(parent.signal.storage.registrationCount == 0)
  }

  @Test func aClosedParentLeavesItsChildrenActive() {
    let parent = CancelSource()
    let child = CancelSource(linkedTo: parent.signal)
    parent.close()
    #expect(!child.isCompleted)
    child.cancel()
    #expect(child.isCancelled)
    #expect(!parent.isCancelled)
  }

  @Test func cyclesTerminate() {
    let a = CancelSource()
    let b = CancelSource(linkedTo: a.signal)
    #expect(a.link(to: b.signal))
    b.cancel()
    #expect(a.isCancelled)
  }

  @Test func childHandlersRunBeforeTheParentsOlderHandlers() {
    let parent = CancelSource()
    let order = Recorder<String>()
    parent.signal.onCancel { order.record("parent-old") }
    let child = CancelSource(linkedTo: parent.signal)
    child.signal.onCancel { order.record("child") }
    parent.signal.onCancel { order.record("parent-new") }
    parent.cancel()
    #expect(order.values == ["parent-new", "child", "parent-old"])
  }

  @Test func aMillionDeepChainCancelsWithoutGrowingTheStack() {
    let depth = 1_000_000
    var chain: [CancelSource] = [CancelSource()]
    chain.reserveCapacity(depth)
    for _ in 1..<depth { chain.append(CancelSource(linkedTo: chain[chain.count - 1].signal)) }
    let leafRan = Counter()
    chain[depth - 1].signal.onCancel { leafRan.increment() }
    chain[0].cancel()
    #expect(chain[depth - 1].isCancelled)
    #expect(chain[depth / 2].isCancelled)
    #expect(leafRan.value == 1)
    #expect(chain[0].signal.storage.registrationCount == 0)
  }

  @Test func aMillionDeepChainDeallocatesUncancelled() {
    var chain: [CancelSource] = [CancelSource()]
    for _ in 1..<1_000_000 { chain.append(CancelSource(linkedTo: chain[chain.count - 1].signal)) }
    let root = chain[0].signal
    chain.removeAll()
    #expect(root.isCompleted)
    #expect(!root.isCancelled)
  }

  @Test func aLongLivedParentWithAMillionShortLivedChildrenStaysFlat() {
    let parent = CancelSource()
    let iterations = Stress.iterations(1_000_000, minimum: 50_000)
    var maximum = 0
    for index in 0..<iterations {
      let child = CancelSource(linkedTo: parent.signal)
      if index % 3 == 0 { child.cancel() } else if index % 3 == 1 { child.close() }
      if index % 1000 == 0 { maximum = max(maximum, parent.signal.storage.registrationCount) }
    }
    #expect(maximum <= 1)
    #expect(parent.signal.storage.registrationCount == 0)
  }
}
