import CancelCore
import Dispatch

/// One callback waiting in a promise's or guarantee's settle-once state machine.
///
/// Closures are wrapped in this enum (never stored bare) so that storing one in the core's
/// `RegistrationTable` costs no reabstraction thunk. The `unregister` case lets a member of a
/// cancellable chain leave its context when it settles without allocating a closure for it.
@usableFromInline
enum PromiseCallback<Value: Sendable>: Sendable {
  /// Runs the closure with the settled value.
  case run(@Sendable (Value) -> Void)
  /// Removes a registration from a cancel context (the member settled, so cancel can no longer
  /// reject it).
  case unregister(CancelRegistration)

  /// Performs the callback. Called after unlocking, never under a lock.
  @inlinable
  func callAsFunction(_ value: Value) {
    switch self {
    case .run(let body): body(value)
    case .unregister(let registration): registration.unregister()
    }
  }
}

/// `DispatchWorkItemFlags` as a `Sendable` value, so that handlers (which are `@Sendable`) can
/// capture the `flags:` argument. (Dispatch's option set is a plain `UInt` but is not annotated.)
@usableFromInline
struct DispatchFlags: Sendable {
  @usableFromInline let rawValue: UInt?

  @inlinable
  init(_ flags: DispatchWorkItemFlags?) {
    rawValue = flags?.rawValue
  }
}

extension Optional where Wrapped == DispatchQueue {
  /// Runs `body` on the queue, or synchronously on this thread when the queue is `nil`.
  @inlinable
  func dispatch(_ flags: DispatchFlags, _ body: @escaping @Sendable () -> Void) {
    guard let queue = self else { return body() }
    if let raw = flags.rawValue {
      queue.async(flags: DispatchWorkItemFlags(rawValue: raw), execute: body)
    } else {
      queue.async(execute: body)
    }
  }
}

extension DispatchQueue {
  /// Runs `body` asynchronously on this queue with `flags`.
  @inlinable
  func async(_ flags: DispatchFlags, _ body: @escaping @Sendable () -> Void) {
    if let raw = flags.rawValue {
      async(flags: DispatchWorkItemFlags(rawValue: raw), execute: body)
    } else {
      async(execute: body)
    }
  }
}
