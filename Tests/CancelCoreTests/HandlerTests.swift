import CancelCore
import Dispatch
import TestSupport
import Testing

@Suite("Handlers")
struct HandlerTests {
  @Test func cancelHandlersRunOnceNewestFirst() {
    let source = CancelSource()
    let order = Recorder<Int>()
    for index in 0..<5 { source.signal.onCancel { order.record(index) } }
    source.cancel()
    source.cancel()
    #expect(order.values == [4, 3, 2, 1, 0])
  }

  @Test func cancelAndCompletionHandlersShareOneNewestFirstOrder() {
    let source = CancelSource()
    let order = Recorder<String>()
    source.signal.onCancel { order.record("cancel-1") }
    source.signal.onComplete { _ in order.record("complete-2") }
    source.signal.onCancel { (_: any Error) in order.record("reason-3") }
    source.cancel()
    #expect(order.values == ["reason-3", "complete-2", "cancel-1"])
  }

  @Test func handlerRunsOnTheCancellingThreadAfterTheStateFlipped() async {
    struct Reason: Error {}
    let source = CancelSource()
    let observed = Recorder<(thread: UInt, cancelled: Bool, reasonIsOurs: Bool)>()
    source.signal.onCancel { (reason: any Error) in
      observed.record(
        (currentThreadID(), source.signal.isCancelled, reason is Reason && source.signal.reason is Reason))
    }
    let cancellingThread: UInt = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        source.cancel(reason: Reason())
        continuation.resume(returning: currentThreadID())
      }
    }
    #expect(observed.values.count == 1)
    #expect(observed.values.first?.thread == cancellingThread)
    #expect(observed.values.first?.cancelled == true)
    #expect(observed.values.first?.reasonIsOurs == true)
  }

  @Test func handlersRunBeforeCancelReturns() {
    let source = CancelSource()
    let ran = Counter()
    source.signal.onCancel { ran.increment() }
    source.cancel()
    #expect(ran.value == 1)
  }

  @Test func completionHandlerReceivesTheOutcome() {
    let cancelled = CancelSource()
    let closed = CancelSource()
    let outcomes = Recorder<Bool>()
    cancelled.signal.onComplete { outcomes.record($0) }
    closed.signal.onComplete { outcomes.record($0) }
    cancelled.cancel()
    closed.close()
    #expect(outcomes.values == [true, false])
  }

  @Test func closingRunsNoCancelHandler() {
    let source = CancelSource()
    let ran = Counter()
    source.signal.onCancel { ran.increment() }
    source.signal.onCancel { (_: any Error) in ran.increment() }
    source.close()
    source.cancel()
    #expect(ran.value == 0)
  }

  @Test func registeringAfterCancelRunsAtOnceOnThisThreadWithAnInertHandle() {
    struct Reason: Error {}
    let source = CancelSource()
    source.cancel(reason: Reason())
    let thread = currentThreadID()
    let observed = Recorder<UInt>()
    let reasons = Recorder<Bool>()
    let registration = source.signal.onCancel { observed.record(currentThreadID()) }
    source.signal.onCancel { (reason: any Error) in reasons.record(reason is Reason) }
    source.signal.onComplete { reasons.record($0) }
    #expect(observed.values == [thread])
    #expect(reasons.values == [true, true])
    #expect(!registration.unregister())
  }

  @Test func registeringAfterCloseRunsNoCancelHandlerAndReleasesIt() {
    let source = CancelSource()
    source.close()
    weak var weakTracked: Tracked?
    let ran = Counter()
    do {
      let tracked = Tracked()
      weakTracked = tracked
      source.signal.onCancel {
        _ = tracked; ran.increment()
      }
    }
    #expect(weakTracked == nil)
    #expect(ran.value == 0)
    let outcomes = Recorder<Bool>()
    source.signal.onComplete { outcomes.record($0) }
    #expect(outcomes.values == [false])
  }

  @Test(arguments: ["cancel", "close"])
  func everyClosureIsReleasedAtTheTransition(ending: String) {
    let source = CancelSource()
    let signal = source.signal
    weak var weakCancel: Tracked?
    weak var weakComplete: Tracked?
    weak var weakReason: Tracked?
    do {
      let a = Tracked(), b = Tracked(), c = Tracked()
      weakCancel = a
      weakComplete = b
      weakReason = c
      signal.onCancel { _ = a }
      signal.onComplete { _ in _ = b }
      signal.onCancel { (_: any Error) in _ = c }
    }
    #expect(weakCancel != nil)
    if ending == "cancel" { source.cancel() } else { source.close() }
    // The source and its signal are still alive; only the closures are gone.
    #expect(weakCancel == nil)
    #expect(weakComplete == nil)
    #expect(weakReason == nil)
    #expect(signal.isCompleted)
  }

  @Test func handlersMayReenterAnySourceWithoutDeadlock() {
    let source = CancelSource()
    let other = CancelSource()
    let events = Recorder<String>()
    var selfRegistration = CancelRegistration.inert
    let box = RegistrationBox()
    selfRegistration = source.signal.onCancel {
      events.record("removed-self:\(box.registration.unregister())")
    }
    box.registration = selfRegistration
    source.signal.onCancel {
      events.record("cancel-self:\(source.cancel(reason: CancellationError()))")
      events.record("close-self:\(source.close())")
      other.cancel()
      events.record("other:\(other.isCancelled)")
      source.signal.onCancel { events.record("nested-ran") }
      events.record("after-nested")
    }
    source.cancel()
    #expect(
      events.values == [
        "cancel-self:false", "close-self:false", "other:true", "nested-ran", "after-nested", "removed-self:false",
      ])
  }

  @Test func handlerMayUnregisterAnotherPendingHandler() {
    let source = CancelSource()
    let ran = Recorder<String>()
    let victim = source.signal.onCancel { ran.record("victim") }
    let result = Recorder<Bool>()
    source.signal.onCancel {
      // The newest handler runs first; by then the source has drained its table, so the older
      // handler is already committed to run and cannot be removed any more.
      result.record(victim.unregister())
      ran.record("remover")
    }
    source.cancel()
    #expect(result.values == [false])
    #expect(ran.values == ["remover", "victim"])
  }
}

/// Lets a handler refer to its own registration.
private final class RegistrationBox: @unchecked Sendable {
  // Safety: written once before the source is cancelled, read by the handler afterwards on the
  // same thread.
  var registration = CancelRegistration.inert
}
