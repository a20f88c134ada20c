import Adapters
import Futures
import Promises
import TestSupport
import Testing
import Tokens

/// `token.register(cancelable:)` holds the package's handle types strongly (a temporary handle is
/// the usual way to register one) until the token completes or their work ends.
@Suite("register(cancelable:) with the package's handle types")
struct RegisterHandleTests {
  @Test func aFuturesCancelTokenPassedAsATemporaryIsRequested() {
    let request = CancellationRequest()
    let producer = Futures.Promise<Int>()
    let requests = Counter()
    producer.onRequestCancel(.immediate) { _ in
      requests.increment()
      return .complete(.cancelled)
    }
    request.token.register(cancelable: producer.future.getCancelToken())
    request.cancel()
    #expect(requests.value == 1, "the request reached the producer")
    #expect(producer.future.result?.isCancelled == true)
  }

  @Test func aCancellableFinalizerPassedAsATemporaryCancelsItsChain() {
    let request = CancellationRequest()
    let (root, _) = CancellablePromise<Int>.pending()
    let caught = Recorder<Bool>()
    request.token.register(
      cancelable: root.map(on: nil) { $0 + 1 }.catch(on: nil, policy: .allErrors) { caught.record($0.isCancelled) })
    request.cancel()
    #expect(root.isRejected && root.isCancelled, "the chain was cancelled")
    #expect(caught.values == [true])
  }

  @Test func aCancellablePromisePassedAsATemporaryIsCancelled() {
    let request = CancellationRequest()
    let (root, _) = CancellablePromise<Int>.pending()
    request.token.register(cancelable: root.map(on: nil) { $0 + 1 })
    request.cancel()
    #expect(root.isCancelled)
  }

  @Test func aHandleIsReleasedWhenItsWorkEndsThoughTheTokenLivesOn() {
    let request = CancellationRequest()
    weak var weakToken: CancelToken?
    weak var weakFinalizer: CancellableFinalizer?
    weak var weakMember: CancellablePromise<Int>?
    do {
      let producer = Futures.Promise<Int>()
      let token = producer.future.getCancelToken()
      weakToken = token
      request.token.register(cancelable: token)
      producer.completeWithSuccess(1)

      let (root, resolver) = CancellablePromise<Int>.pending()
      let member = root.map(on: nil) { $0 + 1 }
      weakMember = member
      request.token.register(cancelable: member)
      let finalizer = member.catch(on: nil) { _ in }
      weakFinalizer = finalizer
      request.token.register(cancelable: finalizer)
      resolver.fulfill(1)
    }
    #expect(weakToken == nil, "a future's token is released once the future completed")
    #expect(weakMember == nil, "a member is released once it settled")
    #expect(weakFinalizer == nil, "a finalizer is released once its chain ended")
    #expect(!request.isCancellationRequested)
  }

  @Test func aHandleIsReleasedWhenTheTokenCompletes() {
    weak var weakToken: CancelToken?
    let producer = Futures.Promise<Int>()
    do {
      let request = CancellationRequest()
      let token = producer.future.getCancelToken()
      weakToken = token
      request.token.register(cancelable: token)
    }
    #expect(weakToken == nil, "the request ended without cancelling: its registrations are released")
    producer.completeWithSuccess(1)
  }

  @Test func anObjectOfYoursIsStillHeldWeakly() {
    let request = CancellationRequest()
    weak var weakRequest: CancellationRequest?
    do {
      let other = CancellationRequest()
      weakRequest = other
      request.token.register(cancelable: other)
    }
    #expect(weakRequest == nil)
    request.cancel()
  }
}
