import CancelCore
import Dispatch
import Promises
import TestSupport
import Testing

/// Once a member settled, cancelling its chain runs none of its tasks or cancel handlers; a task
/// that settles its work while being cancelled cannot replace the cancel error.
@Suite("Cancellable promises: nothing of settled work is cancelled")
struct CancelAfterSettleTests {
  /// A task whose cancel settles its work through `settle`, as a download that reports its own
  /// cancellation synchronously does.
  final class SettlingTask: CancellableTask {
    let settle: @Sendable () -> Void
    let cancels = Counter()
    init(_ settle: @escaping @Sendable () -> Void) { self.settle = settle }
    func cancel() {
      cancels.increment()
      settle()
    }
    var isCancelled: Bool { cancels.value > 0 }
  }

  @Test func aCancelHandlerDoesNotRunAfterThePromiseFulfilled() {
    let ran = Counter()
    let promise = CancellablePromise<Int> { resolver in
      resolver.fulfill(1)
      return { ran.increment() }
    }
    promise.cancel()
    #expect(ran.value == 0, "the work had finished: nothing to stop")
    #expect(promise.value == 1)
    #expect(!promise.isCancelled && promise.cancelAttempted)
  }

  @Test func aCancelHandlerDoesNotRunAfterThePromiseSettledLater() {
    let ran = Counter()
    let box = ResolverBox<Int>()
    let promise = CancellablePromise<Int> { resolver in
      box.resolver = resolver
      return { ran.increment() }
    }
    let next = promise.map(on: nil) { $0 + 1 }
    box.resolver?.reject(TestError(id: 3))
    next.cancel()
    #expect(ran.value == 0, "the work had ended: its handler left the chain")
    #expect(promise.error as? TestError == TestError(id: 3))
  }

  @Test func aSettledPromiseMadeCancellableStaysSettledWhenItsChainIsCancelled() {
    let fulfilled = Promise.value(1).cancellize()
    let rejected = Promise<Int>(error: TestError(id: 4)).cancellize()
    fulfilled.cancel()
    rejected.cancel()
    #expect(fulfilled.value == 1)
    #expect(rejected.error as? TestError == TestError(id: 4))
    #expect(!fulfilled.isCancelled && fulfilled.cancelAttempted, "nothing was pending to reject")
    #expect(!rejected.isCancelled && rejected.cancelAttempted)
    // The chain after it still waits in the context, so the cancel reaches it.
    let (work, workResolver) = Promise<Int>.pending()
    let chain = Promise.value(1).cancellize().then(on: nil) { _ in work.cancellize() }
    chain.cancel()
    #expect(chain.isRejected && chain.isCancelled)
    workResolver.fulfill(2)
  }

  @Test func aSettledPromiseJoiningACancelledContextIsRejectedWithTheCancelError() {
    let context = CancelContext()
    context.cancel()
    let joined = CancellablePromise(Promise.value(1), cancelContext: context)
    #expect(joined.error?.isCancelled == true)
    #expect(context.isCancelled)
  }

  @Test func aTaskIsNotCancelledAfterItsPromiseSettled() {
    let task = CountingTask()
    let promise = CancellablePromise<Int>(task: task) { resolver in resolver.fulfill(1) }
    let chain = promise.map(on: nil) { $0 + 1 }
    chain.cancel()
    #expect(task.cancels.value == 0)
    let settled = CancellablePromise<Void>(task: task)
    settled.cancel()
    let rejected = CancellablePromise<Int>(task: task, error: TestError())
    rejected.cancel()
    let (plain, plainResolver) = Promise<Int>.pending()
    let wrapped = CancellablePromise(task: task, promise: plain, resolver: plainResolver)
    plainResolver.fulfill(2)
    wrapped.cancel()
    #expect(task.cancels.value == 0, "every one of these had settled before the cancel")
  }

