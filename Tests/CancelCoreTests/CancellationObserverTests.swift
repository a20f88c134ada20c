import Foundation
import Testing

/// The process's cancellation observer can be set once, and once set it sees every cancel in the
/// process: set here, it would watch (and slow) every other test. So the checks run in the
/// `ObserverCheck` executable, as a child process.
@Suite("Cancellation observer")
struct CancellationObserverTests {
  /// The executable, built beside the test bundle by `swift build --build-tests` / `swift test`.
  static var program: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ObserverCheck")
  }

  @Test func theObserverIsSetOnceAndSeesEachCancelOnceWithoutNesting() async throws {
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
    #expect(text.contains("observer checks passed"), "\(text)")
  }
}
