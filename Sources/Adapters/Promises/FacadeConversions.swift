import CancelCore
import Futures
import Promises
import Tokens

extension Future {
  /// A cancellable promise that resolves like this future; cancelling it requests the future's
  /// cancellation.
  ///
  /// The promise is a branch of its own: the request follows the rules of a cancellation tree
  /// (it reaches the producer only if no other consumer still wants the future). As every
  /// cancellable chain does, the cancel rejects the promise at once. A future that ends
  /// `.cancelled` rejects the promise with `PMKError.cancelled`.
  ///
  /// - Returns: the promise.
  public func asCancellablePromise() -> CancellablePromise<T> {
    let branch: Future<T> = onComplete(.immediate) { Completion($0) }
    let request = branch.getCancelToken()
    return CancellablePromise { (resolver: Resolver<T>) in
      branch.onComplete(.immediate) { result in
        switch result {
        case .success(let value): resolver.fulfill(value)
        case .fail(let error): resolver.reject(error)
        case .cancelled: resolver.reject(PMKError.cancelled)
        }
      }
      return { request.cancel([], origin: .unknown) }
    }
  }
}

extension CancellablePromise {
  /// A future that completes like this promise; a cancel request on the future cancels the
  /// promise's chain.
  ///
  /// A rejection that `Error.isCancellation` classifies as a cancellation (`PMKError.cancelled`,
  /// `CancellationError`, …) completes the future `.cancelled`; any other rejection completes it
  /// with `.fail(error)`.
  ///
  /// - Returns: the future.
  public func asFuture() -> Future<T> {
    let producer = Futures.Promise<T>()
    let context = cancelContext
    producer.onRequestCancel(passingOrigin: { _, origin in
      // The chain's record names the request's call site, not this one.
      context.cancel(error: CancelContext.defaultError, origin: origin)
      return .continue  // the chain's rejection, synchronous, completes the future
    })
    promise.pipe { result in
      switch result {
      case .success(let value): producer.completeWithSuccess(value)
      case .failure(let error) where error.isCancellation:
        producer.completeWithCancel(linkedTo: { context.cancellationRecord })
      case .failure(let error): producer.completeWithFail(error)
      }
    }
    return producer.future
  }
}

extension CancellationToken {
  /// A promise that rejects when this token is cancelled and fulfils when it completes without
  /// cancellation: CancellablePromiseKit's "cancel promise", for `when(_:while:)` and
  /// `CancellablePromise(wrapper:)`-style code.
  ///
  /// The rejection error is the token's reason (`CancellationError()` by default), which
  /// `isCancelled` recognises.
  ///
  /// The promise leaves the token once nobody holds it any more (for example when the
  /// `when(_:while:)` calls it was given to finished): a long-lived token keeps nothing of the
  /// cancel promises made from it that are gone. A promise freed while still pending reports
  /// nothing to `conf.logHandler`.
  ///
  /// - Returns: the promise.
  public func asCancelPromise() -> Promises.Promise<Void> {
    let promise = Promises.Promise<Void>.pendingQuietly()
    // The token holds the promise weakly; the promise holds the registration, which leaves the
    // token when the promise settles or is freed.
    let registration = onComplete { [self, weak promise] cancelled in
      promise?.settleFromPackage(cancelled ? .failure(reason ?? PMKError.cancelled) : .success(()))
    }
    let leave = LeaveTokenOnRelease(registration)
    promise.pipe { _ in withExtendedLifetime(leave) {} }
    return promise
  }

  /// A token that observes a cancellable promise chain: it is cancelled, with the chain's
  /// cancellation error, when the chain is cancelled (by any member, its context or a finalizer).
  ///
  /// Token-style code given this token stops when the chain is cancelled. A chain that finishes
  /// without being cancelled leaves the token pending (a context can always still be cancelled).
  ///
  /// - Parameter context: the chain's context (`promise.cancelContext`).
  public init(_ context: CancelContext) {
    self.init(context.signal)
  }
}

extension CancellationToken {
  /// Requests `future`'s cancellation (with `options`) when this token is cancelled.
  ///
  /// Unlike `register(cancelable: future.getCancelToken())`, which holds the `CancelToken` (and
  /// through it the future) until the future ends or this token completes, this holds the future
  /// weakly — a future nobody holds any more is skipped — and makes the request object only when
  /// the token is cancelled.
  ///
  /// - Parameters:
  ///   - future: the future to request.
  ///   - options: how the request travels (see `CancellationOptions`).
  /// - Returns: a registration; `unregister()` it when the future no longer needs the token.
  @discardableResult
  public func register<T>(future: Future<T>, options: CancellationOptions = []) -> CancellationRegistration {
    onCancel { [weak future] in future?.getCancelToken().cancel(options, origin: .unknown) }
  }
}

/// Unregisters a token registration when released: kept by a promise's callback, it leaves the
/// token when the promise settles (the callback runs and is released) or is freed (its callbacks
/// are released with it).
private final class LeaveTokenOnRelease: Sendable {
  let registration: CancellationRegistration

  init(_ registration: CancellationRegistration) {
    self.registration = registration
  }

  deinit {
    registration.unregister()
  }
}
