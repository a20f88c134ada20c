import Dispatch
import Promises
import TestSupport
import Testing

/// A cancel made on a `recover` branch, or on a `race`/`when` result, that follows an
/// `ensure`/`ensureThen` clean-up: the chain before the clean-up is rejected at once (which starts
/// it), the branch's or the result's stages only once the clean-up body returned (issue 26,
/// review finding (1)).
@Suite("Cancellable promises: a cancel after a clean-up, from a branch or a combinator")
struct CancelAfterCleanupOrderTests {
  /// A serial queue that runs nothing until `open()`: a clean-up on it stays pending meanwhile.
  final class HeldQueue: Sendable {
    let queue = DispatchQueue(label: "CancelAfterCleanupOrderTests.held")
    private let gate = DispatchSemaphore(value: 0)

    init() {
      let gate = gate
      queue.async { gate.wait() }
    }

    func open() { gate.signal() }
  }

  /// Records `name` with how `member` settled, when it settles.
  static func observe<T>(_ member: CancellablePromise<T>, _ name: String, into events: Recorder<String>) {
    member.promise.pipe { result in
      switch result {
      case .success: events.record("\(name) fulfilled")
      case .failure(let error): events.record(isPMKCancelled(error) ? "\(name) cancelled" : "\(name) rejected")
      }
    }
  }

