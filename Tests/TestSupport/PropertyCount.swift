import Foundation

/// How many random programs a model-based property test runs.
///
/// `swift test` runs a bounded default so the suite stays fast; set `PROPERTY_RUNS` to run more
/// (for example `PROPERTY_RUNS=20000 swift test --filter Model`). Never fewer than one.
public enum PropertyCount {
  /// The count from `PROPERTY_RUNS`, or `defaultCount` when it is unset or invalid.
  public static func value(default defaultCount: Int) -> Int {
    guard let text = ProcessInfo.processInfo.environment["PROPERTY_RUNS"], let value = Int(text), value > 0 else {
      return max(defaultCount / Stress.divisor, 1)
    }
    return value
  }
}
