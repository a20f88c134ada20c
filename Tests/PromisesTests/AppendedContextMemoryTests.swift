import TestSupport
import Testing

@testable import Promises

/// `appendCancelContext(from:)` between a long-lived chain and many short-lived ones leaves
/// nothing behind in the long-lived one once each short-lived chain went away or ended (issue 26,
/// item 9: it kept about 240 bytes per short-lived chain until the long-lived one ended), and
/// still keeps an appended chain that nobody else holds cancellable.
@Suite("Cancellable chains: appended contexts leave no trace")
struct AppendedContextMemoryTests {
  @Test func shortLivedChainsThatAppendALongLivedOneLeaveNothingInIt() {
    let (longLived, _) = CancellablePromise<Int>.pending()
    let source = longLived.cancelContext.source
    let registrations = source.registrationCount
    for _ in 0..<1_000 {
      let (wrapper, _) = CancellablePromise<Int>.pending()  // goes away at the end of the round
      wrapper.appendCancelContext(from: longLived)
    }
    #expect(source.registrationCount == registrations)
    #expect(source.parentLinkCount < 8, "the links of parents that went away are dropped as links are added")
    // A wrapper that lives still cancels it.
    let (wrapper, _) = CancellablePromise<Int>.pending()
    wrapper.appendCancelContext(from: longLived)
    wrapper.cancel()
    #expect(longLived.isCancelled)
  }

  /// The other way round, the long-lived chain keeps each chain it appended (one registration)
  /// while it can still be cancelled, ended or not: its cancel still reaches them, and their
  /// `cancelAttempted` says so.
  @Test func chainsALongLivedOneAppendsAreKeptForItsCancel() {
    let (longLived, _) = CancellablePromise<Int>.pending()
    let source = longLived.cancelContext.source
    let registrations = source.registrationCount
    var ended: [CancellablePromise<Int>] = []
    for round in 0..<100 {
      let (short, resolver) = CancellablePromise<Int>.pending()
      longLived.appendCancelContext(from: short)
      resolver.fulfill(round)
      if round.isMultiple(of: 10) { ended.append(short) }
    }
    #expect(source.registrationCount == registrations + 100, "one registration per appended chain")
    // One that is still pending and held only through the link is cancelled with it.
    let task = CountingTask()
    do {
      let short = CancellablePromise<Int>(task: task) { _ in }
      longLived.appendCancelContext(from: short)
    }
    longLived.cancel()
    #expect(task.cancels.value == 1, "the appended chain was kept, and the cancel reached its task")
    #expect(ended.allSatisfy { $0.cancelAttempted && !$0.isCancelled })
    #expect(source.registrationCount == 0, "and the cancel let go of every link")
  }

  /// The link keeps an appended chain's context until the cancel went all the way through it:
  /// here the context of the stages after a finished clean-up, whose chain before it is gone,
  /// held by nothing but the link, with a pending stage whose task the cancel must reach.
  @Test func aCancelReachesTheTaskOfAnAppendedChainAfterAFinishedCleanUpThatOnlyTheLinkHolds() {
    let (parent, _) = CancellablePromise<Int>.pending()
    let task = CountingTask()
    let cleanedUp = Counter()
    do {
      let (head, resolver) = CancellablePromise<Int>.pending()
      let after = head.ensure(on: nil) { cleanedUp.increment() }.then(on: nil) { _ in
        CancellablePromise<Int>(task: task) { _ in }
      }
      parent.appendCancelContext(from: after)
      resolver.fulfill(1)
    }
    #expect(cleanedUp.value == 1)
    parent.cancel()
    #expect(task.cancels.value == 1)
  }
}
