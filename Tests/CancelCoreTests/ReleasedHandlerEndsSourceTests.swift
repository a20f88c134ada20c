import CancelCore
import TestSupport
import Testing

/// A handler's captures are released by the cancel loop that ran it. When that release ends
/// another source (an object whose `deinit` closes or cancels one, as a promise chain's context
/// does), that source's own handlers must run before the outermost `cancel` returns, not wait for
/// the next cancel on the thread.
@Suite("Cancel loop: a source ended by a handler's release")
struct ReleasedHandlerEndsSourceTests {
  /// Ends `source` when it goes away.
  final class EndsOnDeinit: Sendable {
    let source: CancelStorage
    let cancels: Bool
    init(_ source: CancelStorage, cancels: Bool) {
      self.source = source
      self.cancels = cancels
    }
    deinit {
      struct Reason: Error {}
      if cancels { _ = source.cancel(reason: Reason()) } else { _ = source.close() }
    }
  }

  @Test(arguments: [false, true])
  func itsHandlersRunBeforeTheCancelReturns(cancels: Bool) {
    struct Reason: Error {}
    let first = CancelStorage()
    let second = CancelStorage()
    let completions = Counter()
    _ = second.register(.onComplete { _ in completions.increment() })
    do {
      let owner = EndsOnDeinit(second, cancels: cancels)
      _ = first.register(.onCancel { withExtendedLifetime(owner) {} })
    }
    _ = first.cancel(reason: Reason())
    #expect(second.isCompleted)
    #expect(completions.value == 1, "the second source's handler ran before cancel returned")
  }
}
