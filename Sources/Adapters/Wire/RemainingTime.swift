import CancelCore

/// The time left before a deadline, in the form that crosses a process boundary.
///
/// An absolute instant means nothing on another machine (their clocks differ, and
/// `ContinuousClock` counts from each machine's boot), so a deadline travels as the time that is
/// left when the request leaves, and the receiver turns it back into an instant of its own clock
/// when the request arrives — as gRPC's `grpc-timeout` does. The time the request spends on the
/// wire is not counted, so the receiver's deadline is a little later than the sender's.
///
/// The text form is gRPC's: one to eight ASCII digits and a unit, `H` (hours), `M` (minutes),
/// `S` (seconds), `m` (milliseconds), `u` (microseconds) or `n` (nanoseconds), as in `300m` or
/// `5S`. It travels in the ``headerName`` header of an HTTP request (the ServiceContext trait's
/// `CancellationDeadlineInstrument` writes and reads it; AsyncHTTPClient requests made through
/// this module send it when their token has a deadline) and fits a `grpc-timeout` header as it is.
///
/// What a receiver does with bad input, by rule:
/// - a value that is not of that form (a sign, a fraction, more than eight digits, another unit,
///   an empty value) is **ignored**: ``init(headerValue:)`` returns `nil` and no deadline is set.
///   A value the sender did not mean cannot be trusted to shorten the work, and refusing the
///   request for it would let a proxy's mistake fail every call;
/// - `0` of any unit is a deadline that has already passed: the work is cancelled at once, with a
///   `TimeoutError`;
/// - the largest value, `99999999H` (about 11,400 years), is a deadline that never comes in
///   practice; it is kept as it is.
public struct RemainingTime: Sendable, Hashable, CustomStringConvertible {
  /// The HTTP header a remaining time travels in: `request-timeout`.
  public static let headerName = "request-timeout"

  /// The largest remaining time the text form holds: 99,999,999 hours.
  public static let maximum = RemainingTime(clamping: .seconds(Int64(99_999_999) * 3_600))

  /// The time left; never negative, at most ``maximum``.
  public let duration: Duration

  /// A remaining time of `duration`: a negative one is zero (the deadline passed), one longer
  /// than ``maximum`` is ``maximum``.
  ///
  /// - Parameter duration: the time left.
  public init(_ duration: Duration) {
    self.init(clamping: duration)
  }

  /// The time left from `now` until `deadline` (zero if it has passed).
  ///
  /// - Parameters:
  ///   - deadline: the instant the work must end by.
  ///   - now: the current instant; the clock's `now` by default.
  public init(until deadline: ContinuousClock.Instant, now: ContinuousClock.Instant = .now) {
    self.init(clamping: now.duration(to: deadline))
  }

  private init(clamping duration: Duration) {
    let zero = Duration.zero
    let maximum = Duration.seconds(Int64(99_999_999) * 3_600)
    self.duration = duration < zero ? zero : (duration > maximum ? maximum : duration)
  }

  /// The instant of this machine's clock the remaining time ends at, counted from `now` (the
  /// arrival of the request).
  ///
  /// - Parameter now: the instant the remaining time was received; the clock's `now` by default.
  /// - Returns: `now` plus the remaining time.
  public func deadline(from now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
    now.advanced(by: duration)
  }

  /// Reads the text form (`300m`, `5S`, …); `nil` if `headerValue` is not one to eight ASCII
  /// digits followed by one of the units `H`, `M`, `S`, `m`, `u`, `n`. Spaces and tabs around the
  /// value are ignored, as HTTP allows them around a header's value.
  ///
  /// - Parameter headerValue: the header's value.
  public init?(headerValue: some StringProtocol) {
    var bytes = Array(headerValue.utf8)[...]
    while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
      bytes = bytes.dropFirst()
    }
    while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
      bytes = bytes.dropLast()
    }
    guard let unitByte = bytes.popLast(), let unit = Unit(rawValue: unitByte),
      (1...8).contains(bytes.count)
    else { return nil }
    var count: Int64 = 0
    for byte in bytes {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      count = count * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    self.init(clamping: unit.duration(count))
  }

  /// The text form: the finest unit whose count fits in eight digits, rounded down, so the
  /// receiver's deadline is never later than the sender's by more than the time on the wire.
  public var headerValue: String {
    let (seconds, attoseconds) = duration.components
    for unit in Unit.finestFirst {
      let count: Int64
      if unit.nanoseconds >= 1_000_000_000 {
        count = seconds / (unit.nanoseconds / 1_000_000_000)
      } else if seconds < 1_000_000 {
        // Below a second, a count that fits in eight digits is less than 100,000 seconds long.
        count = (seconds * 1_000_000_000 + attoseconds / 1_000_000_000) / unit.nanoseconds
      } else {
        continue
      }
      if count <= 99_999_999 { return "\(count)\(Character(Unicode.Scalar(unit.rawValue)))" }
    }
    return "99999999H"
  }

  /// The text form, as ``headerValue``.
  public var description: String { headerValue }

  /// The units of the text form.
  private enum Unit: UInt8, CaseIterable {
    case hours = 72  // "H"
    case minutes = 77  // "M"
    case seconds = 83  // "S"
    case milliseconds = 109  // "m"
    case microseconds = 117  // "u"
    case nanoseconds = 110  // "n"

    static let finestFirst: [Unit] = [.nanoseconds, .microseconds, .milliseconds, .seconds, .minutes, .hours]

    var nanoseconds: Int64 {
      switch self {
      case .hours: 3_600_000_000_000
      case .minutes: 60_000_000_000
      case .seconds: 1_000_000_000
      case .milliseconds: 1_000_000
      case .microseconds: 1_000
      case .nanoseconds: 1
      }
    }

    func duration(_ count: Int64) -> Duration {
      switch self {
      case .hours: .seconds(count * 3_600)
      case .minutes: .seconds(count * 60)
      case .seconds: .seconds(count)
      case .milliseconds: .milliseconds(count)
      case .microseconds: .microseconds(count)
      case .nanoseconds: .nanoseconds(count)
      }
    }
  }
}