  @Test func aSettledMembersTaskAndHandlerAreReleasedWhileTheChainLives() {
    let box = ResolverBox<Int>()
    let handlerBox = ResolverBox<Int>()
    let (withTask, withHandler, task, handler) = {
      () -> (CancellablePromise<Int>, CancellablePromise<Int>, WeakBox<CountingTask>, WeakBox<Tracked>) in
      let counting = CountingTask()
      let tracked = Tracked()
      let withTask = CancellablePromise<Int>(task: counting) { box.resolver = $0 }
      let withHandler = CancellablePromise<Int> { resolver in
        handlerBox.resolver = resolver
        return { withExtendedLifetime(tracked) {} }
      }
      return (withTask, withHandler, WeakBox(counting), WeakBox(tracked))
    }()
    #expect(task.value != nil && handler.value != nil, "held while the work is pending")
    box.resolver?.fulfill(1)
    handlerBox.resolver?.fulfill(1)
    #expect(task.value == nil, "the task left the chain with its work")
    #expect(handler.value == nil, "so did the cancel handler")
    withExtendedLifetime((withTask, withHandler)) {}
  }

  @Test func aPendingMembersTaskIsStillCancelledOnce() {
    let task = CountingTask()
    let promise = CancellablePromise<Int>(task: task) { _ in }
    promise.cancel()
    promise.cancel()
    #expect(task.cancels.value == 1)
    #expect(isPMKCancelled(promise.error))
  }

  @Test func theTimerOfAnAfterThatFiredIsNotCancelled() {
    let time = ManualDeadlineScheduler()
    let wrapper = cancellable(after(.seconds(1), scheduler: time))
    time.advance(by: .seconds(1))
    wrapper.cancel()
    #expect(wrapper.value != nil, "the timer fired before the cancel")
    #expect(!wrapper.isCancelled)
  }

  @Test func aTaskThatFulfilsWhenCancelledCannotReplaceTheCancelError() {
    let box = ResolverBox<Int>()
    let task = SettlingTask { box.resolver?.fulfill(42) }
    let promise = CancellablePromise<Int>(task: task) { resolver in box.resolver = resolver }
    promise.cancel(error: TestError(id: 7))
    #expect(task.cancels.value == 1)
    #expect(promise.error as? TestError == TestError(id: 7), "the cancel error wins")
    #expect(promise.isCancelled)
  }

  @Test func aCancelHandlerThatRejectsCannotReplaceTheCancelError() {
    let promise = CancellablePromise<Int> { resolver in
      return { resolver.reject(TestError(id: 1)) }
    }
    promise.cancel(error: TestError(id: 2))
    #expect(promise.error as? TestError == TestError(id: 2), "the cancel error wins")
    #expect(promise.isCancelled)
  }

  @Test func aPendingResolverSettlingDuringTheCancelLosesToTheCancelError() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    root.appendCancellableTask(SettlingTask { resolver.fulfill(5) }, reject: nil)
    root.cancel()
    #expect(isPMKCancelled(root.error))
  }

  struct RaceState: Sendable {
    let promise: CancellablePromise<Int>
    let resolvers: ResolverBox<Int>
    let ran: Counter
  }

  @Test func aCancelRacingAFulfilRunsTheHandlerOnlyIfTheCancelWon() {
    race(iterations: Stress.iterations(4_000)) { () -> RaceState in
      let ran = Counter()
      let resolvers = ResolverBox<Int>()
      let promise = CancellablePromise<Int> { resolver in
        resolvers.resolver = resolver
        return { ran.increment() }
      }
      return RaceState(promise: promise, resolvers: resolvers, ran: ran)
    } _: { (state: RaceState) in
      state.promise.cancel()
    } _: { (state: RaceState) in
      state.resolvers.resolver?.fulfill(1)
    } check: { (state: RaceState) in
      if state.promise.value == 1 {
        #expect(state.ran.value == 0, "fulfilled first: the handler had left")
      } else {
        #expect(isPMKCancelled(state.promise.error))
        #expect(state.ran.value == 1)
      }
    }
  }
}

/// Holds a resolver handed out by an initializer's body.
final class ResolverBox<T: Sendable>: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: written once inside the initializer's body, before any
  // reader runs (the tests read it after the initializer returned, or after a race barrier).
  var resolver: Resolver<T>?
}
