import CancelCore
import Dispatch

/// One callback waiting in a promise's or guarantee's settle-once state machine.
///
/// Closures are wrapped in this enum (never stored bare) so that storing one in the core's
/// callback list costs no reabstraction thunk.
@usableFromInline
package enum PromiseCallback<Value: Sendable>: Sendable {
  /// Runs a closure with the value.
  case run(@Sendable (Value) -> Void)
  /// A stage promise waiting on its parent (see ``MapStage``): the stage itself and a function
  /// (capturing nothing) that receives the parent's value. The callback owns its reference to the
  /// stage and hands it to the function, so a stage that settles at once passes it on in the
  /// delivery it hands back (`Promise.settle(_:handingBackOn:)`): waiting and handing back cost no
  /// retain of their own. (A closure capturing the stage could not hand its context over: its
  /// caller releases it after the call, and the stage would retain itself again.)
  case stage(
    AnyObject & Sendable,
    @Sendable (_ stage: consuming AnyObject, consuming Value, ThreadDeliveryQueue?) -> ReadyDelivery?)

  /// Performs the callback. Called after unlocking, never under a lock.
  ///
  /// - Parameter queue: the queue of the delivery running this callback, or `nil` outside one.
  /// - Returns: a stage's delivery to run next, handed back (only with a `queue`).
  @inlinable
  consuming func callAsFunction(_ value: consuming Value, on queue: ThreadDeliveryQueue? = nil) -> ReadyDelivery? {
    switch consume self {
    case .run(let body):
      body(value)
      return nil
    case .stage(let stage, let receive):
      // The value moves on: a stage settling with it (a rejection passed down) keeps this copy.
      return receive(consume stage, consume value, queue)
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
