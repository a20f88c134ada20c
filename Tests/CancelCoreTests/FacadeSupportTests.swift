import CancelCore
import TestSupport
import Testing

@Suite("Core helpers for facades")
struct FacadeSupportTests {
  @Test func cancelWithDefaultReasonCancelsOnceWithTheSharedCancellationError() {
    let storage = CancelStorage()
    #expect(storage.cancelWithDefaultReason())
    #expect(!storage.cancelWithDefaultReason())
    #expect(storage.reason is CancellationError)
    let closed = CancelStorage()
    _ = closed.close()
    #expect(!closed.cancelWithDefaultReason())
    #expect(!closed.isCancelled)
  }

  /// An error with a payload, so that equal values are still distinct error objects.
  struct Reason: Error, Equatable { let name: String }

  @Test func theIdentityOfAnErrorIsItsObjectNotItsValue() {
    let error: any Error = Reason(name: "a")
    let copy = error
    let equal: any Error = Reason(name: "a")
    #expect(ErrorIdentity(error) == ErrorIdentity(copy), "a copy is the same error object")
    #expect(ErrorIdentity(error) != ErrorIdentity(equal), "an equal error is another object")
    let storage = CancelStorage()
    #expect(!storage.isCancelled(by: ErrorIdentity(error)), "not cancelled yet")
    _ = storage.cancel(reason: error)
    #expect(storage.isCancelled(by: ErrorIdentity(copy)), "cancelled with that very error")
    #expect(!storage.isCancelled(by: ErrorIdentity(equal)), "not with an equal one")
    let closed = CancelStorage()
    _ = closed.close()
    #expect(!closed.isCancelled(by: ErrorIdentity(error)), "a closed source was cancelled by nothing")
  }
}

@Suite("SettleDelivery.deliver")
struct IdleDrainDeliveryTests {
  final class Host: DeferredDelivery, Sendable {
    let name: String
    let log: Recorder<String>
    let nested: [Host]
    init(_ name: String, log: Recorder<String>, nested: [Host] = []) {
      self.name = name
      self.log = log
      self.nested = nested
    }
    func deliverCallbacks() {
      log.record("\(name) begins")
      for host in nested { SettleDelivery.deliver(host) }
      log.record("\(name) ends")
    }
  }

  @Test func anIdleDeliveryRunsAtOnceAndNestedOnesRunInOrderBeforeItReturns() {
    let log = Recorder<String>()
    let inner = Host("inner", log: log)
    let outer = Host("outer", log: log, nested: [Host("a", log: log, nested: [inner]), Host("b", log: log)])
    SettleDelivery.deliver(outer)
    #expect(
      log.values == [
        "outer begins", "outer ends", "a begins", "a ends", "b begins", "b ends", "inner begins", "inner ends",
      ])
    // The thread's queue is idle again: the next delivery runs at once.
    SettleDelivery.deliver(Host("again", log: log))
    #expect(log.values.suffix(2) == ["again begins", "again ends"])
  }
}

@Suite("ReentrantRun.run")
struct ReentrantRunTests {
  /// Logs its name, runs `nested` through `ReentrantRun`, logs its end.
  struct Work: Sendable {
    let name: String
    let log: Recorder<String>
    let nested: [Work]

    func perform() {
      log.record("\(name) begins")
      for work in nested { ReentrantRun.run(work) { $0.perform() } }
      log.record("\(name) ends")
    }
  }

  @Test func workRunsAtOnceAndNestedWorkRunsInOrderBeforeTheOutermostReturns() {
    let log = Recorder<String>()
    let inner = Work(name: "inner", log: log, nested: [])
    let a = Work(name: "a", log: log, nested: [inner])
    let outer = Work(name: "outer", log: log, nested: [a, Work(name: "b", log: log, nested: [])])
    ReentrantRun.run(outer) { $0.perform() }
    #expect(
      log.values == [
        "outer begins", "outer ends", "a begins", "a ends", "b begins", "b ends", "inner begins", "inner ends",
      ])
    // Idle again: the next run performs at once.
    ReentrantRun.run(Work(name: "again", log: log, nested: [])) { $0.perform() }
    #expect(log.values.suffix(2) == ["again begins", "again ends"])
  }

  #if os(macOS) || os(Linux) || os(Windows)
    /// In a child process: a regression would overflow the stack.
    @Test func aMillionWorkItemsEachStartingTheNextRunInConstantStack() async {
      await #expect(processExitsWith: .success) {
        let done = await onSmallStack(256 << 10) { ReentrantRunTests.chain(1_000_000) }
        precondition(done == 1_000_000, "not every step ran")
      }
    }
  #endif

  /// Runs `count` work items, each started by the one before from inside its run; returns how
  /// many ran.
  static func chain(_ count: Int) -> Int {
    let steps = StepCounter()
    ReentrantRun.run((steps, count - 1)) { steps, remaining in steps.step(remaining) }
    return steps.done
  }

  /// Counts the steps of `chain(_:)`, all on one thread.
  final class StepCounter {
    var done = 0

    func step(_ remaining: Int) {
      done += 1
      guard remaining > 0 else { return }
      ReentrantRun.run((self, remaining - 1)) { steps, remaining in steps.step(remaining) }
    }
  }
}
