/// An error that can say whether it represents a cancellation.
///
/// Conform your own error types so that ``Swift/Error/isCancellation`` recognises them:
///
/// ```swift
/// enum DownloadError: CancellableError {
///   case stopped, corrupt
///   var isCancelled: Bool { self == .stopped }
/// }
/// ```
public protocol CancellableError: Error {
  /// Whether this error means "the work was cancelled" rather than "the work failed".
  var isCancelled: Bool { get }
}
