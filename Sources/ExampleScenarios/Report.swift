import CancelCore

/// Collects a scenario's narration: printed by the executable, inspected by the tests.
public final class Report: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `lines` is read and written only inside `lock.withLock`.
  private var lines: [String] = []
  private let echo: Bool
  private let start = ContinuousClock.now

  /// Creates a report; with `echo`, every line is also printed as it is written.
  public init(echo: Bool) {
    self.echo = echo
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Adds a line, prefixed with the time since the scenario started.
  public func say(_ line: String) {
    let elapsed = ContinuousClock.now - start
    let stamped = "[\(Self.milliseconds(elapsed))] \(line)"
    lock.withLock { lines.append(stamped) }
    if echo { print("  " + stamped) }
  }

  /// Everything said so far.
  public var transcript: [String] { lock.withLock { lines } }

  /// A duration for reports: microseconds below a millisecond, else milliseconds with one decimal.
  public static func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    if microseconds < 1_000 { return "\(microseconds) µs" }
    let tenths = microseconds / 100
    return "\(tenths / 10).\(tenths % 10) ms"
  }
}
