/// The observer's view of a ``CancellationRequest``: it tells work whether to stop, and can
/// never cancel anything itself.
///
/// A token is a small value (one reference); copies observe the same request and compare equal.
/// All members are safe to use from any thread.
///
/// A token starts *pending* and **completes exactly once**: *cancelled* (with a ``reason``) when
/// its request is cancelled, or *not cancelled* when its request completes without cancellation
/// (it was closed or deallocated), after which it can never be cancelled. Work can poll it
/// (``isCancelled``, ``throwIfCancelled()``), register handlers
/// (``onCancel(on:_:)-(_,()->Void)``, ``onComplete(on:_:)``, ``register(cancelable:on:)``), or
/// await it (``cancelled()``).
///
/// Handlers follow the rules of the whole package:
/// - each runs **exactly once or never**; without a queue, **synchronously on the thread that
///   completes the token**, after the state has changed (a handler sees ``isCancelled`` and
///   ``reason``), and never while a lock of this package is held, so it may re-enter freely;
/// - they run **last registered, first run**, as Swift's `Task` and .NET run theirs;
/// - registering on a token that already completed runs the handler at once on the registering
///   thread (a cancel handler on a token completed without cancellation is released at once);
/// - every closure is released when the token completes.
///
/// Tokens combine: ``map(_:)``, ``flatMap(_:)``, `&&` and `||` derive new tokens that complete
/// once their operands have (see <doc:CombiningTokens>).
public struct CancellationToken: Sendable, Hashable {
  /// The core signal this token wraps: pass it to code written against `CancelCore`.
  public let signal: CancelSignal

  /// Wraps a core signal, so a `CancelSource` can drive code written against tokens.
  ///
  /// - Parameter signal: the signal to observe; the token completes when its source ends.
  @inlinable public init(_ signal: CancelSignal) {
    self.signal = signal
  }

  /// Wraps the storage of a request (or of a derived token).
  @inlinable package init(storage: CancelStorage) {
    signal = CancelSignal(storage: storage)
  }

  @inlinable var storage: CancelStorage { signal.storage }

  /// A token that is never cancelled: it has already completed as not cancelled.
  ///
  /// Pass it to APIs that take a token when you have nothing to cancel with. Completion handlers
  /// registered on it run at once with `false`; cancel handlers are released at once.
  ///
  /// - Note: where the expected type is `CancellationToken?`, `.none` means `Optional.none`;
  ///   write `CancellationToken.none` there.
  public static let none = CancellationToken(.never)

  /// Whether the request has been cancelled. A single atomic load; no lock.
  @inlinable public var isCancelled: Bool { storage.isCancelled }

  /// Whether the token has completed, cancelled or not. A single atomic load; no lock.
  ///
  /// Once `true`, ``isCancelled`` never changes again.
  @inlinable public var isCompleted: Bool { storage.isCompleted }

  /// The first reason the request was cancelled with, or `nil` while the token is not cancelled.
  ///
  /// `CancellationError()` after a plain ``CancellationRequest/cancel()``, `TimeoutError` after a
  /// deadline, the linked token's reason after a linked cancellation.
  public var reason: (any Error)? { storage.reason }

  /// The record of the request's cancel: why, when, where from (the `cancel` call, or where the
  /// deadline was set), what started it and the labelled requests it went through to reach this
  /// token. `nil` until the token is cancelled, and the same value every time after.
  ///
  /// ```swift
  /// if let record = token.cancellationRecord { logger.info("\(record)") }
  /// // cancelled by CancellationError() at 12:00:03.250 — call of "GET /users"
  /// // (UserService.swift:42 in handle(_:)) → link → "db query"
  /// ```
  public var cancellationRecord: CancellationRecord? { storage.cancellationRecord }

  /// The label the token's request was created with, if any.
  public var label: String? { storage.label }

  /// The token's state now: active, cancelled (with the reason) or closed (completed without
  /// cancellation).
  public var phase: CancelPhase { storage.phase }

  /// Throws the cancellation ``reason`` if the token has been cancelled.
  ///
  /// The common path (not cancelled) is one atomic load.
  ///
  /// - Throws: the reason the request was cancelled with (`CancellationError()` by default).
  @inlinable public func throwIfCancelled() throws {
    try signal.checkCancellation()
  }

  /// Whether the token completed without cancellation (it can never be cancelled now).
  @inlinable var isClosed: Bool { storage.isCompleted && !storage.isCancelled }

  /// Two tokens are equal when they observe the same state.
  public static func == (lhs: CancellationToken, rhs: CancellationToken) -> Bool { lhs.signal == rhs.signal }

  /// Hashes the identity of the observed state.
  public func hash(into hasher: inout Hasher) { hasher.combine(signal) }
}

extension CancellationToken: CustomDebugStringConvertible {
  /// The token's state, for debugging: active, cancelled (with its ``cancellationRecord`` in one
  /// line) or completed.
  public var debugDescription: String { "CancellationToken(\(stateDescription))" }

  var stateDescription: String {
    switch phase {
    case .active: return "pending"
    case .cancelled(let reason): return cancellationRecord?.description ?? "cancelled: \(reason)"
    case .closed: return "completed, not cancelled"
    }
  }
}
