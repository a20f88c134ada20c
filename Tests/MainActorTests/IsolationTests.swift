import Dispatch
import TestSupport
import Testing

@testable import Promises

// Where a body that takes on its caller's isolation runs: the rule, and bodies of the three
// kinds (no isolation, the main actor's, another actor's) run through the same methods.

@Suite("Bodies that take on their caller's isolation")
struct IsolationTests {
  /// Where `IsolatedBody` calls a body with `isolation`: a queue's label, "inline" (no queue),
  /// or "task" (awaited on its actor).
  func place(for isolation: (any Actor)?, on stage: StageQueue) -> String {
    switch IsolatedBody.queue(for: isolation, on: stage) {
    case .none: "task"
    case .some(nil): "inline"
    case .some(let queue?): queue.label == DispatchQueue.main.label ? "main" : queue.label
    }
  }

  @Test func theRuleForEachIsolation() {
    let other = StageQueue(DispatchQueue(label: "other"))
    // No isolation: the stage's queue (conf.Q by default), as the methods taking a queue do.
    #expect(place(for: nil, on: other) == "other")
    #expect(place(for: nil, on: StageQueue(nil)) == "inline")
    #expect(place(for: nil, on: .main) == "main")
    // The main actor's: the main queue, whatever the stage's queue (conf.Q set to another queue
    // or to nil).
    #expect(place(for: MainActor.shared, on: other) == "main")
    #expect(place(for: MainActor.shared, on: StageQueue(nil)) == "main")
    #expect(place(for: MainActor.shared, on: .main) == "main")
    // Another actor's: awaited in a task.
    #expect(place(for: Counter(), on: other) == "task")
  }

  @Test func aBodyWithoutIsolationRunsWhereItDidBefore() async throws {
    // Not in an actor: the default queue (main, as conf.Q is by default) and `on: .main` run it
    // on the main queue; the queue forms still run it where they say.
    let onDefault = try await Promise.value(1).map { _ in (QueueProbe.mainLabel == "main") }.async()
    let onMain = try await Promise.value(1).map(on: .main) { _ in (QueueProbe.mainLabel == "main") }.async()
    let onGlobal = try await Promise.value(1).map(on: .global()) { _ in (QueueProbe.mainLabel == "main") }.async()
    let inline = try await Promise.value(2).map(on: nil) { $0 * 2 }.async()
    #expect(onDefault)
    #expect(onMain)
    #expect(!onGlobal)
    #expect(inline == 4)
  }

  @Test func aBodyThatThrowsRejects() async {
    struct Failure: Error {}
    await #expect(throws: Failure.self) {
      try await Promise.value(1).done { _ in throw Failure() }.async()
    }
  }

  @Test func aBodyIsolatedToAnotherActorRunsOnThatActor() async throws {
    let counter = Counter()
    let total = try await counter.add([1, 2, 3]).async()
    #expect(total == 6)
    #expect(await counter.total == 6)
    #expect(await counter.sawFailure == false)
    let recovered = try await counter.failThenRecover().async()
    #expect(recovered == -1)
    #expect(await counter.sawFailure)
    let cancellable = try await counter.addCancellable(4).async()
    #expect(cancellable == 10)
  }

  /// A body isolated to another actor runs in a task on that actor; a cancel of its chain made
  /// after the task was made but before the body started there stops it (the check runs on the
  /// actor, right before the body): no body starts after `cancel` returned (independent review of
  /// issue 27). The actor is busy in `startThenCancel` until the cancel returned, so the task
  /// cannot have started the body before.
  @Test func aBodyOnAnotherActorDoesNotStartAfterTheCancelReturned() async throws {
    let stopper = Stopper()
    let started = await stopper.startThenCancel()
    await #expect(throws: PMKError.self) { try await started.async() }
    #expect(await stopper.ran == 0)
    // Without a cancel, the same body runs on the actor.
    #expect(try await stopper.startWithoutCancel().async() == 2)
    #expect(await stopper.ran == 1)
  }

  @Test func theOtherStagesOnAnotherActor() async throws {
    let counter = Counter()
    // ensure, ensureThen and recover run on the actor, in order.
    #expect(try await counter.cleanUp().async() == 2)
    // catch and finally (the finalizer's) run on the actor; finally after catch.
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
      Task { await counter.report { finished.resume() } }
    }
    #expect(await counter.caught == 1)
    #expect(await counter.finishedAfter == 1)
    // A guarantee's map and then, compactMap's nil, a Void recover.
    #expect(await counter.doubled(3).async() == 6)
    await #expect(throws: PMKError.self) { try await counter.nothing().async() }
    try await counter.clear().async()
    #expect(await counter.caught == 2)
    // A cancellable chain's done and catch.
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
      Task { await counter.cancellableReport { finished.resume() } }
    }
    #expect(await counter.caught == 3)
  }
}

