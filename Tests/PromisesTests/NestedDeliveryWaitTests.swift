import Dispatch
import Foundation
import Promises
import TestSupport
import Testing

/// A settle or cancel made inside a handler changes the settled promise at once; what it starts
/// in other stages runs when the handler returns. A blocking wait inside a handler on such a stage
/// runs that delivery first instead of deadlocking.
@Suite("Promises: waiting inside a handler")
struct NestedDeliveryWaitTests {
  /// Runs `body` on a thread of its own and reports whether it returned within a bound that only a
  /// deadlock reaches, even on a busy machine (a deadlock never returns; the thread is then left
  /// blocked).
  func returns(_ body: @escaping @Sendable () -> Void) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
      body()
      finished.signal()
    }
    thread.start()
    return finished.wait(timeout: .now() + 300) == .success
  }

  @Test func waitInsideAnOnNilHandlerOnAStageSettledThereReturnsItsValue() {
    let seen = Recorder<Int>()
    let finished = returns {
      let (trigger, start) = Promise<Int>.pending()
      let (inner, innerResolver) = Promise<Int>.pending()
      let doubled = inner.map(on: nil) { $0 * 2 }
      trigger.done(on: nil) { _ in
        innerResolver.fulfill(21)
        #expect(inner.isFulfilled, "the settled promise itself changes at once")
        if let value = try? doubled.wait() { seen.record(value) }
      }.cauterize()
      start.fulfill(1)
    }
    #expect(finished, "wait() inside a handler must not deadlock")
    #expect(seen.values == [42])
  }

  @Test func waitInsideAHandlerOnALongChainSettledThereReturns() {
    let seen = Recorder<Int>()
    let finished = returns {
      let (trigger, start) = Promise<Int>.pending()
      let (inner, innerResolver) = Promise<Int>.pending()
      var tail = inner
      for _ in 0..<1_000 { tail = tail.map(on: nil) { $0 + 1 } }
      let end = tail
      trigger.done(on: nil) { _ in
        innerResolver.fulfill(0)
        seen.record((try? end.wait()) ?? -1)
        seen.record((try? hang(end)) ?? -1)
      }.cauterize()
      start.fulfill(1)
    }
    #expect(finished)
    #expect(seen.values == [1_000, 1_000])
  }

  @Test func guaranteeWaitInsideAHandlerReturns() {
    let seen = Recorder<Int>()
    let finished = returns {
      let (trigger, start) = Guarantee<Int>.pending()
      let (inner, resolve) = Guarantee<Int>.pending()
      let next = inner.map(on: nil) { $0 + 1 }
      trigger.done(on: nil) { _ in
        resolve(1)
        seen.record(next.wait())
      }
      start(0)
    }
    #expect(finished)
    #expect(seen.values == [2])
  }

  @Test func waitInsideACancellableHandlerOnAStageCancelledThereThrowsTheCancel() {
    let seen = Recorder<Bool>()
    let finished = returns {
      let (trigger, start) = Promise<Int>.pending()
      let (chain, _) = CancellablePromise<Int>.pending()
      let mapped = chain.map(on: nil) { $0 + 1 }
      let after = mapped.promise.recover(on: nil) { _ in Promise.value(-1) }
      trigger.done(on: nil) { _ in
        chain.cancel()
        seen.record(mapped.isRejected)
        seen.record(mapped.isCancelled)
        do {
          _ = try after.wait()
          seen.record(false)
        } catch {
          seen.record(isPMKCancelled(error))
        }
      }.cauterize()
      start.fulfill(1)
    }
    #expect(finished)
    #expect(seen.values == [true, true, true], "rejected at once, and the stage after it is reached by the wait")
  }

  @Test func waitInsideAHandlerRunByACancelOnAChainCancelledThereThrowsTheCancel() {
    let seen = Recorder<Bool>()
    let finished = returns {
      let (outer, _) = CancellablePromise<Int>.pending()
      let (chain, _) = CancellablePromise<Int>.pending()
      let mapped = chain.map(on: nil) { $0 + 1 }
      outer.catch(on: nil, policy: .allErrors) { _ in
        // Runs inside `outer`'s cancel: `chain`'s cancel is queued until this handler returns,
        // and the wait runs it first.
        chain.cancel()
        seen.record(chain.cancelAttempted)
        do {
          _ = try mapped.promise.wait()
          seen.record(false)
        } catch {
          seen.record(isPMKCancelled(error))
        }
      }
      outer.cancel()
    }
    #expect(finished, "wait() inside a handler of a cancel must not deadlock on a cancel made there")
    #expect(seen.values == [true, true])
  }

  @Test func aHandlerSeesStagesItSettledOnlyAfterItReturnsButBeforeTheOuterCallReturns() {
    let (trigger, start) = Promise<Int>.pending()
    let (inner, innerResolver) = Promise<Int>.pending()
    let mapped = inner.map(on: nil) { $0 + 1 }
    let seen = Recorder<Bool>()
    trigger.done(on: nil) { _ in
      innerResolver.fulfill(1)
      seen.record(mapped.isResolved)
    }.cauterize()
    start.fulfill(0)
    #expect(seen.values == [false], "the stage runs when the handler returns (constant stack)")
    #expect(mapped.value == 2, "and before the call that started the delivery returns")
  }
}
