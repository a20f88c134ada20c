import Dispatch
import TestSupport
import Testing
import Tokens

@Suite("Token handlers")
struct HandlerTests {
  @Test func handlersRunOnceNewestFirstOnTheCancellingThread() async {
    let request = CancellationRequest()
    let token = request.token
    let order = Recorder<String>()
    let threads = Recorder<UInt>()
    token.onCancel {
      order.record("cancel-1")
      threads.record(currentThreadID())
    }
    token.onComplete { cancelled in
      order.record("complete-2:\(cancelled)")
      threads.record(currentThreadID())
    }
    token.onCancel { (reason: any Error) in
      order.record("reason-3:\(reason is TestReason)")
      threads.record(currentThreadID())
    }
    let cancellingThread: UInt = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        request.cancel(reason: TestReason())
        request.cancel()
        continuation.resume(returning: currentThreadID())
      }
    }
    #expect(order.values == ["reason-3:true", "complete-2:true", "cancel-1"])
    #expect(threads.values == Array(repeating: cancellingThread, count: 3))
  }

  @Test func aHandlerSeesTheCancelledStateAndReason() {
    let request = CancellationRequest()
    let token = request.token
    let seen = Recorder<Bool>()
    token.onCancel { seen.record(token.isCancelled && token.reason is TestReason) }
    request.cancel(reason: TestReason())
    #expect(seen.values == [true])
  }

  @Test func registeringOnACancelledTokenRunsNowOnThisThreadWithAnInertHandle() {
    let request = CancellationRequest()
    request.cancel()
    let thread = currentThreadID()
    let ran = Recorder<UInt>()
    let registration = request.token.onCancel { ran.record(currentThreadID()) }
    #expect(ran.values == [thread])
    #expect(!registration.unregister())
    let completions = Recorder<Bool>()
    request.token.onComplete { completions.record($0) }
    #expect(completions.values == [true])
  }

  @Test func aCancelHandlerOnACompletedTokenIsReleasedWithoutRunning() {
    let request = CancellationRequest()
    request.close()
    weak var weakCapture: Tracked?
    let ran = Counter()
    do {
      let capture = Tracked()
      weakCapture = capture
      request.token.onCancel {
        _ = capture
        ran.increment()
      }
    }
    #expect(weakCapture == nil)
    #expect(ran.value == 0)
  }

  @Test func unregisterRemovesTheHandlerOnceAndFreesItsClosure() {
    let request = CancellationRequest()
    weak var weakCapture: Tracked?
    let ran = Counter()
    let registration: CancellationRegistration
    do {
      let capture = Tracked()
      weakCapture = capture
      registration = request.token.onCancel {
        _ = capture
        ran.increment()
      }
    }
    #expect(registration.unregister())
    #expect(!registration.unregister())
    #expect(weakCapture == nil)
    request.cancel()
    #expect(ran.value == 0)
  }

  @Test func unregisterAfterTheHandlerRanReturnsFalse() {
    let request = CancellationRequest()
    let registration = request.token.onComplete { _ in }
    request.cancel()
    #expect(!registration.unregister())
  }

  @Test func aHandlerMayUnregisterItselfAndReenter() {
    let request = CancellationRequest()
    let other = CancellationRequest()
    let token = request.token
    let results = Recorder<Bool>()
    let box = RegistrationBox()
    box.registration = token.onCancel {
      results.record(box.registration?.unregister() ?? true)
      request.cancel()  // the same request: a no-op
      other.cancel()
      token.onCancel { results.record(true) }  // runs at once
    }
    request.cancel()
    #expect(results.values == [false, true])
    #expect(other.isCancellationRequested)
  }

  // MARK: on: DispatchQueue

  static func labelledQueue(_ label: String) -> DispatchQueue { QueueProbe.make(label) }

  @Test func aHandlerWithAQueueRunsOnThatQueue() async {
    let queue = Self.labelledQueue("tokens.tests.onCancel")
    let request = CancellationRequest()
    let label: String? = await withCheckedContinuation { continuation in
      request.token.onCancel(on: queue) { continuation.resume(returning: QueueProbe.label) }
      request.cancel()
    }
    #expect(label == "tokens.tests.onCancel")
  }

  @Test func everyKindOfHandlerHonoursItsQueue() async {
    let queue = Self.labelledQueue("tokens.tests.kinds")
    let request = CancellationRequest()
    let token = request.token
    let labels = Recorder<String>()
    await confirmation(expectedCount: 4) { ran in
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let finished = Counter()
        let record: @Sendable (String) -> Void = { kind in
          labels.record("\(kind)@\(QueueProbe.label ?? "elsewhere")")
          ran()
          finished.increment()
          if finished.value == 4 { done.resume() }
        }
        token.onCancel(on: queue) { record("cancel") }
        token.onCancel(on: queue) { (_: any Error) in record("reason") }
        token.onComplete(on: queue) { _ in record("complete") }
        token.register(cancelable: ClosureCancelable { record("register") }, on: queue)
        request.cancel()
      }
    }
    #expect(Set(labels.values) == Set(["cancel", "reason", "complete", "register"].map { "\($0)@tokens.tests.kinds" }))
  }

  @Test func aQueuedHandlerDoesNotRunOnTheCancellingThreadEvenWhenAlreadyCancelled() async {
    let queue = Self.labelledQueue("tokens.tests.already")
    let request = CancellationRequest()
    request.cancel()
    let ranInline = Counter()
    let thread = currentThreadID()
    let label: String? = await withCheckedContinuation { continuation in
      request.token.onComplete(on: queue) { cancelled in
        if currentThreadID() == thread && QueueProbe.label == nil { ranInline.increment() }
        continuation.resume(returning: cancelled ? QueueProbe.label : nil)
      }
    }
    #expect(label == "tokens.tests.already")
    #expect(ranInline.value == 0)
  }

  @Test func unregisteringAQueuedHandlerBeforeCancelMeansItNeverRuns() async {
    let queue = Self.labelledQueue("tokens.tests.unregister")
    let request = CancellationRequest()
    let ran = Counter()
    let registration = request.token.onCancel(on: queue) { ran.increment() }
    #expect(registration.unregister())
    request.cancel()
    // Anything submitted before this barrier would have run by the time it passes.
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(ran.value == 0)
  }
}

/// Lets a handler reach its own registration.
final class RegistrationBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: written once before the request is cancelled (which
  // publishes it to the handler through the core's lock), read only by the handler.
  var registration: CancellationRegistration?
}
