import CancelCore
import Dispatch
import Foundation

/// Runs `body` at once and returns a promise resolved like the thenable it returns: a readable
/// first line for a chain. If `body` throws, the promise is rejected with the error.
///
/// - Parameter body: starts the chain.
/// - Returns: a promise resolved like the thenable `body` returned.
@inlinable
public func firstly<U: Thenable>(execute body: () throws -> U) -> Promise<U.T> {
  do {
    let first = try body()
    let result = Promise<U.T>(pending: ())
    first.pipe { result.settle($0) }
    return result
  } catch {
    return Promise(error: error)
  }
}

/// Runs `body` at once and returns the guarantee it returns.
///
/// - Parameter body: starts the chain.
/// - Returns: the guarantee `body` returned.
@inlinable
public func firstly<T: Sendable>(execute body: () -> Guarantee<T>) -> Guarantee<T> {
  body()
}

/// A guarantee resolved after `seconds`, on a global queue (its handlers then run on their own
/// queues). `cancellable(after(seconds:))` stops the timer when cancelled.
///
/// Any value is accepted: a negative delay, negative infinity and NaN mean no delay (the guarantee
/// resolves at once, on the timer's queue); positive infinity, or a delay longer than a `Duration`
/// holds, means never (the guarantee stays pending, and no timer is started).
///
/// - Parameter seconds: the delay.
/// - Returns: a guarantee resolved after the delay.
public func after(seconds: TimeInterval) -> Guarantee<Void> {
  guard let delay = Duration.delay(seconds: seconds) else { return Guarantee<Void>(pending: ()) }
  return after(delay, scheduler: .dispatch)
}

/// A guarantee resolved after `interval`. See ``after(seconds:)``.
///
/// - Parameter interval: the delay.
/// - Returns: a guarantee resolved after the delay.
public func after(_ interval: DispatchTimeInterval) -> Guarantee<Void> {
  let duration: Duration
  switch interval {
  case .seconds(let value): duration = .seconds(value)
  case .milliseconds(let value): duration = .milliseconds(value)
  case .microseconds(let value): duration = .microseconds(value)
  case .nanoseconds(let value): duration = .nanoseconds(value)
  case .never: return Guarantee<Void>(pending: ())
  @unknown default: return Guarantee<Void>(pending: ())
  }
  return after(duration, scheduler: .dispatch)
}

/// A guarantee resolved after `delay` as measured by `scheduler` (tests pass the core's
/// `ManualDeadlineScheduler` and never sleep).
///
/// `cancellable(after(...))` cancelled stops the timer and releases it; the guarantee then never
/// resolves.
///
/// The guarantee resolves on the scheduler's thread, outside any cancel: what it sets off (a
/// `race` rejected by a `timeout`, which cancels its other inputs) is done before the handlers
/// after it run, as it would be from any other thread. (Resolved from a cancel handler, as a core
/// deadline would, the cancels it started would wait until that handler returned.)
///
/// - Parameters:
///   - delay: the delay.
///   - scheduler: where the timer comes from.
/// - Returns: a guarantee resolved after the delay.
public func after(_ delay: Duration, scheduler: some DeadlineScheduler) -> Guarantee<Void> {
  // Ends once: closed by the guarantee's task when cancelled (nothing resolves), or cancelled
  // when the timer fires (the guarantee resolves). Either way it stops and lets go of the timer.
  let timer = CancelSource()
  let guarantee = Guarantee<Void>(task: AfterTimerTask(timer: timer))
  let scheduled = scheduler.schedule(after: delay) {
    if timer.signal.storage.cancelWithDefaultReason() { guarantee.settle(()) }
  }
  timer.signal.onComplete { _ in scheduled.cancel() }
  return guarantee
}

/// The timer behind `after`: cancelling it closes the core source, which stops the scheduled
/// resolution.
struct AfterTimerTask: CancellableTask {
  let timer: CancelSource

  func cancel() {
    timer.close()
  }

  var isCancelled: Bool {
    if case .closed = timer.signal.phase { return true }
    return false
  }
}

/// Waits for `promise` and returns its value or throws its error, as ``Promise/wait()`` does
/// (without its ``LogEvent/waitOnMainThread`` report): on the main thread it runs the main run
/// loop (draining the main queue, where handlers run by default) until the promise resolves, and
/// elsewhere blocks. Inside a handler, it first runs the handlers this thread queued (see
/// ``Promise/wait()``). For command-line tools and scripts.
///
/// - Parameter promise: the promise to wait for.
/// - Returns: its value.
/// - Throws: the promise's error.
public func hang<T: Sendable>(_ promise: Promise<T>) throws -> T {
  // Not `wait()` itself: `hang` does not report `LogEvent.waitOnMainThread`.
  if promise.isPending { BlockingWait.wait { done in promise.pipe { _ in done() } } }
  return try promise.result!.get()
}

/// Waits for `guarantee` and returns its value. See ``hang(_:)-(Promise<T>)``.
///
/// - Parameter guarantee: the guarantee to wait for.
/// - Returns: its value.
public func hang<T: Sendable>(_ guarantee: Guarantee<T>) -> T {
  if guarantee.value == nil { BlockingWait.wait { done in guarantee.pipe { (_: T) in done() } } }
  return guarantee.value!
}
