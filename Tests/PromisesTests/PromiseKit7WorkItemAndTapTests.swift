import CancelCore
import Dispatch
import Promises
import TestSupport
import Testing

/// PromiseKit 7 code that passes a `DispatchWorkItem` as the cancellable, sets a guarantee's work
/// later, binds the standard library's result from `tap`, or asks a cancellable chain for the first
/// element that matches.
@Suite("PromiseKit 7: work items, setCancellable, tap over Swift's result, firstValue(where:)")
struct PromiseKit7WorkItemAndTapTests {
  @Test func aDispatchWorkItemIsTheWorkACancelStops() {
    let item = DispatchWorkItem {}
    let promise = CancellablePromise<Int>(cancellable: item) { _ in }
    promise.cancel()
    #expect(item.isCancelled)
    #expect(isPMKCancelled(promise.error))

    let wrappedItem = DispatchWorkItem {}
    let (plain, resolver) = Promise<Int>.pending()
    CancellablePromise(cancellable: wrappedItem, promise: plain, resolver: resolver).cancel()
    #expect(wrappedItem.isCancelled)

    let settledItem = DispatchWorkItem {}
    CancellablePromise<Int>(cancellable: settledItem, error: TestError(id: 1)).cancel()
    CancellablePromise<Void>(cancellable: settledItem).cancel()
    #expect(!settledItem.isCancelled, "a member that had settled has no work left to stop")

    let timerItem = DispatchWorkItem {}
    let guarantee = Guarantee<Int>(cancellable: timerItem) { _ in }
    guarantee.cancellize().cancel()
    #expect(timerItem.isCancelled, "cancelling the cancellable wrapper stops the guarantee's work item")
  }

  @Test func setCancellableGivesAGuaranteeTheWorkItsWrappersStop() {
    let (guarantee, _) = Guarantee<Int>.pending()
    let earlierWrapper = guarantee.cancellize()
    let first = CancelSource()
    let second = CancelSource()
    guarantee.setCancellable(first)
    guarantee.setCancellable(second)
    earlierWrapper.cancel()
    #expect(!first.isCancelled && !second.isCancelled, "a wrapper made before keeps the work it took")
    guarantee.cancellize().cancel()
    #expect(second.isCancelled, "the work set last is stopped")
    #expect(!first.isCancelled, "the work it replaced is not")

    let item = DispatchWorkItem {}
    let (other, _) = Guarantee<Void>.pending()
    other.setCancellable(item)
    cancellable(other).cancel()
    #expect(item.isCancelled)
  }

  @Test func setCancellableOnASettledGuaranteeIsNeverCancelled() {
    let work = CancelSource()
    let guarantee = Guarantee.value(1)
    guarantee.setCancellable(work)
    let wrapper = guarantee.cancellize()
    wrapper.cancel()
    #expect(!work.isCancelled, "nothing is left to stop once the guarantee has its value")
    #expect(wrapper.value == 1)
  }

  @Test func tapHandsABodyThatBindsTheStandardLibrarysCasesSwiftsResult() {
    let seen = Recorder<Int>()
    let tapped = Promise.value(3).tap(on: nil) { result in
      if case let .success(value) = result { seen.record(value) }
    }
    #expect(tapped.value == 3)
    let failed = Promise<Int>(error: TestError(id: 2)).tap(on: nil) { result in
      if case let .failure(error) = result, let error = error as? TestError { seen.record(error.id) }
    }
    #expect(failed.error as? TestError == TestError(id: 2))
    let member = CancellablePromise(Promise.value(5)).tap(on: nil) { result in
      if case let .success(value) = result { seen.record(value) }
    }
    #expect(member.value == 5)
    #expect(seen.values == [3, 2, 5])
  }

  @Test func tapHandsABodyThatWorksWithEitherPromiseKitsResult() {
    let kinds = Recorder<String>()
    _ = Promise.value(1).tap(on: nil) { kinds.record("\(type(of: $0))") }
    _ = CancellablePromise(Promise.value(1)).tap(on: nil) { kinds.record("\(type(of: $0))") }
    #expect(kinds.values == ["Result<Int>", "Result<Int>"])
  }

  @Test func firstValueWhereOnACancellableChainFindsTheFirstMatch() {
    let root = CancellablePromise(Promise.value([1, 5, 7]))
    #expect(root.firstValue(on: nil, where: { $0 > 4 }).value == 5)
    let none = root.firstValue(on: nil, where: { $0 > 10 })
    var isEmptySequence = false
    if case .emptySequence? = none.error as? PMKError { isEmptySequence = true }
    #expect(isEmptySequence)
    #expect(none.cancelContext === root.cancelContext, "a member of the same chain")

    let (pending, resolver) = CancellablePromise<[Int]>.pending()
    let tested = Counter()
    let first = pending.firstValue(on: nil) { _ in
      tested.increment()
      return true
    }
    first.cancel()
    resolver.fulfill([1])
    #expect(tested.value == 0, "the test does not start after a cancel")
    #expect(isPMKCancelled(first.error))
  }
}
