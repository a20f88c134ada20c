import Dispatch

extension CancellationToken {
  /// Runs `handler` when the token is cancelled.
  ///
  /// - Without a queue, `handler` runs synchronously on the thread that cancels, newest handler
  ///   first, before `cancel` returns (a `cancel` made inside a handler of a cancel running on
  ///   that thread returns first: the handlers run as soon as the handler that called it
  ///   returns). If the token is already cancelled it runs now, on this thread, before this
  ///   method returns.
  /// - With a queue, `handler` is submitted to `queue` with `async` at those moments instead, and
  ///   never runs on the cancelling thread (unless that thread is serving `queue`).
  ///
  /// If the token completes without cancellation (or already has), `handler` never runs and is
  /// released at once.
  ///
  /// - Parameters:
  ///   - queue: where to run `handler`; `nil` (the default) runs it synchronously as described.
  ///   - handler: the code to run; it may re-enter the token or any request freely. It is
  ///     `sending`, so it may capture a handle that is not `Sendable` (a `DispatchWorkItem`, a
  ///     subprocess) that the caller does not use afterwards; it runs at most once.
  /// - Returns: a handle whose ``CancellationRegistration/unregister()`` removes `handler` before
  ///   it runs.
  @inlinable @discardableResult
  public func onCancel(
    on queue: DispatchQueue? = nil, _ handler: sending @escaping () -> Void
  ) -> CancellationRegistration {
    // Inlined so the common case costs exactly the core's `onCancel`.
    guard let queue else { return CancellationRegistration(signal.onCancel(handler)) }
    // Safety: sent, and run at most once on one thread (see `CancelSignal.onCancel`).
    return onCancel(submittingTo: queue, unsafeBitCast(handler, to: (@Sendable () -> Void).self))
  }

  @usableFromInline
  func onCancel(submittingTo queue: DispatchQueue, _ handler: @escaping @Sendable () -> Void)
    -> CancellationRegistration
  {
    CancellationRegistration(signal.onCancel { queue.async(execute: handler) })
  }

  /// Runs `handler` with the cancellation reason when the token is cancelled.
  ///
  /// Same rules as ``onCancel(on:_:)-(_,()->Void)``; the reason is the first one the request was
  /// cancelled with.
  ///
  /// - Parameters:
  ///   - queue: where to run `handler`; `nil` (the default) runs it synchronously.
  ///   - handler: the code to run, given the reason; `sending`, as for the form without a reason.
  /// - Returns: a handle whose ``CancellationRegistration/unregister()`` removes `handler` before
  ///   it runs.
  @inlinable @discardableResult
  public func onCancel(
    on queue: DispatchQueue? = nil, _ handler: sending @escaping (_ reason: any Error) -> Void
  ) -> CancellationRegistration {
    guard let queue else { return CancellationRegistration(signal.onCancel(handler)) }
    // Safety: sent, and run at most once on one thread (see `CancelSignal.onCancel`).
    return onCancel(submittingTo: queue, unsafeBitCast(handler, to: (@Sendable (any Error) -> Void).self))
  }

  @usableFromInline
  func onCancel(
    submittingTo queue: DispatchQueue, _ handler: @escaping @Sendable (_ reason: any Error) -> Void
  ) -> CancellationRegistration {
    CancellationRegistration(signal.onCancel { (reason: any Error) in queue.async { handler(reason) } })
  }

  /// Runs `handler` once the token completes, with whether it was cancelled.
  ///
  /// `handler` gets `true` when the request is cancelled and `false` when the request completes
  /// without cancellation (closed or deallocated). It runs exactly once, at that moment, under the
  /// same threading rules as ``onCancel(on:_:)-(_,()->Void)``; on a token that already completed
  /// it runs now (or is submitted to `queue` now) with that outcome.
  ///
  /// - Parameters:
  ///   - queue: where to run `handler`; `nil` (the default) runs it synchronously on the thread
  ///     that completes the token.
  ///   - handler: the code to run, given whether the token was cancelled.
  /// - Returns: a handle whose ``CancellationRegistration/unregister()`` removes `handler` before
  ///   it runs.
  @inlinable @discardableResult
  public func onComplete(
    on queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (_ cancelled: Bool) -> Void
  ) -> CancellationRegistration {
    guard let queue else { return CancellationRegistration(signal.onComplete(handler)) }
    return onComplete(submittingTo: queue, handler)
  }

