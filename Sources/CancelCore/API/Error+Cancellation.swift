import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Error {
  /// Whether this error means the work was cancelled, as opposed to failing.
  ///
  /// This is the package's one classifier; every facade uses it (PromiseKit's spelling
  /// `isCancelled` forwards here). It is `true` for:
  /// - Swift's `CancellationError`;
  /// - any ``CancellableError`` whose `isCancelled` is `true` (this includes ``TimeoutError`` and the
  ///   facades' own cancellation errors);
  /// - `URLError.cancelled` (`NSURLErrorCancelled`);
  /// - `CocoaError.userCancelled` (`NSUserCancelledError`);
  /// - POSIX `ECANCELED`, as `POSIXError` or as an `NSError` in `NSPOSIXErrorDomain`.
  ///
  /// Everything else is a failure.
  public var isCancellation: Bool {
    if self is CancellationError { return true }
    if let error = self as? any CancellableError { return error.isCancelled }
    // URLError, CocoaError and POSIXError bridge to NSError with their domain, so one check covers
    // the typed errors and plain NSErrors alike. (Casting an NSError to a typed error directly is
    // not reliable on Linux: an NSError of one domain can cast to another domain's type.)
    let bridged = self as NSError
    switch bridged.domain {
    case NSURLErrorDomain: return bridged.code == NSURLErrorCancelled
    case NSCocoaErrorDomain: return bridged.code == NSUserCancelledError
    case NSPOSIXErrorDomain: return bridged.code == Int(ECANCELED)
    default: return false
    }
  }
}

extension Result where Failure == any Error {
  /// Whether this is a failure that ``Swift/Error/isCancellation`` classifies as a cancellation:
  /// how a completion callback tells "stopped" from "failed" in one test.
  public var isCancellation: Bool {
    if case .failure(let error) = self { return error.isCancellation }
    return false
  }
}
