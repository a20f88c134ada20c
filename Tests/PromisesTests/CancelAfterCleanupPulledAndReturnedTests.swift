import Dispatch
import Promises
import TestSupport
import Testing

/// The last two shapes of a cancel behind a clean-up (issue 26): the inputs
/// `when(fulfilled:concurrently:)` pulls that follow a clean-up, and a chain with a clean-up that
/// a `then` body returned.
@Suite("Cancellable promises: a cancel behind a pulled input's or a returned chain's clean-up")
struct CancelAfterCleanupPulledAndReturnedTests {
  typealias HeldQueue = CancelAfterCleanupOrderTests.HeldQueue

  static func observe<T>(_ member: CancellablePromise<T>, _ name: String, into events: Recorder<String>) {
    CancelAfterCleanupOrderTests.observe(member, name, into: events)
  }

  /// Where the cancel is made: on the result, or on a stage after it.
  enum CancelPoint: CaseIterable, Sendable { case result, tail }

  @Test(arguments: CancelPoint.allCases)
  func aCancelOfAConcurrentlyPulledWhenWaitsForItsPulledInputsCleanup(_ point: CancelPoint) async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let input = head.ensure(on: held.queue) { events.record("cleanup") }.map(on: nil) { $0 + 1 }
    let (other, otherResolver) = CancellablePromise<Int>.pending()
    let (unpulled, _) = CancellablePromise<Int>.pending()
    let result = when(fulfilled: [input, other, unpulled].makeIterator(), concurrently: 2)
    let tail = result.map(on: nil) { $0.reduce(0, +) }
    Self.observe(result, "result", into: events)
    Self.observe(tail, "tail", into: events)
    switch point {
    case .result: result.cancel()
    case .tail: tail.cancel()
    }
    #expect(isPMKCancelled(head.error), "the chain before the clean-up is rejected at once")
    #expect(isPMKCancelled(other.error), "an input in flight without a clean-up is rejected at once")
    #expect(unpulled.isPending && !unpulled.cancelAttempted, "nothing is pulled after the cancel")
    #expect(result.cancelAttempted && tail.cancelAttempted && input.cancelAttempted)
    #expect(input.isPending && result.isPending && tail.isPending, "the stages after the clean-up wait for it")
    #expect(events.values.isEmpty)
    held.open()
    _ = await outcome(of: tail.promise)
    #expect(events.values == ["cleanup", "result cancelled", "tail cancelled"])
    #expect(isPMKCancelled(input.error) && isPMKCancelled(result.error) && isPMKCancelled(tail.error))
    #expect(result.isCancelled && tail.isCancelled)
    otherResolver.fulfill(1000)
    #expect(unpulled.isPending, "never pulled")
  }

  @Test func aCancelOfAConcurrentlyPulledWhenWithoutACleanupRejectsAtOnce() {
    let (first, _) = CancellablePromise<Int>.pending()
    let (second, _) = CancellablePromise<Int>.pending()
    let events = Recorder<String>()
    let result = when(fulfilled: [first, second].makeIterator(), concurrently: 2)
    let tail = result.map(on: nil) { values -> Int in
      events.record("body")
      return values.count
    }
    tail.cancel()
    #expect(isPMKCancelled(first.error) && isPMKCancelled(second.error))
    #expect(isPMKCancelled(result.error) && isPMKCancelled(tail.error), "rejected before cancel returned")
    #expect(result.isCancelled && events.values.isEmpty)
  }

  @Test func aConcurrentlyPulledWhenSettledBeforeTheCancelLetsItThroughAtOnce() async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let input = head.ensure(on: held.queue) { events.record("cleanup") }.map(on: nil) { $0 + 1 }
    let result = when(fulfilled: [input, CancellablePromise(error: TestError(id: 3))].makeIterator(), concurrently: 2)
    #expect(result.error as? TestError == TestError(id: 3), "an input's rejection settles the result at once")
    let (work, _) = CancellablePromise<[Int]>.pending()
    let pending = result.recover(on: nil) { _ in work }
    pending.cancel()
    #expect(isPMKCancelled(work.error) && isPMKCancelled(pending.error))
    #expect(isPMKCancelled(head.error) && input.isPending, "the input after the clean-up still waits for it")
    held.open()
    _ = await outcome(of: input.promise)
    #expect(events.values == ["cleanup"])
    #expect(isPMKCancelled(input.error))
  }

  @Test func aCancelMadeByTheIteratorWhilePullingReachesTheResultWhenThePullReturns() {
    let (first, firstResolver) = CancellablePromise<Int>.pending()
    let (second, _) = CancellablePromise<Int>.pending()
    let box = Recorder<CancellablePromise<[Int]>>()
    var pulled = 0
    let iterator = AnyIterator<CancellablePromise<Int>> {
      pulled += 1
      switch pulled {
      case 1: return first
      case 2:
        box.values.first?.cancel()
        return second
      default: return nil
      }
    }
    let result = when(fulfilled: iterator, concurrently: 1)
    box.record(result)
    firstResolver.fulfill(1)
    #expect(pulled == 2, "nothing is pulled after the cancel")
    #expect(isPMKCancelled(second.error), "the input the cancelling pull returned is cancelled too")
    #expect(isPMKCancelled(result.error) && result.isCancelled)
  }

  /// One round of the stress test below: a pulled input after a clean-up that runs on whichever
  /// thread settles or cancels the head, and another input that stays pending.
  struct PulledRound: Sendable {
    let resolver: Resolver<Int>
    let tail: CancellablePromise<Int>
    let other: CancellablePromise<Int>
    let events = Recorder<String>()

    init() {
      let (head, resolver) = CancellablePromise<Int>.pending()
      self.resolver = resolver
      let events = events
      let input = head.ensure(on: nil) { events.record("cleanup") }.map(on: nil) { $0 }
      let (other, _) = CancellablePromise<Int>.pending()
      self.other = other
      let result = when(fulfilled: [input, other].makeIterator(), concurrently: 2)
      CancelAfterCleanupOrderTests.observe(result, "result", into: events)
      tail = result.map(on: nil) { $0.count }
    }
  }

  @Test func aCancelRacingTheHeadsFulfilmentNeverReachesTheResultBeforeThePulledInputsCleanup() {
    TestSupport.race(
      iterations: Stress.iterations(2_000, minimum: 200), setup: { PulledRound() },
      { $0.tail.cancel() }, { $0.resolver.fulfill(1) },
      check: { round in
        #expect(!round.tail.isPending)
        #expect(round.events.values == ["cleanup", "result cancelled"])
        #expect(isPMKCancelled(round.other.error))
      })
  }

  /// A `then` body returns a chain with a clean-up; the outer chain is cancelled from a later
  /// stage. The `then` stage is a member of the outer chain: it is rejected at once, like every
  /// pending member of the chain cancelled; the returned chain is linked, so its members before
  /// the clean-up are rejected at once and its stages after the clean-up once the clean-up ran, and
  /// no body of it starts.
  @Test(arguments: [false, true])
  func aCancelOfTheOuterChainReachesAReturnedChainWithAClean_upInItsOrder(innerSettled: Bool) async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let returned = Recorder<CancellablePromise<Int>>()
    let (outerHead, outerResolver) = CancellablePromise<Int>.pending()
    let (pendingInner, _) = CancellablePromise<Int>.pending()
    let inner = innerSettled ? Promise.value(5).cancellize() : pendingInner
    let outer = outerHead.then(on: nil) { _ -> CancellablePromise<Int> in
      let innerTail = inner.ensure(on: held.queue) { events.record("cleanup") }.map(on: nil) { value -> Int in
        events.record("inner body")
        return value + 1
      }
      returned.record(innerTail)
      return innerTail
    }
    let tail = outer.map(on: nil) { $0 + 2 }
    Self.observe(outer, "outer", into: events)
    Self.observe(tail, "tail", into: events)
    outerResolver.fulfill(1)
    guard let innerTail = returned.values.first else {
      Issue.record("the then body did not run")
      return
    }
    Self.observe(innerTail, "inner", into: events)
    tail.cancel()
    #expect(innerSettled ? inner.value == 5 : isPMKCancelled(inner.error), "before the clean-up: at once")
    #expect(innerTail.isPending && innerTail.cancelAttempted, "the returned chain's stages wait for its clean-up")
    #expect(events.values == ["outer cancelled", "tail cancelled"], "the outer chain's members: at once")
    held.open()
    _ = await outcome(of: innerTail.promise)
    #expect(events.values == ["outer cancelled", "tail cancelled", "cleanup", "inner cancelled"])
    #expect(isPMKCancelled(innerTail.error) && isPMKCancelled(outer.error) && isPMKCancelled(tail.error))
  }

  /// The same, with the clean-up on the outer chain after the `then`: the outer stages after it
  /// wait for it (the way to have the outer chain's stages wait for a clean-up).
  @Test func aCleanupAfterTheThenHoldsTheOuterStagesAfterIt() async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let (outerHead, outerResolver) = CancellablePromise<Int>.pending()
    let (inner, _) = CancellablePromise<Int>.pending()
    let outer = outerHead.then(on: nil) { _ in inner }.ensure(on: held.queue) { events.record("cleanup") }
    let tail = outer.map(on: nil) { $0 + 2 }
    Self.observe(tail, "tail", into: events)
    outerResolver.fulfill(1)
    tail.cancel()
    #expect(isPMKCancelled(inner.error) && tail.isPending)
    held.open()
    _ = await outcome(of: tail.promise)
    #expect(events.values == ["cleanup", "tail cancelled"])
  }
}
