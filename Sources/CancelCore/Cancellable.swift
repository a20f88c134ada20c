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

/// Swift's `Task` is cancellable: `cancel()` sets the task's cancellation flag and runs its
/// cancellation handlers, as `Task.cancel()` always does.
extension Task: Cancellable {}
