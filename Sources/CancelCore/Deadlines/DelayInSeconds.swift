extension Duration {
  /// The delay `seconds` asks for, for the facades' APIs that take a `TimeInterval`: `nil` for
  /// "never" (positive infinity, or more than `Int64.max` seconds); zero for "now" (negative
  /// values, negative infinity and NaN). Never traps, where `Duration.seconds(_:)` does on a
  /// non-finite or too large value.
  ///
  /// - Parameter seconds: the delay in seconds, as a caller passed it.
  /// - Returns: the delay, or `nil` if it never ends.
  package static func delay(seconds: Double) -> Duration? {
    // NaN compares false with everything: the first guard sends it to "now".
    guard seconds > 0 else { return .zero }
    // Whole seconds must fit an Int64 (a Duration's seconds component); beyond, it never ends.
    guard seconds < 9.2e18 else { return nil }
    let whole = seconds.rounded(.towardZero)
    let attoseconds = ((seconds - whole) * 1e18).rounded()
    return Duration(secondsComponent: Int64(whole), attosecondsComponent: Int64(attoseconds))
  }
}
