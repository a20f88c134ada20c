import CancelCore
import Dispatch
import Foundation
import Promises
import TestSupport
import Testing

/// A task that counts its cancels.
final class CountingTask: CancellableTask {
  let cancels = Counter()
  func cancel() { cancels.increment() }
  var isCancelled: Bool { cancels.value > 0 }
}

func isPMKCancelled(_ error: Error?) -> Bool {
  if case PMKError.cancelled? = error { return true }
  return false
}

/// Expects `promise` to have ended in exactly one of fulfilled with `value` or rejected by a cancel
/// (what a settle racing a cancel may end in), and returns whether it was cancelled.
@discardableResult
func expectFulfilledOrCancelled(
  _ promise: Promise<Int>, value: Int = 1, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  let fulfilled = promise.value == value
  let cancelled = isPMKCancelled(promise.error)
  #expect(
    fulfilled != cancelled, "ends fulfilled or cancelled, not \(String(describing: promise.result))",
    sourceLocation: sourceLocation)
  return cancelled
}

@Suite("Cancellable promises: contexts and initializers")
struct CancellationTests {
  /// A task whose cancel ends its work with an error of its own, as a cancelled download does.
  final class FailingTask: CancellableTask {
    let fail: @Sendable () -> Void
    let cancels = Counter()
    init(_ fail: @escaping @Sendable () -> Void) { self.fail = fail }
    func cancel() {
      cancels.increment()
      fail()
    }
    var isCancelled: Bool { cancels.value > 0 }
  }

  struct WorkError: Error {}

  @Test func aStageHandedAnotherErrorDuringTheCancelIsRejectedWithTheCancelError() {
    let (root, resolver) = CancellablePromise<Int>.pending()
    // The task runs first in the cancel and rejects the root with the work's own error, so the
    // stage receives that error while the cancel is under way: the cancel error still wins there.
    root.appendCancellableTask(FailingTask { resolver.reject(WorkError()) }, reject: nil)
    let stage = root.map(on: nil) { $0 + 1 }
    let next = stage.map(on: nil) { $0 + 1 }
    root.cancel(error: TestError())
    #expect(root.error is TestError, "the work settled the root while being cancelled: the cancel error wins")
    #expect(stage.error is TestError, "the stage gets the cancel error, not the error it was handed")
    #expect(next.error is TestError, "and passes it on")
    #expect(stage.isCancelled)
  }

  @Test func cancellableWrapsPromiseAndGuaranteeWhileTheUnderlyingKeepsRunning() {
    let (promise, resolver) = Promise<Int>.pending()
    let wrappers = [cancellable(promise), promise.cancellize(), promise.asCancellable()]
    wrappers[0].cancel()
    #expect(isPMKCancelled(wrappers[0].error), "the wrapper is rejected at once")
    #expect(wrappers[0].isCancelled && wrappers[0].cancelAttempted)
    #expect(promise.isPending, "the underlying promise keeps running")
    resolver.fulfill(3)
    #expect(wrappers[1].value == 3 && wrappers[2].value == 3, "other wrappers are separate chains")
    #expect(wrappers[0].asPromise() === wrappers[0].promise)
    let (guarantee, resolve) = Guarantee<Int>.pending()
    let wrapped = guarantee.asCancellable()
    let other = cancellable(guarantee)
    wrapped.cancel()
    resolve(4)
    #expect(isPMKCancelled(wrapped.error))
    #expect(other.value == 4 && guarantee.value == 4)
    #expect(guarantee.asPromise().value == 4)
    #expect(promise.asPromise() === promise)
  }

  @Test func aWrapperMadeWithAContextJoinsThatChain() {
    let (root, _) = CancellablePromise<Int>.pending()
    let (other, _) = Promise<Int>.pending()
    let joined = CancellablePromise(other, cancelContext: root.cancelContext)
    #expect(joined.cancelContext === root.cancelContext)
    root.cancel()
    #expect(isPMKCancelled(joined.error), "cancelling the chain rejected the member that joined it")
    #expect(other.isPending)
    let qualified: Promises.Promise<Int> = Promises.Promise.value(1)
    #expect(qualified.value == 1, "module qualification works")
  }