/// An actor whose chains touch its state in their bodies: those bodies run on the actor.
actor Counter {
  var total = 0
  var sawFailure = false

  func add(_ values: [Int]) -> Promise<Int> {
    Promise.value(values).map { values in
      self.total += values.reduce(0, +)
      return self.total
    }.get { _ in
      self.assertIsolated()
    }
  }

  func failThenRecover() -> Promise<Int> {
    Promise<Int>(error: LookupError.unknown("x")).tap { _ in
      self.sawFailure = true
    }.recover { _ in
      self.sawFailure ? Promise.value(-1) : Promise.value(0)
    }
  }

  var cleanups = 0
  var caught = 0
  var finishedAfter = 0

  func cleanUp() -> Promise<Int> {
    Promise<Int>(error: LookupError.unknown("y")).ensure {
      self.cleanups += 1
    }.ensureThen {
      self.cleanups += 1
      return Guarantee.value
    }.recover { _ in
      Promise.value(self.cleanups)
    }
  }

  func report(then resume: @escaping @Sendable () -> Void) {
    Promise<Int>(error: LookupError.unknown("z")).catch { _ in
      self.caught += 1
    }.finally {
      self.finishedAfter = self.caught
      resume()
    }
  }

  func doubled(_ value: Int) -> Guarantee<Int> {
    Guarantee.value(value).map { value in
      self.total = value
      return value
    }.then { value in
      Guarantee.value(value + self.total)
    }
  }

  func nothing() -> Promise<Int> {
    Promise.value(1).compactMap { _ in self.total > 1_000 ? 1 : nil }
  }

  func clear() -> Promise<Void> {
    Promise<Void>(error: LookupError.unknown("v")).recover { _ in
      self.caught += 1
    }
  }

  func cancellableReport(then resume: @escaping @Sendable () -> Void) {
    Promise<Int>(error: LookupError.unknown("w")).cancellize().done { _ in
      self.total = -1
    }.catch { _ in
      self.caught += 1
    }.finally {
      resume()
    }
  }

  func addCancellable(_ value: Int) -> CancellablePromise<Int> {
    Promise.value(value).cancellize().map { value in
      self.total += value
      return self.total
    }
  }
}

/// `body`, which takes on its caller's isolation as the chaining methods' bodies do.
func isolatedBody(
  @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Int) throws -> Int
) -> @Sendable @isolated(any) (Int) throws -> Int {
  body
}

/// An actor that cancels a chain whose body is isolated to it while it is still busy itself.
actor Stopper {
  var ran = 0

  /// The promise of the task that runs (or skips) the body: made, and the chain cancelled, while
  /// this actor is busy here, so the body cannot have started before the cancel.
  func startThenCancel() -> Promise<Int> {
    let context = CancelContext()
    let body = isolatedBody { value in
      self.ran += 1
      return value + 1
    }
    let started = IsolatedBody.promise(body, 1, unlessCancelled: context.chain)
    context.cancel()
    return started
  }

  func startWithoutCancel() -> Promise<Int> {
    let body = isolatedBody { value in
      self.ran += 1
      return value + 1
    }
    return IsolatedBody.promise(body, 1, unlessCancelled: CancelContext().chain)
  }
}
