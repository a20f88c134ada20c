import Dispatch

/// What a token from elsewhere provides to work with this library's tokens.
///
/// Conform a foreign token type (another library's, or a test double) by implementing the three
/// requirements; everything else comes from the extension: ``onCancel(on:_:)``,
/// ``register(cancelable:on:)``, ``throwIfCancelled()``, ``cancelled()``, ``reason`` and the
/// bridge ``cancellationToken``, which turns any conforming token into a ``CancellationToken``
/// usable with `&&`, `||`, ``CancellationRequest/init(linkedTo:label:)-(CancellationToken...,String?)`` and
/// every API that takes one.
///
/// The contract a conforming type must keep (``CancellationToken`` keeps it):
/// - it completes **at most once**, *cancelled* or *not cancelled*, and never changes afterwards;
///   ``isCancelled`` and ``isCompleted`` read that state from any thread;
/// - ``onComplete(on:_:)`` runs its handler **exactly once** when the token completes (or at once
///   if it already has), with whether it was cancelled, on `queue` if one is given; and it returns
///   a registration whose ``CancellationRegistration/unregister()`` removes the handler before it
///   runs (build one with ``CancellationRegistration/init(unregister:)``, or return
///   ``CancellationRegistration/inert`` when the handler already ran).
///
/// Compared with couchdeveloper/Cancellation's protocol of the same name, `map`, `flatMap` and
/// `register(cancelable:)` are no longer requirements: they are provided once, correctly, for
/// every conformer (through ``cancellationToken``).
public protocol CancellationTokenType: Sendable {
  /// Whether the token was cancelled. Must be cheap and safe from any thread.
  var isCancelled: Bool { get }

  /// Whether the token has completed, cancelled or not. Must be cheap and safe from any thread.
  var isCompleted: Bool { get }

  /// The reason the token was cancelled, or `nil` while it is not cancelled.
  ///
  /// The default is `CancellationError()` once ``isCancelled`` is `true`.
  var reason: (any Error)? { get }

  /// Runs `handler` exactly once when the token completes, with whether it was cancelled.
  ///
  /// - Parameters:
  ///   - queue: where to run `handler`; `nil` means synchronously on the thread that completes the
  ///     token (or on this thread, now, if it already completed).
  ///   - handler: the code to run.
  /// - Returns: a handle that removes `handler` before it runs.
  @discardableResult
  func onComplete(
    on queue: DispatchQueue?, _ handler: @escaping @Sendable (_ cancelled: Bool) -> Void
  ) -> CancellationRegistration

  /// This token as a ``CancellationToken``, to combine it or pass it where one is expected.
  ///
  /// The default creates a token that completes as this one does (with ``reason``), driven by
  /// one ``onComplete(on:_:)`` handler.
  var cancellationToken: CancellationToken { get }
}

extension CancellationTokenType {
  /// `CancellationError()` once the token is cancelled, `nil` before.
  public var reason: (any Error)? { isCancelled ? CancellationError() : nil }

  /// A ``CancellationToken`` that completes as this token does, with its ``reason``.
  public var cancellationToken: CancellationToken {
    let storage = CancelStorage()
    let token = self
    _ = onComplete(on: nil) { cancelled in
      if cancelled {
        _ = storage.cancel(reason: token.reason ?? CancellationError())
      } else {
        _ = storage.close()
      }
    }
    return CancellationToken(storage: storage)
  }

  /// Runs `handler` once the token completes, synchronously on the thread that completes it (or
  /// now, if it already has). See ``onComplete(on:_:)``.
  ///
  /// - Parameter handler: the code to run, given whether the token was cancelled.
  /// - Returns: a handle that removes `handler` before it runs.
  @discardableResult
  public func onComplete(_ handler: @escaping @Sendable (_ cancelled: Bool) -> Void) -> CancellationRegistration {
    onComplete(on: nil, handler)
  }

  /// Runs `handler` if the token is cancelled; if it completes without cancellation, `handler`
  /// never runs.
  ///
  /// - Parameters:
  ///   - queue: where to run `handler`; `nil` (the default) runs it synchronously.
  ///   - handler: the code to run.
  /// - Returns: a handle that removes `handler` before it runs.
  @discardableResult
  public func onCancel(
    on queue: DispatchQueue? = nil, _ handler: @escaping @Sendable () -> Void
  ) -> CancellationRegistration {
    onComplete(on: queue) { cancelled in if cancelled { handler() } }
  }

  /// Calls `cancelable.cancel()` if the token is cancelled; a class instance of yours is held
  /// weakly, a handle of this package strongly until the token or the handle's work ends.
  ///
  /// See ``CancellationToken/register(cancelable:on:)``.
  ///
  /// - Parameters:
  ///   - cancelable: the work to cancel.
  ///   - queue: where to call `cancel()`; `nil` (the default) calls it synchronously.
  /// - Returns: a handle that removes the registration.
  @discardableResult
  public func register(cancelable: some Cancelable, on queue: DispatchQueue? = nil) -> CancellationRegistration {
    if let handle = cancelable as? any CancellableHandle {
      return onComplete(on: queue) { [self] cancelled in
        if cancelled { CancellationToken.cancel(handle, reason: reason ?? CancellationError()) }
      }.removed(whenWorkOf: handle)
    }
    let cancel = CancellationToken.cancelAction(for: cancelable)
    return onComplete(on: queue) { [self] cancelled in
      if cancelled { cancel(reason ?? CancellationError()) }
    }
  }

  /// Throws ``reason`` if the token is cancelled.
  ///
  /// - Throws: the cancellation reason (`CancellationError()` by default).
  public func throwIfCancelled() throws {
    if isCancelled { throw reason ?? CancellationError() }
  }

  /// Suspends until the token completes or the awaiting task is cancelled.
  ///
  /// See ``CancellationToken/cancelled()``.
  ///
  /// - Returns: whether the token is cancelled when the wait ends.
  @discardableResult
  public func cancelled() async -> Bool {
    await cancellationToken.cancelled()
  }
}

extension CancellationToken: CancellationTokenType {
  /// This token itself.
  @inlinable public var cancellationToken: CancellationToken { self }

  /// Wraps any conforming token: the token itself for a ``CancellationToken``, otherwise a token
  /// that completes as `token` does.
  ///
  /// - Parameter token: the token to follow.
  public init(_ token: some CancellationTokenType) {
    self = token.cancellationToken
  }
}