  @Test func initWithTaskAndResolverCancelsTheTaskOnceAndRejects() {
    let task = CountingTask()
    let captured = Recorder<Resolver<Int>>()
    let promise = CancellablePromise<Int>(task: task) { captured.record($0) }
    promise.cancel()
    promise.cancel(error: TestError())
    #expect(task.cancels.value == 1)
    #expect(isPMKCancelled(promise.error), "the first error stays")
    #expect(isPMKCancelled(promise.cancelledError))
    captured.values[0].fulfill(1)
    #expect(promise.isRejected, "a late fulfil is ignored")
    let thrown = CancellablePromise<Int>(task: nil) { _ in throw TestError(id: 3) }
    #expect(thrown.error as? TestError == TestError(id: 3))
  }

  @Test func initWithPromiseResolverErrorAndVoid() {
    let (promise, resolver) = Promise<Int>.pending()
    let task = CountingTask()
    let member = CancellablePromise(task: task, promise: promise, resolver: resolver)
    member.cancel(error: TestError(id: 5))
    #expect(promise.error as? TestError == TestError(id: 5), "the given promise is the member")
    #expect(task.cancels.value == 1)
    let failed = CancellablePromise<Int>(error: TestError(id: 1))
    #expect(failed.error as? TestError == TestError(id: 1))
    failed.cancel()
    #expect(!failed.isCancelled && failed.cancelAttempted, "nothing pending was rejected")
    let void = CancellablePromise<Void>()
    #expect(void.isFulfilled)
  }

  @Test func initWhoseBodyReturnsTheCancelHandler() {
    let handlerRuns = Counter()
    // A body of more than one statement, as CancellablePromiseKit code writes it: a single
    // expression `{ _ in { … } }` would be PromiseKit 7's form, which returns nothing.
    let promise = CancellablePromise<Int> { _ in
      let handler: @Sendable () -> Void = { handlerRuns.increment() }
      return handler
    }
    promise.cancel()
    promise.cancel()
    #expect(handlerRuns.value == 1)
    #expect(isPMKCancelled(promise.error))
  }

  @Test func initUsingPromiseAndCancel() {
    let (underlying, resolver) = Promise<Int>.pending()
    let handlerRuns = Counter()
    let promise = CancellablePromise(using: underlying) {
      handlerRuns.increment()
      resolver.reject(TestError(id: 2))
    }
    promise.cancel()
    #expect(handlerRuns.value == 1)
    #expect(isPMKCancelled(promise.error))
    #expect(underlying.error as? TestError == TestError(id: 2), "the cancel handler stopped the work")
  }

  @Test func initWrapperCancelPromiseRejectsOnCancelAndFulfilsOtherwise() {
    let cancelPromises = Recorder<Promise<Void>>()
    let (work, finish) = Promise<Int>.pending()
    let cancelled = CancellablePromise<Int>(wrapper: { cancelPromise in
      cancelPromises.record(cancelPromise)
      return when(work, while: cancelPromise)
    })
    cancelled.cancel()
    #expect(isPMKCancelled(cancelled.error))
    #expect(isPMKCancelled(cancelPromises.values[0].error), "cancelPromise rejects on cancel")
    let finished = CancellablePromise<Int>(wrapper: { cancelPromise in
      cancelPromises.record(cancelPromise)
      return work
    })
    finish.fulfill(8)
    #expect(finished.value == 8)
    #expect(cancelPromises.values[1].isFulfilled, "cancelPromise fulfils when the wrapper ends otherwise")
  }

  @Test func pendingRejectsOnCancel() {
    let (promise, resolver) = CancellablePromise<Int>.pending()
    promise.cancel()
    resolver.fulfill(1)
    #expect(isPMKCancelled(promise.error))
    #expect(promise.isCancelled)
  }