  @Test func aCancelOfARecoverBranchAfterAnEnsureWaitsForTheCleanup() async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let cleaned = head.ensure(on: held.queue) { events.record("cleanup") }
    let branch = cleaned.recover(on: nil) { _ in Promise.value(0) }
    let tail = branch.map(on: nil) { $0 + 1 }
    Self.observe(branch, "branch", into: events)
    Self.observe(tail, "tail", into: events)
    tail.cancel()
    #expect(isPMKCancelled(head.error), "the chain before the clean-up is rejected at once")
    #expect(head.cancelAttempted && cleaned.cancelAttempted && branch.cancelAttempted && tail.cancelAttempted)
    #expect(cleaned.isPending && branch.isPending && tail.isPending, "the stages after the clean-up wait for it")
    #expect(events.values.isEmpty)
    held.open()
    _ = await outcome(of: tail.promise)
    #expect(events.values == ["cleanup", "branch cancelled", "tail cancelled"])
    #expect(isPMKCancelled(cleaned.error) && isPMKCancelled(branch.error) && isPMKCancelled(tail.error))
    #expect(tail.isCancelled && branch.isCancelled)
  }

  @Test func aCancelOfARecoverBranchThatHandlesCancellationsStillWaitsAndSkipsTheBody() async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let cleaned = head.ensure(on: held.queue) { events.record("cleanup") }
    let branch = cleaned.recover(on: nil, policy: .allErrors) { _ -> Promise<Int> in
      events.record("recover body")
      return Promise.value(0)
    }
    Self.observe(branch, "branch", into: events)
    branch.cancel(error: TestError(id: 7))
    #expect(head.error as? TestError == TestError(id: 7))
    #expect(branch.isPending && branch.cancelAttempted)
    held.open()
    _ = await outcome(of: branch.promise)
    #expect(events.values == ["cleanup", "branch rejected"], "the recover body never starts")
    #expect(branch.error as? TestError == TestError(id: 7))
  }

  @Test func aCancelOfARecoverBranchAfterAnEnsureThenWaitsForTheCleanupChain() {
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let (cleanupWork, finishCleanup) = CancellablePromise<Void>.pending()
    let cleaned = head.ensureThen(on: nil) {
      events.record("cleanup started")
      return cleanupWork
    }
    cleanupWork.promise.pipe { _ in events.record("cleanup finished") }
    let branch = cleaned.recover(on: nil) { _ in Promise.value(0) }
    let tail = branch.map(on: nil) { $0 + 1 }
    Self.observe(branch, "branch", into: events)
    Self.observe(tail, "tail", into: events)
    branch.cancel()
    #expect(isPMKCancelled(head.error))
    #expect(events.values == ["cleanup started"])
    #expect(branch.isPending && tail.isPending && tail.cancelAttempted)
    finishCleanup.fulfill(())
    #expect(events.values == ["cleanup started", "cleanup finished", "branch cancelled", "tail cancelled"])
    #expect(isPMKCancelled(tail.error) && isPMKCancelled(cleaned.error))
  }

  @Test func aDroppedBranchCancelledBeforeTheCleanupFinishedIsRejectedOnceItDid() {
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let (cleanupWork, finishCleanup) = CancellablePromise<Void>.pending()
    do {
      let tail = head.ensureThen(on: nil) { cleanupWork }.recover(on: nil) { _ in Promise.value(0) }
        .map(on: nil) { $0 + 1 }
      Self.observe(tail, "tail", into: events)
      tail.cancel()
    }
    cleanupWork.promise.pipe { _ in events.record("cleanup finished") }
    #expect(isPMKCancelled(head.error))
    #expect(events.values.isEmpty)
    finishCleanup.fulfill(())
    #expect(events.values == ["cleanup finished", "tail cancelled"])
  }

  /// The combinators whose result follows an input placed after a clean-up.
  enum Combinator: CaseIterable, Sendable {
    case race, whenFulfilled, whenResolved, firstly

    func combine(_ afterCleanup: CancellablePromise<Int>, _ other: CancellablePromise<Int>) -> CancellablePromise<Int> {
      switch self {
      case .race: return Promises.race([afterCleanup, other])
      case .whenFulfilled: return when(fulfilled: [afterCleanup, other]).map(on: nil) { $0.reduce(0, +) }
      case .whenResolved: return when(resolved: [afterCleanup, other]).map(on: nil) { $0.count }
      case .firstly: return Promises.firstly { afterCleanup }
      }
    }
  }

  @Test(arguments: Combinator.allCases)
  func aCancelOfACombinatorResultAfterAnEnsureWaitsForTheCleanup(_ combinator: Combinator) async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let input = head.ensure(on: held.queue) { events.record("cleanup") }.map(on: nil) { $0 + 1 }
    let (other, otherResolver) = CancellablePromise<Int>.pending()
    let result = combinator.combine(input, other)
    let tail = result.map(on: nil) { $0 + 2 }
    Self.observe(result, "result", into: events)
    Self.observe(tail, "tail", into: events)
    result.cancel()
    #expect(isPMKCancelled(head.error), "the chain before the clean-up is rejected at once")
    #expect(result.cancelAttempted && tail.cancelAttempted && input.cancelAttempted)
    #expect(input.isPending && result.isPending && tail.isPending, "the stages after the clean-up wait for it")
    #expect(events.values.isEmpty)
    held.open()
    _ = await outcome(of: tail.promise)
    #expect(events.values == ["cleanup", "result cancelled", "tail cancelled"])
    #expect(isPMKCancelled(input.error) && isPMKCancelled(result.error) && isPMKCancelled(tail.error))
    #expect(result.isCancelled)
    if combinator != .firstly {
      #expect(isPMKCancelled(other.error), "the other input is a member of the result's chain")
    }
    otherResolver.fulfill(1000)
    #expect(!(result.isFulfilled || tail.isFulfilled))
    #expect(other.isFulfilled == (combinator == .firstly), "only an input of the result's chain is cancelled")
  }

  @Test func aCancelOfAStageAfterARaceWaitsForEveryInputsCleanup() async {
    let (first, second) = (HeldQueue(), HeldQueue())
    let events = Recorder<String>()
    let (head1, _) = CancellablePromise<Int>.pending()
    let (head2, _) = CancellablePromise<Int>.pending()
    let input1 = head1.ensure(on: first.queue) { events.record("cleanup 1") }
    let input2 = head2.ensure(on: second.queue) { events.record("cleanup 2") }
    let result = race([input1, input2])
    Self.observe(result, "result", into: events)
    let tail = result.map(on: nil) { $0 }
    tail.cancel()
    #expect(isPMKCancelled(head1.error) && isPMKCancelled(head2.error))
    first.open()
    _ = await outcome(of: input1.promise)
    #expect(result.isPending, "the other input's clean-up has not finished")
    second.open()
    _ = await outcome(of: tail.promise)
    #expect(events.values.last == "result cancelled")
    #expect(Set(events.values.dropLast()) == ["cleanup 1", "cleanup 2"])
    #expect(isPMKCancelled(result.error) && isPMKCancelled(tail.error))
  }

  @Test func aResultSettledBeforeTheCancelLetsItThroughAtOnce() async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let (head, _) = CancellablePromise<Int>.pending()
    let input = head.ensure(on: held.queue) { events.record("cleanup") }.map(on: nil) { $0 + 1 }
    let result = Promises.race([input, Promise.value(5).cancellize()])
    #expect(result.value == 5)
    let (work, _) = CancellablePromise<Int>.pending()
    let pending = result.then(on: nil) { _ in work }
    result.cancel()
    #expect(isPMKCancelled(pending.error), "the stages after a settled result are rejected at once")
    #expect(isPMKCancelled(work.error))
    let added = result.map(on: nil) { value -> Int in
      events.record("body")
      return value
    }
    #expect(isPMKCancelled(added.error), "a stage added after the cancel is rejected with it")
    #expect(input.isPending && input.cancelAttempted, "the input after the clean-up still waits for it")
    held.open()
    _ = await outcome(of: input.promise)
    #expect(events.values == ["cleanup"])
    #expect(isPMKCancelled(input.error))
  }

  /// The differential tester's program (class c against PromiseKit 7), with the `when` input placed
  /// after a clean-up, cancelled from the `when`'s result or from the end, before and after the
  /// clean-up that follows the `when` was added.
  enum ShrunkCancel: CaseIterable, Sendable {
    case whenResultBeforeTheEnsure, whenResultAfterTheEnsure, end
  }

  @Test(arguments: ShrunkCancel.allCases)
  func theShrunkProgramWithItsWhenInputAfterAClean_up(_ cancel: ShrunkCancel) async {
    let held = HeldQueue()
    let events = Recorder<String>()
    let c = Promise.value(1).cancellize()
    let b0 = c.ensure(on: held.queue) { events.record("b0 cleanup") }.map(on: nil) { $0 + 1 }
    let (b1, slot1) = CancellablePromise<Int>.pending()
    let w = when(fulfilled: [b0, b1])
    let s0 = w.map(on: nil) { $0.reduce(0, +) }
    Self.observe(s0, "s0", into: events)
    if cancel == .whenResultBeforeTheEnsure { s0.cancel() }
    let s1 = s0.ensure(on: nil) { events.record("s1 cleanup") }
    let s2 = s1.map(on: nil) { $0 + 30 }
    Self.observe(s2, "s2", into: events)
    switch cancel {
    case .whenResultBeforeTheEnsure: break
    case .whenResultAfterTheEnsure: s0.cancel()
    case .end: s2.cancel()
    }
    #expect(isPMKCancelled(b1.error), "a pending input is rejected at once")
    #expect(s2.cancelAttempted && s0.cancelAttempted)
    #expect(b0.isPending && w.isPending && s0.isPending && s2.isPending)
    #expect(events.values.isEmpty)
    held.open()
    _ = await outcome(of: s2.promise)
    #expect(events.values == ["b0 cleanup", "s0 cancelled", "s1 cleanup", "s2 cancelled"])
    slot1.fulfill(1000)
    for member in [b0, b1, s0, s1, s2] { #expect(isPMKCancelled(member.error)) }
    #expect(isPMKCancelled(w.error))
    #expect(c.value == 1, "the cancellized root had fulfilled before the cancel")
  }

  /// One round of the stress test below: a chain with a clean-up that runs on whichever thread
  /// settles or cancels the head, a branch or a race after it, and the events they saw.
  struct RacingRound: Sendable {
    let resolver: Resolver<Int>
    let tail: CancellablePromise<Int>
    let others: [CancellablePromise<Int>]
    let events = Recorder<String>()

    init(branch: Bool) {
      let (head, resolver) = CancellablePromise<Int>.pending()
      self.resolver = resolver
      let events = events
      let cleaned = head.ensure(on: nil) { events.record("cleanup") }
      let result: CancellablePromise<Int>
      if branch {
        result = cleaned.recover(on: nil) { _ in Promise.value(0) }
        others = []
      } else {
        let (other, _) = CancellablePromise<Int>.pending()
        result = Promises.race([cleaned.map(on: nil) { $0 }, other])
        others = [other]
      }
      CancelAfterCleanupOrderTests.observe(result, "result", into: events)
      tail = result.map(on: nil) { $0 + 1 }
    }
  }

  @Test(arguments: [true, false])
  func aCancelRacingTheHeadsFulfilmentNeverReachesTheBranchOrResultBeforeTheCleanup(branch: Bool) {
    TestSupport.race(
      iterations: Stress.iterations(2_000, minimum: 200), setup: { RacingRound(branch: branch) },
      { $0.tail.cancel() }, { $0.resolver.fulfill(1) },
      check: { round in
        #expect(!round.tail.isPending)
        #expect(round.events.values.first == "cleanup", "the clean-up ran before the stages after it saw a result")
        #expect(round.events.values.count == 2)
        for other in round.others { #expect(isPMKCancelled(other.error)) }
      })
  }
}
