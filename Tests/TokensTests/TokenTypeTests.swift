import Dispatch
import TestSupport
import Testing
import Tokens

/// A foreign token: driven by a core source, but implementing only the protocol's requirements.
struct ForeignToken: CancellationTokenType {
  let source: CancelSource

  var isCancelled: Bool { source.isCancelled }
  var isCompleted: Bool { source.isCompleted }

  func onComplete(
    on queue: DispatchQueue?, _ handler: @escaping @Sendable (_ cancelled: Bool) -> Void
  ) -> CancellationRegistration {
    let registration = source.signal.onComplete { cancelled in
      if let queue { queue.async { handler(cancelled) } } else { handler(cancelled) }
    }
    return CancellationRegistration(unregister: { registration.unregister() })
  }
}

@Suite("CancellationTokenType")
struct TokenTypeTests {
  @Test func aForeignTokenGetsOnCancelThrowIfCancelledAndADefaultReason() throws {
    let source = CancelSource()
    let foreign = ForeignToken(source: source)
    let cancels = Counter()
    let registration = foreign.onCancel { cancels.increment() }
    foreign.onCancel { cancels.increment() }
    try foreign.throwIfCancelled()
    #expect(foreign.reason == nil)
    #expect(registration.unregister())
    source.cancel(reason: TestReason())
    #expect(cancels.value == 1)
    #expect(foreign.reason is CancellationError, "the protocol's default reason")
    #expect(throws: CancellationError.self) { try foreign.throwIfCancelled() }
  }

  @Test func aForeignTokenBridgesToACancellationTokenThatCompletesAsItDoes() {
    let cancelled = CancelSource()
    let closed = CancelSource()
    let bridged = CancellationToken(ForeignToken(source: cancelled))
    let bridgedClosed = ForeignToken(source: closed).cancellationToken
    let combined = bridged || bridgedClosed
    #expect(!combined.isCompleted)
    closed.close()
    #expect(bridgedClosed.isCompleted && !bridgedClosed.isCancelled)
    cancelled.cancel()
    #expect(bridged.isCancelled && combined.isCancelled)
  }

  @Test func bridgingACancellationTokenReturnsItself() {
    let request = CancellationRequest()
    #expect(CancellationToken(request.token) == request.token)
    #expect(request.token.cancellationToken == request.token)
  }

  @Test func aForeignTokenRegistersCancelablesWeakly() {
    let source = CancelSource()
    let foreign = ForeignToken(source: source)
    let kept = CountingCancelable()
    weak var weakDropped: CountingCancelable?
    do {
      let dropped = CountingCancelable()
      weakDropped = dropped
      foreign.register(cancelable: dropped)
    }
    foreign.register(cancelable: kept)
    #expect(weakDropped == nil)
    source.cancel()
    #expect(kept.count.value == 1)
  }

  @Test func genericCodeWorksWithEitherKindOfToken() async {
    func wait(for token: some CancellationTokenType) async -> Bool { await token.cancelled() }
    let source = CancelSource()
    source.cancel()
    #expect(await wait(for: ForeignToken(source: source)))
    let request = CancellationRequest()
    request.close()
    #expect(await !wait(for: request.token))
  }

  @Test func aForeignTokenMayHonourAQueueThroughTheExtension() async {
    let source = CancelSource()
    let queue = QueueProbe.make("tokens.tests.foreign")
    let label: String? = await withCheckedContinuation { continuation in
      ForeignToken(source: source).onCancel(on: queue) { continuation.resume(returning: QueueProbe.label) }
      source.cancel()
    }
    #expect(label == "tokens.tests.foreign")
  }
}