  @Test func cancelOnAnyMemberOrContextOrFinalizerRejectsEveryPendingMemberSynchronously() {
    for way in 0..<4 {
      let task = CountingTask()
      let (root, _) = CancellablePromise<Int>.pending()
      root.appendCancellableTask(task, reject: nil)
      let middle = root.map(on: nil) { $0 + 1 }
      let tail = middle.then(on: nil) { Promise.value($0) }
      let finalizer = tail.done(on: nil) { _ in }.catch(on: nil, policy: .allErrors) { _ in }
      switch way {
      case 0: root.cancel()
      case 1: tail.cancel()
      case 2: tail.cancelContext.cancel()
      default: finalizer.cancel()
      }
      #expect([root.error, middle.error, tail.error].allSatisfy(isPMKCancelled), "way \(way)")
      #expect(task.cancels.value == 1)
      #expect(finalizer.isCancelled && finalizer.cancelAttempted)
      #expect(root.cancelContext === tail.cancelContext, "one context per chain")
    }
  }

  @Test func cancelWithAnErrorRejectsWithItAndTheFirstErrorStays() {
    let (root, _) = CancellablePromise<Int>.pending()
    let tail = root.map(on: nil) { $0 }
    tail.cancel(with: TestError(id: 4))
    tail.cancel(error: TestError(id: 5))
    #expect(root.error as? TestError == TestError(id: 4))
    #expect(tail.cancelledError as? TestError == TestError(id: 4))
  }

  @Test func isCancelledOnlyIfTheCancelRejectedSomething() {
    let chain = CancellablePromise<Int>(Promise.value(1)).map(on: nil) { $0 + 1 }
    #expect(chain.value == 2)
    #expect(!chain.cancelAttempted && !chain.isCancelled && chain.cancelledError == nil)
    chain.cancel()
    #expect(chain.cancelAttempted)
    #expect(!chain.isCancelled, "a chain that completed without cancel is not cancelled")
    #expect(chain.value == 2)
  }

  @Test func aBodyNeverStartsAfterCancelAndARunningBodysResultIsIgnored() async {
    let started = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    let laterBodies = Counter()
    let (root, resolver) = CancellablePromise<Int>.pending()
    let running = root.map(on: .global()) { value -> Int in
      started.signal()
      proceed.wait()
      return value + 1
    }
    let after = running.map(on: nil) { value -> Int in
      laterBodies.increment()
      return value
    }
    resolver.fulfill(1)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        started.wait()
        continuation.resume()
      }
    }
    running.cancel()
    #expect(isPMKCancelled(running.error), "the running stage is rejected at once")
    #expect(isPMKCancelled(after.error))
    proceed.signal()
    let final = await outcome(of: after.promise.ensure(on: .global()) {})
    #expect(isPMKCancelled(failure(final)))
    #expect(running.value == nil, "the running body's value was ignored")
    #expect(laterBodies.value == 0, "no body started after cancel")
    #expect(root.value == 1)
  }

  @Test func subChainsReturnedFromThenBodiesAreLinked() {
    let (inner, _) = CancellablePromise<Int>.pending()
    let innerTail = inner.map(on: nil) { $0 }
    let (plain, _) = Promise<Int>.pending()
    let outer = CancellablePromise<Int>(Promise.value(1))
    let viaThen = outer.then(on: nil) { _ in innerTail }
    let viaCancellableThen = outer.cancellableThen(on: nil) { _ in innerTail }
    let viaPlain = outer.then(on: nil) { _ in plain }
    viaThen.cancel()
    #expect(isPMKCancelled(inner.error), "cancelling the outer chain reached the sub-chain")
    #expect(isPMKCancelled(viaCancellableThen.error) && isPMKCancelled(viaPlain.error))
    #expect(plain.isPending, "a plain promise returned by a body keeps running")
  }

  @Test func appendCancellableTaskAndAppendCancelContext() {
    let (root, _) = CancellablePromise<Int>.pending()
    let (other, _) = CancellablePromise<Int>.pending()
    let task = CountingTask()
    let rejected = Recorder<Bool>()
    root.appendCancellableTask(task, reject: { rejected.record(isPMKCancelled($0)) })
    root.appendCancelContext(from: other)
    root.cancel()
    #expect(task.cancels.value == 1)
    #expect(rejected.values == [true])
    #expect(isPMKCancelled(other.error))
    let late = CountingTask()
    root.appendCancellableTask(late, reject: nil)
    #expect(late.cancels.value == 1, "a task appended after cancel is cancelled at once")
  }
}
