import CancelCore
import Dispatch
import Foundation
import Promises
import TestSupport
import Testing

@Suite("firstly, when, race, after, hang")
struct CombinatorTests {
  @Test func firstlyRunsAtOnceAndCatchesThrows() {
    let started = Counter()
    let promise = firstly { () -> Promise<Int> in
      started.increment()
      return .value(1)
    }
    #expect(started.value == 1)
    #expect(promise.value == 1)
    let thrown = firstly { () throws -> Promise<Int> in throw TestError(id: 8) }
    #expect(thrown.error as? TestError == TestError(id: 8))
    let guarantee: Guarantee<Int> = firstly { Guarantee.value(2) }
    #expect(guarantee.value == 2)
  }

  @Test func whenFulfilledKeepsInputOrderAndRejectsOnFirstError() {
    let pending = (0..<3).map { _ in Promise<Int>.pending() }
    let all = when(fulfilled: pending.map(\.promise))
    pending[2].resolver.fulfill(2)
    pending[0].resolver.fulfill(0)
    #expect(all.isPending)
    pending[1].resolver.fulfill(1)
    #expect(all.value == [0, 1, 2])

    let (slow, _) = Promise<Int>.pending()
    let failing = when(fulfilled: [slow, Promise(error: TestError(id: 6))])
    #expect(failing.error as? TestError == TestError(id: 6), "rejects without waiting for the others")

    #expect(when(fulfilled: [Promise<Int>]()).value == [])
    #expect(when(fulfilled: Promise.value(1), Promise.value(2), Promise.value(3)).value == [1, 2, 3])
    let voids: Promise<Void> = when(fulfilled: [Promise<Void>(), Promise<Void>()])
    #expect(voids.isFulfilled)
    let variadicVoids: Promise<Void> = when(fulfilled: Promise<Void>(), Promise<Void>())
    #expect(variadicVoids.isFulfilled)
  }

  @Test func whenFulfilledTuples() throws {
    let two = when(fulfilled: Promise.value(1), Guarantee.value("a"))
    #expect(two.value?.0 == 1 && two.value?.1 == "a")
    let three = when(fulfilled: Promise.value(1), Promise.value("b"), Promise.value(2.5))
    #expect(three.value?.2 == 2.5)
    let four = when(fulfilled: Promise.value(1), Promise.value(2), Promise.value(3), Promise.value(4))
    #expect(four.value?.3 == 4)
    let five = when(fulfilled: Promise.value(1), Promise.value(2), Promise.value(3), Promise.value(4), Promise.value(5))
    #expect(five.value?.4 == 5)
    let failing = when(fulfilled: Promise.value(1), Promise<String>(error: TestError(id: 2)))
    #expect(failing.error as? TestError == TestError(id: 2))
  }

  @Test func whenResolvedWaitsForAllAndNeverRejects() {
    let (slow, resolver) = Promise<Int>.pending()
    let all = when(resolved: [Promise.value(1), Promise(error: TestError(id: 1)), slow])
    #expect(all.value == nil)
    resolver.fulfill(3)
    let results = all.value ?? []
    #expect(results.count == 3)
    #expect((try? results[0].get()) == 1)
    #expect(failure(results[1]) as? TestError == TestError(id: 1))
    #expect((try? results[2].get()) == 3)
    #expect(when(resolved: Promise.value(1)).value?.count == 1)
    #expect(when(resolved: [Promise<Int>]()).value?.isEmpty == true)
    #expect(when(Guarantee.value(1), Guarantee.value(2)).value == [1, 2])
  }

  @Test func raceResolvesLikeTheFirstAndRejectsEmptyInput() {
    let (a, ra) = Promise<Int>.pending()
    let (b, rb) = Promise<Int>.pending()
    let winner = race(a, b)
    rb.fulfill(2)
    ra.fulfill(1)
    #expect(winner.value == 2)
    let (c, rc) = Promise<Int>.pending()
    let rejected = race([c, Promise<Int>.pending().promise])
    rc.reject(TestError(id: 7))
    #expect(rejected.error as? TestError == TestError(id: 7))
    guard case PMKError.badInput? = race([Promise<Int>]()).error else {
      Issue.record("an empty race rejects with badInput")
      return
    }
    #expect(race(Guarantee.value(1), Guarantee<Int>.pending().guarantee).value == 1)
  }

  @Test func raceFulfilledSkipsRejectionsAndReportsNoWinner() {
    let (a, ra) = Promise<Int>.pending()
    let (b, rb) = Promise<Int>.pending()
    let first = race(fulfilled: [a, b])
    ra.reject(TestError())
    #expect(first.isPending)
    rb.fulfill(5)
    #expect(first.value == 5)
    let none = race(fulfilled: [Promise<Int>(error: TestError()), Promise<Int>(error: TestError())])
    guard case PMKError.noWinner? = none.error, case PMKError.badInput? = race(fulfilled: [Promise<Int>]()).error else {
      Issue.record("expected noWinner and badInput")
      return
    }
  }

  @Test func afterResolvesWhenTheSchedulerFires() {
    let time = ManualDeadlineScheduler()
    let guarantee = after(.seconds(5), scheduler: time)
    time.advance(by: .seconds(4))
    #expect(guarantee.value == nil)
    time.advance(by: .seconds(1))
    #expect(guarantee.value != nil)
    #expect(time.pendingCount == 0)
  }

  /// What `after` sets off when it resolves (here a `race` rejected through it, which cancels its
  /// other inputs) is done before the handlers after it run: `after` resolves outside any cancel,
  /// whose handlers would defer the cancels they start (PromiseKit 7's `TimeoutTests.testReset`
  /// and `testDoubleTimeout` failed about half the time on that).
  @Test func whatAfterSetsOffIsDoneBeforeTheNextHandlerRuns() {
    let time = ManualDeadlineScheduler()
    let slow = after(.seconds(5), scheduler: time).cancellize()
    let (deadline, resolver) = Promise<Void>.pending()
    after(.milliseconds(10), scheduler: time).done(on: nil) { resolver.reject(PMKError.timedOut) }
    let seen = Recorder<Bool>()
    race(slow, deadline.cancellize()).catch(on: nil, policy: .allErrors) { _ in seen.record(slow.isCancelled) }
    time.advance(by: .milliseconds(10))
    #expect(seen.values == [true], "the race's other input was cancelled before its catch ran")
    #expect(time.pendingCount == 0, "cancelling the slow input stopped its timer")
  }

  @Test func aCancelledAfterStopsItsTimerAndNeverResolves() {
    let time = ManualDeadlineScheduler()
    let guarantee = cancellable(after(.seconds(5), scheduler: time))
    guarantee.cancel()
    #expect(time.pendingCount == 0)
    time.advance(by: .seconds(5))
    #expect(guarantee.isCancelled)
  }

  @Test func afterSecondsAndDispatchIntervalResolve() async {
    let fired = await outcome(of: after(seconds: 0.001))
    #expect((try? fired.get()) != nil)
    let interval = await outcome(of: after(.milliseconds(1)))
    #expect((try? interval.get()) != nil)
  }

  @Test func hangOffTheMainThreadWaits() throws {
    let (promise, resolver) = Promise<Int>.pending()
    DispatchQueue.global().async { resolver.fulfill(11) }
    #expect(try hang(promise) == 11)
    #expect(hang(after(.milliseconds(1)).map(on: nil) { 2 }) == 2)
  }
}