  @usableFromInline
  func onComplete(
    submittingTo queue: DispatchQueue, _ handler: @escaping @Sendable (_ cancelled: Bool) -> Void
  ) -> CancellationRegistration {
    CancellationRegistration(signal.onComplete { cancelled in queue.async { handler(cancelled) } })
  }

  /// Calls `cancelable.cancel()` when the token is cancelled; a cancelable that can take a reason
  /// (`CancellableWithReason`: a request, a core source, a cancellable promise chain) is cancelled
  /// with the token's reason instead (`cancel(dueTo:)`), so a chain registered on a timeout
  /// rejects with the `TimeoutError`.
  ///
  /// **A class instance of yours is held weakly**: registering does not keep it alive, and if it
  /// has been deallocated by the time the token is cancelled, nothing happens. A value type
  /// (Swift's `Task`, for instance) is held as a copy until the token completes; on a long-lived
  /// token, unregister it when the cancelable finishes so it does not wait there.
  ///
  /// **The package's handles are held strongly** (a `CancellableHandle`: a future's
  /// `CancelToken`, a `CancellablePromise`, the `CancellableFinalizer` a cancellable chain's
  /// `catch` returns), so that a handle made just to be registered
  /// (`register(cancelable: future.getCancelToken())`) still works. The registration is removed,
  /// and the handle released, as soon as the handle's work ends (its future completed, its promise
  /// settled, its chain ended) or the token completes, whichever comes first.
  ///
  /// Threading follows ``onCancel(on:_:)-(_,()->Void)``: synchronously on the cancelling thread
  /// by default, or submitted to `queue`. On a token that is already cancelled, `cancel()` is
  /// called now (or submitted now).
  ///
  /// - Parameters:
  ///   - cancelable: the work to cancel: a request, a promise, a future's cancel token, a `Task`,
  ///     or any `Cancelable` of yours.
  ///   - queue: where to call `cancel()`; `nil` (the default) calls it synchronously.
  /// - Returns: a handle whose ``CancellationRegistration/unregister()`` removes the registration.
  @discardableResult
  public func register(cancelable: some Cancelable, on queue: DispatchQueue? = nil) -> CancellationRegistration {
    if let handle = cancelable as? any CancellableHandle { return register(handle: handle, on: queue) }
    return onCancel(on: queue, Self.cancelAction(for: cancelable))
  }

  /// Registers a handle strongly, until this token or the handle's work ends.
  private func register(handle: any CancellableHandle, on queue: DispatchQueue?) -> CancellationRegistration {
    onCancel(on: queue) { (reason: any Error) in Self.cancel(handle, reason: reason) }.removed(whenWorkOf: handle)
  }

  /// couchdeveloper/Cancellation's spelling of ``register(cancelable:on:)``; here the queue is
  /// honoured.
  ///
  /// - Parameters:
  ///   - cancelable: the work to cancel; a class instance of yours is held weakly, a handle of
  ///     this package strongly (see ``register(cancelable:on:)``).
  ///   - queue: where to call `cancel()`.
  /// - Returns: a handle whose ``CancellationRegistration/unregister()`` removes the registration.
  @discardableResult
  public func register(cancelable: some Cancelable, queue: DispatchQueue) -> CancellationRegistration {
    register(cancelable: cancelable, on: queue)
  }

  /// A closure that cancels `cancelable` with the token's reason where it can take one, holding a
  /// class instance weakly and a value strongly.
  static func cancelAction<C: Cancelable>(for cancelable: C) -> @Sendable (_ reason: any Error) -> Void {
    // The metatype test is resolved when the function is specialized; the cast then only opens
    // the existential so the instance can be captured weakly.
    if C.self is AnyObject.Type, let object = cancelable as? any Cancelable & AnyObject {
      return { [weak object] reason in
        guard let object else { return }
        Self.cancel(object, reason: reason)
      }
    }
    return { reason in Self.cancel(cancelable, reason: reason) }
  }

  /// Cancels `cancelable` with `reason` if it can carry one, plainly otherwise.
  static func cancel(_ cancelable: some Cancelable, reason: any Error) {
    if let withReason = cancelable as? any CancellableWithReason {
      withReason.cancel(dueTo: reason)
    } else {
      cancelable.cancel()
    }
  }
}
