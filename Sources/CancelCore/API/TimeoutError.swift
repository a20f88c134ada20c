/// The reason a source carries when its deadline, not a caller, cancelled it.
///
/// A timeout is a kind of cancellation: ``isCancelled`` is `true`, so
/// ``Swift/Error/isCancellation`` recognises it, and code that only asks "was this cancelled?" keeps
/// working. Code that cares why can match on the type:
///
/// ```swift
/// catch let error as TimeoutError { print("gave up after \(error.timeout)") }
/// ```
public struct TimeoutError: CancellableError, Hashable, CustomStringConvertible {
  /// The delay after which the source was cancelled, as it was given to the deadline.
  public let timeout: Duration

  /// Creates the error for a deadline of `timeout`.
  public init(timeout: Duration) {
    self.timeout = timeout
  }

  /// Always `true`: a deadline's cancellation is a cancellation.
  public var isCancelled: Bool { true }

  /// A short description naming the timeout.
  public var description: String { "TimeoutError(timed out after \(timeout))" }
}
