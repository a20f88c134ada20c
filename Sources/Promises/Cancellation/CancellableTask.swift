/// Work that a cancellable chain can stop: PromiseKit 7's `CancellableTask`.
///
/// Register one with ``CancellablePromise/init(task:resolver:)`` or
/// ``CancellableThenable/appendCancellableTask(_:reject:)``; when the chain's ``CancelContext``
/// is cancelled, ``cancel()`` is called exactly once, synchronously on the cancelling thread.
public protocol CancellableTask: Cancellable {
  /// Stops the work. Called at most once by a context.
  func cancel()
  /// Whether the work has been cancelled.
  var isCancelled: Bool { get }
}
