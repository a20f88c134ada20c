/// The handle a token registration returns: it removes the handler before the handler runs.
///
/// A small value; copies refer to the same registration. Dropping it does **not** unregister
/// anything (keep it only if you may want to remove the handler early).
public struct CancellationRegistration: Sendable {
  @usableFromInline
  enum Kind: Sendable {
    /// A registration in this package's core.
    case core(CancelRegistration)
    /// A foreign token's registration (see ``init(unregister:)``).
    case custom(@Sendable () -> Bool)
  }

  @usableFromInline let kind: Kind

  /// Wraps a registration made on a core `CancelSignal`.
  ///
  /// - Parameter registration: the core handle to forward ``unregister()`` to.
  @inlinable public init(_ registration: CancelRegistration) {
    kind = .core(registration)
  }

  /// A handle for a registration made on a foreign token (see ``CancellationTokenType``).
  ///
  /// - Parameter unregister: removes the handler; it must follow the contract of
  ///   ``unregister()``: O(1) or close, never block on a running handler, return `true` only if
  ///   this call removed a handler that had not started, and be safe to call more than once from
  ///   any thread.
  public init(unregister: @escaping @Sendable () -> Bool) {
    kind = .custom(unregister)
  }

  /// A handle that refers to nothing; ``unregister()`` returns `false`. Registrations on a token
  /// that had already completed return it (their handler ran, or was released, at once).
  public static let inert = CancellationRegistration(.inert)

  /// Removes the handler if it has not started yet.
  ///
  /// O(1), and never blocks: if the handler is running right now on another thread, this returns
  /// `false` at once without waiting for it. Safe to call from inside the handler, any number of
  /// times, from any thread. For a handler registered with a queue, `true` means it will never be
  /// submitted; `false` means it has been (or is being) submitted to the queue and will run there.
  ///
  /// - Returns: `true` if this call removed the handler, which will then never run; `false` if it
  ///   already ran (or was submitted), is running, was released because the token completed, or
  ///   was removed before.
  @inlinable @discardableResult
  public func unregister() -> Bool {
    switch kind {
    case .core(let registration): return registration.unregister()
    case .custom(let unregister): return unregister()
    }
  }
}
