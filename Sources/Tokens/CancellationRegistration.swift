/// The handle a token registration returns: it removes the handler before the handler runs.
///
/// A small value; copies refer to the same registration. Dropping it does **not** unregister
/// anything (keep it only if you may want to remove the handler early).
public struct CancellationRegistration: Sendable {
  /// The core registration (inert for a foreign token's).
  @usableFromInline let registration: CancelRegistration
  /// A foreign token's unregistration (see ``init(unregister:)``); `nil` for core registrations.
  ///
  /// A separate optional reference rather than an enum case: copying and destroying an enum with
  /// two reference-holding payloads goes through outlined switch-on-tag code on every copy, which
  /// measurably slowed the hot register+unregister path.
  @usableFromInline let foreign: ForeignUnregistration?

  /// Wraps a registration made on a core `CancelSignal`.
  ///
  /// - Parameter registration: the core handle to forward ``unregister()`` to.
  @inlinable public init(_ registration: CancelRegistration) {
    self.registration = registration
    foreign = nil
  }

  /// A handle for a registration made on a foreign token (see ``CancellationTokenType``).
  ///
  /// - Parameter unregister: removes the handler; it must follow the contract of
  ///   ``unregister()``: O(1) or close, never block on a running handler, return `true` only if
  ///   this call removed a handler that had not started, and be safe to call more than once from
  ///   any thread.
  public init(unregister: @escaping @Sendable () -> Bool) {
    registration = .inert
    foreign = ForeignUnregistration(unregister)
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
    if let foreign { return foreign.unregister() }
    return registration.unregister()
  }
}

extension CancellationRegistration {
  /// Has the work of `handle` remove this registration when it ends, and returns it: the
  /// registration holds `handle` strongly, so it must not outlive the work. What the handle keeps
  /// until then is only this registration, which refers to the token's state, not to the handle.
  func removed(whenWorkOf handle: any CancellableHandle) -> CancellationRegistration {
    // An inert registration (the token had ended) has nothing to remove.
    if registration.isActive || foreign != nil { handle.whenWorkEnds { self.unregister() } }
    return self
  }
}

/// A foreign token's way to remove one of its handlers.
@usableFromInline
final class ForeignUnregistration: Sendable {
  @usableFromInline let unregister: @Sendable () -> Bool

  init(_ unregister: @escaping @Sendable () -> Bool) {
    self.unregister = unregister
  }
}
