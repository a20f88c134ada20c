import CancelCore
import Dispatch

/// One callback waiting in a promise's or guarantee's settle-once state machine.
///
/// Closures are wrapped in this struct (never stored bare) so that storing one in the core's
/// `RegistrationTable` costs no reabstraction thunk.
@usableFromInline
struct PromiseCallback<Value: Sendable>: Sendable {
  @usableFromInline let body: @Sendable (Value) -> Void

  @inlinable
  init(_ body: @escaping @Sendable (Value) -> Void) {
    self.body = body
  }

  /// A callback running `body`.
  @inlinable
  static func run(_ body: @escaping @Sendable (Value) -> Void) -> PromiseCallback {
    PromiseCallback(body)
  }

  /// Performs the callback. Called after unlocking, never under a lock.
  @inlinable
  func callAsFunction(_ value: Value) {
    body(value)
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
