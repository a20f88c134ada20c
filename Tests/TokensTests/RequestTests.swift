import TestSupport
import Testing
import Tokens

@Suite("CancellationRequest")
struct RequestTests {
  @Test func cancelCancelsTheTokenWithCancellationError() {
    let request = CancellationRequest()
    let token = request.token
    #expect(!request.isCancellationRequested)
    #expect(!token.isCancelled && !token.isCompleted)
    request.cancel()
    #expect(request.isCancellationRequested)
    #expect(token.isCancelled && token.isCompleted)
    #expect(token.reason is CancellationError)
    #expect(throws: CancellationError.self) { try token.throwIfCancelled() }
  }

  @Test func theFirstReasonWinsAndLaterCancelsReportFalse() {
    let request = CancellationRequest()
    #expect(request.cancel(reason: TestReason()))
    #expect(!request.cancel(reason: LeftReason()))
    request.cancel()
    #expect(request.token.reason is TestReason)
    #expect(throws: TestReason.self) { try request.token.throwIfCancelled() }
  }

  @Test func everyTokenOfARequestIsTheSameToken() {
    let request = CancellationRequest()
    #expect(request.token == request.token)
    #expect(request.token != CancellationRequest().token)
    #expect(Set([request.token, request.token]).count == 1)
  }

  @Test func aTokenCannotCancel() {
    // A token offers no `cancel`, and is not a `Cancelable` that `register(cancelable:)` could
    // call; only the request is.
    let request = CancellationRequest()
    #expect(!((request.token as Any) is any Cancelable))
    #expect((request as Any) is any Cancelable)
  }

  @Test func throwIfCancelledDoesNotThrowWhilePendingOrAfterClose() throws {
    let request = CancellationRequest()
    try request.token.throwIfCancelled()
    request.close()
    try request.token.throwIfCancelled()
  }

  @Test func deallocatingARequestCompletesItsTokenAsNotCancelled() {
    var request: CancellationRequest? = CancellationRequest()
    let token = request!.token
    let completions = Recorder<Bool>()
    let cancels = Counter()
    token.onComplete { completions.record($0) }
    token.onCancel { cancels.increment() }
    request = nil
    #expect(completions.values == [false])
    #expect(cancels.value == 0)
    #expect(token.isCompleted && !token.isCancelled)
    #expect(token.reason == nil)
  }

  @Test func deallocatingARequestFreesEveryHandlerClosure() {
    var request: CancellationRequest? = CancellationRequest()
    let token = request!.token
    weak var weakCancelCapture: Tracked?
    weak var weakCompleteCapture: Tracked?
    do {
      let cancelCapture = Tracked()
      let completeCapture = Tracked()
      weakCancelCapture = cancelCapture
      weakCompleteCapture = completeCapture
      token.onCancel { _ = cancelCapture }
      token.onComplete { _ in _ = completeCapture }
    }
    #expect(weakCancelCapture != nil && weakCompleteCapture != nil)
    request = nil
    #expect(weakCancelCapture == nil)
    #expect(weakCompleteCapture == nil)
    #expect(token.signal.storage.registrationCount == 0)
  }

  @Test func theTokenOutlivesItsRequestAndTheStateIsFreedWithTheLastToken() {
    var request: CancellationRequest? = CancellationRequest()
    var token: CancellationToken? = request!.token
    weak let weakStorage = token!.signal.storage
    request = nil
    #expect(weakStorage != nil)
    #expect(token!.isCompleted)
    token = nil
    #expect(weakStorage == nil)
  }

  @Test func closeCompletesAsNotCancelledAndLaterCancelsDoNothing() {
    let request = CancellationRequest()
    let completions = Recorder<Bool>()
    request.token.onComplete { completions.record($0) }
    #expect(request.close())
    #expect(!request.close())
    #expect(!request.cancel(reason: TestReason()))
    #expect(!request.isCancellationRequested && request.isCompleted)
    #expect(completions.values == [false])
  }

  @Test func deallocatingACancelledRequestChangesNothing() {
    var request: CancellationRequest? = CancellationRequest()
    let token = request!.token
    let completions = Recorder<Bool>()
    token.onComplete { completions.record($0) }
    request!.cancel()
    request = nil
    #expect(completions.values == [true])
    #expect(token.isCancelled)
  }

  @Test func noneIsCompletedAndNeverCancelled() {
    let none = CancellationToken.none
    #expect(none.isCompleted && !none.isCancelled && none.reason == nil)
    let completions = Recorder<Bool>()
    let cancels = Counter()
    #expect(!none.onComplete { completions.record($0) }.unregister())
    #expect(!none.onCancel { cancels.increment() }.unregister())
    #expect(completions.values == [false])
    #expect(cancels.value == 0)
  }

  @Test func debugDescriptionsNameTheState() {
    let request = CancellationRequest()
    #expect(request.debugDescription.contains("pending"))
    request.cancel(reason: TestReason())
    #expect(request.token.debugDescription.contains("cancelled"))
    #expect(CancellationToken.none.debugDescription.contains("not cancelled"))
  }

  @Test func aTokenWrapsAndExposesACoreSignal() {
    let source = CancelSource()
    let token = CancellationToken(source.signal)
    #expect(token.signal == source.signal)
    source.cancel(reason: TestReason())
    #expect(token.reason is TestReason)
  }

  @Test func cancelableIsTheCoreCancellableProtocol() {
    func takesCore(_ value: some Cancellable) -> Bool { true }
    let value: any Cancelable = CancellationRequest()
    #expect((value as Any) is any Cancellable)
    #expect(takesCore(CancellationRequest()))
  }
}
