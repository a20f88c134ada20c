import Dispatch
import Foundation
import Testing

/// `wait()` on the main thread runs the main queue while it waits, so a chain whose bodies run on
/// the main queue settles instead of waiting for the main thread for ever (a program's top-level
/// code, whose bodies take on the main actor's isolation, waiting with `wait()`: found by the
/// independent review of issue 27). The test process has no free main thread (Swift Testing's
/// `dispatchMain()` gives it up), so the program that waits is the `MainThreadWait` executable,
/// run as a child process.
@Suite("Promises: wait() on the main thread")
struct MainThreadWaitTests {
  /// The executable, built beside the test bundle by `swift build --build-tests` / `swift test`.
  static var program: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("MainThreadWait")
  }

  @Test func topLevelCodeWaitsForChainsWhoseBodiesRunOnTheMainQueue() async throws {
    let process = Process()
    process.executableURL = Self.program
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(status == 0, "\(text)")
    #expect(text.contains("every wait on the main thread returned"))
  }
}
