import TestSupport
import Testing
import Tokens

@Suite("register(cancelable:)")
struct RegisterCancelableTests {
  @Test func aClassInstanceIsCancelledWhenTheTokenIs() {
    let request = CancellationRequest()
    let cancelable = CountingCancelable()
    request.token.register(cancelable: cancelable)
    request.cancel()
    request.cancel()
    #expect(cancelable.count.value == 1)
  }

  @Test func aClassInstanceIsHeldWeakly() {
    let request = CancellationRequest()
    weak var weakCancelable: CountingCancelable?
    let count: Counter
    do {
      let cancelable = CountingCancelable()
      weakCancelable = cancelable
      count = cancelable.count
      request.token.register(cancelable: cancelable)
    }
    #expect(weakCancelable == nil, "the registration must not keep the instance alive")
    request.cancel()  // the instance is gone: skipped, no crash
    #expect(count.value == 0)
  }

  @Test func aClassInstanceSeenOnlyAsAProtocolIsStillHeldWeakly() {
    // Generic code that knows only `some Cancelable` gets the same weak treatment.
    func registerGenerically<C: Cancelable>(_ cancelable: C, on token: CancellationToken) {
      token.register(cancelable: cancelable)
    }
    let request = CancellationRequest()
    weak var weakCancelable: CountingCancelable?
    do {
      let cancelable = CountingCancelable()
      weakCancelable = cancelable
      registerGenerically(cancelable, on: request.token)
    }
    #expect(weakCancelable == nil)
    request.cancel()
  }

  @Test func aValueIsHeldUntilTheTokenCompletes() {
    let request = CancellationRequest()
    let count = Counter()
    weak var weakCapture: Tracked?
    do {
      let capture = Tracked()
      weakCapture = capture
      request.token.register(
        cancelable: ClosureCancelable {
          _ = capture
          count.increment()
        })
    }
    #expect(weakCapture != nil, "a value type is kept: nothing else would keep it")
    request.cancel()
    #expect(count.value == 1)
    #expect(weakCapture == nil, "released once the token completed")
  }

  @Test func aValueIsReleasedWithoutCancelWhenTheRequestGoesAway() {
    var request: CancellationRequest? = CancellationRequest()
    let count = Counter()
    request!.token.register(cancelable: ValueCancelable(count: count))
    request = nil
    #expect(count.value == 0)
  }

  @Test func aTaskIsCancelledWhenTheTokenIs() async {
    let request = CancellationRequest()
    let task = Task { () -> Bool in
      // Waits on a token nobody cancels: only the task's own cancellation ends the wait.
      let never = CancellationRequest()
      let tokenCancelled = await never.token.cancelled()
      return Task.isCancelled && !tokenCancelled
    }
    request.token.register(cancelable: task)
    request.cancel()
    #expect(await task.value)
  }

  @Test func anAlreadyCancelledTokenCancelsAtOnce() {
    let request = CancellationRequest()
    request.cancel()
    let cancelable = CountingCancelable()
    let registration = request.token.register(cancelable: cancelable)
    #expect(cancelable.count.value == 1)
    #expect(!registration.unregister())
  }

  @Test func unregisterKeepsTheCancelableFromBeingCancelled() {
    let request = CancellationRequest()
    let cancelable = CountingCancelable()
    let registration = request.token.register(cancelable: cancelable)
    #expect(registration.unregister())
    request.cancel()
    #expect(cancelable.count.value == 0)
  }

  @Test func aRequestCanBeRegisteredSoOneTokenCancelsAnotherRequest() {
    let parent = CancellationRequest()
    let child = CancellationRequest()
    parent.token.register(cancelable: child)
    parent.cancel()
    #expect(child.isCancellationRequested)
  }

  @Test func thePeersQueueSpellingHonoursTheQueue() async {
    let request = CancellationRequest()
    let queue = QueueProbe.make("tokens.tests.register")
    let label: String? = await withCheckedContinuation { continuation in
      request.token.register(
        cancelable: ClosureCancelable { continuation.resume(returning: QueueProbe.label) }, queue: queue)
      request.cancel()
    }
    #expect(label == "tokens.tests.register")
  }
}
