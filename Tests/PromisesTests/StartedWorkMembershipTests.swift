import Dispatch
import Promises
import TestSupport
import Testing

/// `CancellablePromise(task:resolver:)` and `CancellablePromise(resolver:)` (the form whose body
/// returns a cancel handler) run the body before the promise joins its chain: work that settled
/// inside the body is never cancelled, and work still running is, whatever thread settles it.
@Suite("Cancellable promises: work started by an initializer")
struct StartedWorkMembershipTests {
  @Test func workSettledInsideTheBodyIsNeverCancelled() {
    let task = CountingTask()
    let fulfilled = CancellablePromise<Int>(task: task) { $0.fulfill(1) }
    let thrown = CancellablePromise<Int>(task: task) { _ in throw TestError(id: 1) }
    let handlerRan = Counter()
    let withHandler = CancellablePromise<Int> { resolver -> @Sendable () -> Void in
      resolver.fulfill(2)
      return { handlerRan.increment() }
    }
    fulfilled.cancel()
    thrown.cancel()
    withHandler.cancel()
    #expect(task.cancels.value == 0 && handlerRan.value == 0)
    #expect(fulfilled.value == 1 && withHandler.value == 2)
    #expect(thrown.error as? TestError == TestError(id: 1))
    #expect(!fulfilled.isCancelled && fulfilled.cancelAttempted && !withHandler.isCancelled)
  }

  @Test func workStillRunningIsCancelledAndItsResultIgnored() {
    let task = CountingTask()
    let box = ResolverBox<Int>()
    let promise = CancellablePromise<Int>(task: task) { box.resolver = $0 }
    let handlerRan = Counter()
    let handlerBox = ResolverBox<Int>()
    let withHandler = CancellablePromise<Int> { resolver -> @Sendable () -> Void in
      handlerBox.resolver = resolver
      return { handlerRan.increment() }
    }
    promise.cancel()
    withHandler.cancel()
    #expect(task.cancels.value == 1 && handlerRan.value == 1)
    #expect(isPMKCancelled(promise.error) && isPMKCancelled(withHandler.error))
    #expect(promise.isCancelled && withHandler.isCancelled)
    box.resolver?.fulfill(3)
    handlerBox.resolver?.fulfill(4)
    #expect(isPMKCancelled(promise.error) && isPMKCancelled(withHandler.error), "the first resolution wins")
  }

  /// The resolver escapes to another thread, which fulfils while the initializer makes the promise
  /// a member and the chain is cancelled: the promise is fulfilled and its task untouched, or it is
  /// rejected by the cancel and its task cancelled once.
  @Test func aResolverOnAnotherThreadRacesTheJoinAndTheCancel() {
    final class Round: Sendable {
      let task = CountingTask()
      let resolver = Locked<Resolver<Int>?>(nil)
      let promise = Locked<CancellablePromise<Int>?>(nil)
    }
    race(iterations: Stress.iterations(20_000)) {
      Round()
    } _: { round in
      let promise = CancellablePromise<Int>(task: round.task) { resolver in
        round.resolver.withLock { $0 = resolver }
      }
      round.promise.withLock { $0 = promise }
      promise.cancel()
    } _: { round in
      // Before the body stored it, nothing is fulfilled: the cancel then rejects the promise.
      round.resolver.withLock { $0 }?.fulfill(5)
    } check: { round in
      guard let promise = round.promise.withLock({ $0 }) else {
        Issue.record("no promise")
        return
      }
      if let value = promise.value {
        #expect(value == 5)
        #expect(round.task.cancels.value == 0 && !promise.isCancelled)
      } else {
        #expect(isPMKCancelled(promise.error))
        #expect(round.task.cancels.value == 1 && promise.isCancelled)
      }
    }
  }
}
