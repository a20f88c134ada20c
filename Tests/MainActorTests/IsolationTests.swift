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

  func addCancellable(_ value: Int) -> CancellablePromise<Int> {
    Promise.value(value).cancellize().map { value in
      self.total += value
      return self.total
    }
  }
}
