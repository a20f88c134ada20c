/// Something whose work can be asked to stop.
///
/// `Cancellable` is the one protocol every facade of this package speaks: a `CancelSource`, a token
/// request, a cancellable promise, a future's cancel token and Swift's own `Task` all conform, so a
/// single cancellation can reach work of every style.
///
/// Classes and value types may conform. `cancel()` must be safe to call more than once and from any
/// thread; only the first call should have an effect.
///
/// - Note: Combine also declares a `Cancellable` protocol. In a file that imports both, write
///   `CancelCore.Cancellable`.
public protocol Cancellable: Sendable {
  /// Asks the work to stop. Calling it again, or after the work finished, does nothing.
  func cancel()
}

/// Something whose work can be asked to stop *with a reason*: the work ends with that error where
/// it can carry one.
///
/// Code that cancels work on behalf of something cancelled (a token's
/// `register(cancelable:)`, for instance) passes the reason on through ``cancel(dueTo:)`` when the
/// work conforms, and calls plain ``Cancellable/cancel()`` otherwise. A `CancelSource`, a token
/// request and a cancellable promise chain conform; a future's cancel token and a `Task` cannot
/// carry a reason and do not.
public protocol CancellableWithReason: Cancellable {
  /// Asks the work to stop, with `reason` as the error it ends with. As for ``Cancellable/cancel()``:
  /// safe from any thread and more than once; only the first cancel has an effect (its reason
  /// wins).
  ///
  /// - Parameter reason: the cancellation error (a timeout, the reason of a token, …).
  func cancel(dueTo reason: any Error)
}

/// Swift's `Task` is cancellable: `cancel()` sets the task's cancellation flag and runs its
/// cancellation handlers, as `Task.cancel()` always does.
extension Task: Cancellable {}
