import Promises
import TestSupport
import Testing

/// `race` and `when` without `autoCancel:` link the result to its inputs, one way: a cancel of the
/// result's chain reaches the inputs that are still pending, and an input whose chain was cancelled
/// reaches neither the result's chain nor the other inputs. PromiseKit 7 differs on both
/// (the differential tester's `scripts/peerdiff` groups them; "Semantics to know" in the
/// PromiseKit 7 migration guide lists them).
@Suite("Cancellable promises: race and when link the result to its inputs one way")
struct CombinatorLinkDirectionTests {
  @Test func anInputCancelledBeforeTheWhenLeavesTheOtherInputsAndTheResultsChainAlone() {
    let (cancelled, _) = CancellablePromise<Int>.pending()
    cancelled.cancel()
    let (other, resolver) = CancellablePromise<Int>.pending()
    let all = when(fulfilled: [cancelled, other])
    #expect(isPMKCancelled(all.error), "the result sees the cancelled input's rejection")
    #expect(!all.cancelAttempted, "the result's chain was not cancelled")
    #expect(other.isPending && !other.cancelAttempted, "the other input is not touched")
    resolver.fulfill(2)
    #expect(other.value == 2)
  }

  @Test func anInputCancelledBeforeTheRaceLeavesTheStagesAfterAFulfilledResultRunning() {
    let (cancelled, _) = CancellablePromise<Int>.pending()
    cancelled.cancel()
    let winner = race([Promise.value(50).cancellize(), cancelled])
    let next = winner.map(on: nil) { $0 + 1 }
    #expect(next.value == 51)
    #expect(!winner.cancelAttempted)
  }

  @Test func aRaceInputRejectedAtOnceCancelsTheOtherInputsButNotTheResultsChain() {
    let (other, _) = CancellablePromise<Int>.pending()
    let result = race([other, CancellablePromise<Int>(error: TestError())])
    #expect(result.error as? TestError == TestError())
    #expect(isPMKCancelled(other.error), "a rejecting input cancels the rest")
    #expect(!result.cancelAttempted)
    let recovered = result.recover(on: nil) { _ in Promise.value(7) }.then(on: nil) { Promise.value($0 + 1) }
    #expect(recovered.value == 8, "the stages after a recover of the result run")
  }

  @Test func aCancelOfTheResultReachesAPendingInputAfterTheResultSettledAndAStageAfterItRan() {
    let (pendingInput, _) = CancellablePromise<Int>.pending()
    let winner = race([Promise.value(1).cancellize(), pendingInput])
    let next = winner.map(on: nil) { $0 + 1 }
    #expect(next.value == 2)
    next.cancel()
    #expect(isPMKCancelled(pendingInput.error))

    let (stillPending, _) = CancellablePromise<Int>.pending()
    let all = when(fulfilled: [CancellablePromise<Int>(error: TestError()), stillPending])
    let handled = all.recover(on: nil) { _ in Promise.value([0]) }
    #expect(handled.value == [0])
    handled.cancel()
    #expect(isPMKCancelled(stillPending.error))
  }
}
