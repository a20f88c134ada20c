import Foundation

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

  /// A short description naming the timeout, in milliseconds below a second (one decimal at most)
  /// and in seconds from there (three decimals at most): "TimeoutError(timed out after 50 ms)".
  public var description: String { "TimeoutError(timed out after \(Self.format(timeout)))" }

  /// `duration` for people: "50 ms", "0.1 ms", "2.5 s".
  static func format(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let total = Double(seconds) + Double(attoseconds) / 1e18
    /// `value` rounded to a multiple of `1 / scale`, without a trailing ".0".
    func trimmed(_ value: Double, scale: Double) -> String {
      let rounded = (value * scale).rounded() / scale
      return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
    guard total.isFinite, abs(total) < 9e15 else { return "\(duration)" }
    if abs(total) < 1 { return trimmed(total * 1000, scale: 10) + " ms" }
    return trimmed(total, scale: 1000) + " s"
  }
}

extension TimeoutError: LocalizedError {
  /// The ``description``, so that `localizedDescription` names the timeout on every platform
  /// (Foundation's generic text otherwise).
  public var errorDescription: String? { description }
}
