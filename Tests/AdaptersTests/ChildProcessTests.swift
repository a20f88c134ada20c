import Adapters
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Child processes")
struct ChildProcessTests {
  static let sleep = ChildProcess.findExecutable(named: "sleep")!
  static let shell = URL(fileURLWithPath: "/bin/sh")

  /// Runs a child and awaits its one completion.
  static func run(
    _ url: URL, _ arguments: [String], signal: CancelSignal = .never, gracePeriod: Duration = .seconds(2),
    scheduler: some DeadlineScheduler = .dispatch, launched: @escaping @Sendable (Int32) -> Void = { _ in }
  ) async -> Swift.Result<ProcessOutput, any Error> {
    await withCheckedContinuation { continuation in
      ChildProcess.run(
        url, arguments: arguments, signal: signal, gracePeriod: gracePeriod, scheduler: scheduler, launched: launched
      ) { continuation.resume(returning: $0) }
    }
  }

  /// Reads a FIFO to end of file on a dedicated thread (never block the cooperative pool).
  static func readAll(_ path: String) async -> String {
    await withCheckedContinuation { continuation in
      Thread {
        let descriptor = open(path, O_RDONLY)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while descriptor >= 0 {
          let count = read(descriptor, &buffer, buffer.count)
          if count <= 0 { break }
          bytes += buffer[0..<count]
        }
        if descriptor >= 0 { close(descriptor) }
        continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
      }.start()
    }
  }

  /// Expects that a cancel made once the launch was reported scheduled the `SIGKILL` before it
  /// returned. If it had not, advancing `time` would fire nothing and the child would run for an
  /// hour: its group is killed here, so that the failure is this expectation and not a hang.
  static func expectSIGKILLScheduled(
    on time: ManualDeadlineScheduler, group: Int32, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let scheduled = time.pendingCount == 1
    #expect(scheduled, "no SIGKILL scheduled when cancel() returned", sourceLocation: sourceLocation)
    if !scheduled { kill(-group, SIGKILL) }
  }

  static func isGone(_ pid: Int32) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
  }

  @Test func aChildThatEndsOnItsOwnReportsItsOutput() async throws {
    let result = await Self.run(Self.shell, ["-c", "echo hello; echo oops >&2; exit 3"])
    let output = try result.get()
    #expect(output.standardOutputText == "hello\n")
    #expect(String(decoding: output.standardError, as: UTF8.self) == "oops\n")
    #expect(output.termination == .exited(3))
    #expect(!output.succeeded)
  }

  @Test func cancellingStopsASleepingChildAtOnceAndLeavesNoZombie() async throws {
    let source = CancelSource()
    let pid = WrittenOnce<Int32>()
    let cancelledAt = WrittenOnce<ContinuousClock.Instant>()
    let endedAt = WrittenOnce<ContinuousClock.Instant>()
    // The end is timed in the completion itself: when the suite runs in parallel, blocking tests
    // can hold the cooperative pool, and the awaiting task may resume much later than that.
    let result = await withCheckedContinuation { continuation in
      // A long grace period: ending well within it shows SIGTERM stopped the child, not SIGKILL.
      ChildProcess.run(Self.sleep, arguments: ["3600"], signal: source.signal, gracePeriod: .seconds(600)) { launched in
        pid.value = launched
        cancelledAt.value = .now
        source.cancel()
      } completion: { result in
        endedAt.value = .now
        continuation.resume(returning: result)
      }
    }
    let elapsed = try #require(endedAt.value) - (try #require(cancelledAt.value))
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(result.isCancellation)
    // Before the grace period ended, so SIGTERM stopped it: the bound only tells SIGTERM (ends in
    // seconds, 128 s seen with both cores busy) from SIGKILL (at 600 s), not a speed.
    #expect(elapsed < .seconds(500), "the child took \(elapsed) to go")
    let launched = try #require(pid.value)
    #expect(Self.isGone(launched), "process \(launched) still exists (running or zombie)")
  }

  @Test func aChildIgnoringSIGTERMIsKilledWhenTheGracePeriodEnds() async throws {
    let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("ready-\(UUID().uuidString)").path
    #expect(mkfifo(fifo, 0o600) == 0)
    defer { unlink(fifo) }
    let time = ManualDeadlineScheduler()
    let source = CancelSource()
    let launch = Launch()
    async let result = Self.run(
      Self.shell, ["-c", "trap '' TERM; echo ready > \(fifo); exec sleep 3600"], signal: source.signal,
      gracePeriod: .seconds(5), scheduler: time, launched: launch.record
    )
    // Reading the FIFO blocks until the child writes, after it installed its trap: no sleeping.
    let ready = await Self.readAll(fifo)
    #expect(ready == "ready\n")
    let launched = await launch.pid()  // the child may write before the engine reports its launch
    source.cancel()
    #expect(kill(launched, 0) == 0, "SIGTERM is ignored, so the child must still run")
    Self.expectSIGKILLScheduled(on: time, group: launched)
    time.advance(by: .seconds(5))
    let outcome = await result
    #expect(outcome.isCancellation)
    #expect(Self.isGone(launched))
    #expect(time.pendingCount == 0)
  }

  @Test func aMissingExecutableFailsClearlyAndIsNotACancellation() async {
    let result = await Self.run(URL(fileURLWithPath: "/no/such/program"), [])
    guard case .failure(let error) = result else {
      Issue.record("expected a launch failure")
      return
    }
    #expect(error is ProcessLaunchError)
    #expect(!error.isCancellation)
    #expect("\(error)".contains("/no/such/program"))
  }

  @Test func anAlreadyCancelledSignalStartsNothing() async {
    let source = CancelSource()
    source.cancel()
    let pid = WrittenOnce<Int32>()
    let result = await Self.run(Self.sleep, ["3600"], signal: source.signal) { pid.value = $0 }
    #expect(result.isCancellation)
    #expect(pid.value == nil)
  }

  @Test func cancellingAfterTheChildEndedChangesNothing() async throws {
    let source = CancelSource()
    let result = await Self.run(Self.shell, ["-c", "echo done"], signal: source.signal)
    source.cancel()
    #expect(try result.get().standardOutputText == "done\n")
  }
}

/// A child's launch, reported from the engine's callback and awaited by the test.
final class Launch: Sendable {
  private let cell = SettleCell<Int32>()

  func record(_ pid: Int32) {
    cell.settle(pid)
  }

  /// The launched child's pid, once the engine reported it.
  func pid() async -> Int32 {
    await withCheckedContinuation { continuation in
      cell.observe { continuation.resume(returning: $0) }
    }
  }
}

/// Carries a value written once out of a `@Sendable` callback (a pid, an instant).
final class WrittenOnce<Value: Sendable>: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: each test writes `value` once, before it awaits the result
  // whose completion (or launch) happens-after that write, and reads it only after the await.
  var value: Value?
}
