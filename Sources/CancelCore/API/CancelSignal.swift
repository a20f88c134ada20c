/// The observer's view of a ``CancelSource``: it can watch for cancellation but never cause it.
///
/// Hand signals to the work you start; keep the source to yourself. A signal is a small value
/// (one reference); copies observe the same source. All members are safe from any thread.
///
/// Handlers follow the rules of the whole package (see the CancelCore overview):
/// - each runs **exactly once or never**, **synchronously on the thread that cancels** (or closes),
///   after the state has changed, and **never while a lock of ours is held**;
/// - they run **last registered, first run**;
/// - registering on a source that has already ended runs the handler at once on the registering
///   thread (or, for a cancel handler on a closed source, releases it at once);
/// - every closure is released when the source ends.
public struct CancelSignal: Sendable, Hashable {
  @usableFromInline package let storage: CancelStorage

  /// Wraps a storage owned by a source or by a facade's owner object.
  @inlinable package init(storage: CancelStorage) {
    self.storage = storage
  }

  /// A signal that is never cancelled: its source has already closed. Handlers registered on it
  /// are released at once (completion handlers first run with `false`).
  public static let never = CancelSignal(storage: CancelStorage(closed: ()))

  /// Whether the source has been cancelled. A single atomic load; no lock.
  @inlinable public var isCancelled: Bool { storage.isCancelled }

  /// Whether the source has ended, cancelled or closed. A single atomic load; no lock.
  @inlinable public var isCompleted: Bool { storage.isCompleted }

  /// The source's state now, with the reason if it was cancelled.
  public var phase: CancelPhase { storage.phase }

  /// The first reason the source was cancelled with, or `nil` while it is not cancelled.
  public var reason: (any Error)? { storage.reason }

  /// The record of the source's cancel (why, when, where from, along which links); `nil` until it
  /// is cancelled, and the same value every time after. See ``CancellationRecord``.
  public var cancellationRecord: CancellationRecord? { storage.cancellationRecord }

  /// The label the source was created with, if any (see ``CancelSource/init(label:)``).
  public var label: String? { storage.label }

  /// Throws the cancellation reason if the source has been cancelled.
  ///
  /// The fast path (not cancelled) is one atomic load.
  @inlinable public func checkCancellation() throws {
    if storage.isCancelled { try throwReason() }
  }

  @usableFromInline func throwReason() throws {
    if let reason = storage.reason { throw reason }
  }

  /// Runs `handler` when the source is cancelled.
  ///
  /// If the source is already cancelled, `handler` runs now, on this thread, before this method
  /// returns. If it closed, `handler` never runs and is released at once.
  ///
  /// `handler` is `sending`, not `@Sendable`: it may capture a handle that is not `Sendable` (a
  /// `DispatchWorkItem`, a subprocess, a connection) that the caller hands over and does not use
  /// afterwards; the handler runs at most once, on one thread.
  ///
  /// - Returns: a handle whose `unregister()` removes the handler before it runs.
  @discardableResult
  public func onCancel(_ handler: sending @escaping () -> Void) -> CancelRegistration {
    storage.register(.onCancel(handler))
  }

  /// Runs `handler` with the reason when the source is cancelled. Same rules as ``onCancel(_:)``.
  @discardableResult
  public func onCancel(_ handler: sending @escaping (_ reason: any Error) -> Void) -> CancelRegistration {
    storage.register(.onCancelWithReason(handler))
  }
  // The sent closures are stored as they are: see `CancelHandler` for why that is safe.

  /// Runs `handler` when the source ends either way: with `true` if it was cancelled, with `false`
  /// if it closed without cancellation.
  ///
  /// If the source has already ended, `handler` runs now, on this thread, with that outcome.
  ///
  /// - Returns: a handle whose `unregister()` removes the handler before it runs.
  @discardableResult
  public func onComplete(_ handler: @escaping @Sendable (_ cancelled: Bool) -> Void) -> CancelRegistration {
    storage.register(.onComplete(handler))
  }

  /// Two signals are equal when they observe the same source.
  public static func == (lhs: CancelSignal, rhs: CancelSignal) -> Bool { lhs.storage === rhs.storage }

  /// Hashes the identity of the observed source.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(storage)) }
}
