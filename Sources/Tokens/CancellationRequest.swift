/// The authority that requests cancellation: it owns the state its ``token`` lets others observe.
///
/// Create a request, hand its ``token`` to the work you start, and keep the request to yourself:
/// only the request can cancel, a token never can.
///
/// ```swift
/// let request = CancellationRequest()
/// download(url, cancellationToken: request.token)
/// request.cancel()
/// ```
///
/// A request ends exactly once, and the first of these wins:
/// - **cancelled** by ``cancel()`` or ``cancel(reason:fileID:line:function:)``, by a token it is linked to
///   (``init(linkedTo:label:)-(CancellationToken...,String?)``), or by its deadline (``cancel(after:scheduler:fileID:line:function:)``);
/// - **completed without cancellation** by ``close()`` or by being deallocated. Nobody can cancel
///   it any more, so its token's completion handlers run with `false`, its cancel handlers are
///   released without running, and everything the handlers captured is freed.
///
/// All members are safe to call from any thread. Handlers run synchronously on the thread that
/// ends the request, newest first, before the call returns (see ``CancellationToken``), or, for a
/// call made inside a handler of a cancel running on the same thread, as soon as that handler
/// returns: handlers that cancel each other never nest.
public final class CancellationRequest: CancellableWithReason, Sendable {
  /// The shared state, held directly: a request costs exactly what a `CancelSource` costs.
  @usableFromInline package let storage: CancelStorage

  /// Creates a request that has not been cancelled.
  public init() {
    storage = CancelStorage()
  }

  /// Creates a request named `label` in cancellation records (`CancellationRecord`): a hop of
  /// every path a cancel takes through it, e.g. `"GET /users"`. Stored only when given.
  public init(label: String?) {
    storage = CancelStorage(label: label)
  }

  /// Creates a request that is also cancelled when any of `tokens` is, with that token's reason.
  ///
  /// A token that is already cancelled cancels the new request at once. A token that completes
  /// without cancellation simply stops mattering; the request stays cancellable by its owner.
  /// Each link is removed as soon as this request ends, so a long-lived token does not collect
  /// the links of requests that are gone.
  ///
  /// - Parameters:
  ///   - tokens: the tokens whose cancellation this request follows (any of them).
  ///   - label: the request's name in cancellation records (`CancellationRecord`), if any.
  public convenience init(linkedTo tokens: some Sequence<CancellationToken>, label: String? = nil) {
    self.init(label: label)
    for token in tokens { _ = storage.link(to: token.signal.storage) }
  }

  /// Creates a request that is also cancelled when any of `tokens` is, with that token's reason.
  ///
  /// See ``init(linkedTo:label:)-(Sequence<CancellationToken>,String?)``.
  ///
  /// - Parameters:
  ///   - tokens: the tokens whose cancellation this request follows (any of them).
  ///   - label: the request's name in cancellation records (`CancellationRecord`), if any.
  public convenience init(linkedTo tokens: CancellationToken..., label: String? = nil) {
    self.init(linkedTo: tokens, label: label)
  }

  deinit {
    // The owner is gone, so nobody can cancel any more: complete the token as not cancelled.
    _ = storage.close()
  }

  /// The observer's view of this request, to hand to the work it may cancel.
  ///
  /// Every access returns a token for the same state; tokens compare equal to each other.
  @inlinable public var token: CancellationToken { CancellationToken(storage: storage) }

  /// Whether a cancellation has been requested (by ``cancel()``, a linked token or a deadline).
  ///
  /// A single atomic load; no lock.
  @inlinable public var isCancellationRequested: Bool { storage.isCancelled }

  /// Whether the request has ended, cancelled or completed without cancellation.
  @inlinable public var isCompleted: Bool { storage.isCompleted }

  /// Requests cancellation with Swift's `CancellationError()` as the reason.
  ///
  /// Does nothing if the request already ended. Otherwise the token's cancel and completion
  /// handlers run synchronously on this thread, newest first, before this method returns (called
  /// inside a handler of a cancel running on this thread: as soon as that handler returns).
  ///
  /// The call's file, line and function go into the token's `CancellationRecord`; leave the
  /// defaults.
  public func cancel(fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
    _ = storage.cancelWithDefaultReason(origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// `Cancellable`'s `cancel()`, for a request seen as `any Cancellable`: as
  /// ``cancel(fileID:line:function:)``, but the record has no origin (a protocol requirement cannot
  /// capture its caller).
  @_disfavoredOverload
  public func cancel() {
    _ = storage.cancelWithDefaultReason()
  }

  /// Requests cancellation with `reason`, unless the request already ended.
  ///
  /// The handlers run synchronously on this thread, newest first, before this method returns (or,
  /// called inside a handler of a cancel running on this thread, as soon as that handler returns); a
  /// handler sees ``CancellationToken/isCancelled`` `== true` and this reason. Requests linked to
  /// this one's token are cancelled with the same reason.
  ///
  /// - Parameters:
  ///   - reason: the error observers read from ``CancellationToken/reason`` and that
  ///     ``CancellationToken/throwIfCancelled()`` throws. The first reason wins.
  ///   - fileID: recorded as where the cancel started (`CancellationRecord`); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  /// - Returns: `true` if this call cancelled the request; `false` if it had already been
  ///   cancelled (the first reason stays) or completed.
  @discardableResult
  public func cancel(
    reason: any Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) -> Bool {
    storage.cancel(reason: reason, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// ``cancel(reason:fileID:line:function:)`` for `CancellableWithReason` (what ``CancellationToken/register(cancelable:on:)``
  /// calls, so a request registered on a token is cancelled with that token's reason).
  ///
  /// Its record has no call site (a protocol requirement cannot capture its caller). Called by a
  /// cancel handler of another token or source (``CancellationToken/register(cancelable:on:)``
  /// registers one), the record shows the cancel as arriving from it through a link.
  ///
  /// - Parameter reason: the reason (the first one wins).
  public func cancel(dueTo reason: any Error) {
    _ = storage.cancel(dueTo: reason)
  }

  /// Ends the request without cancelling it, as deallocating it would, but now.
  ///
  /// Completion handlers run with `false` on this thread before this method returns, cancel
  /// handlers are released without running, links to other tokens are removed and a pending
  /// deadline is stopped. Use it when the work is done and the request may live on.
  ///
  /// - Returns: `true` if this call ended the request; `false` if it had already ended.
  @discardableResult
  public func close() -> Bool {
    storage.close()
  }

  /// The record of this request's cancel (why, when, where from, along which links); `nil` until
  /// it is cancelled, and the same value every time after. The same as its token's.
  public var cancellationRecord: CancellationRecord? { storage.cancellationRecord }

  /// The label this request was created with, if any.
  public var label: String? { storage.label }
}

extension CancellationRequest: CustomDebugStringConvertible {
  /// The request's state, for debugging: active, cancelled (with the reason) or completed.
  public var debugDescription: String {
    "CancellationRequest(\(token.stateDescription))"
  }
}
