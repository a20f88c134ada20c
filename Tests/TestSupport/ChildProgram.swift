import Foundation

/// Runs `name`, an executable of this package built beside the test bundle (by `swift build
/// --build-tests` or `swift test`), as a child process, and returns its exit status and what it
/// printed (standard output and error together). For checks the test process cannot make itself:
/// a free main thread, or a process-wide setting that would affect every other test.
public func runSiblingProgram(_ name: String) async throws -> (status: Int32, output: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent(name)
  let output = Pipe()
  process.standardOutput = output
  process.standardError = output
  let status: Int32 = try await withCheckedThrowingContinuation { continuation in
    process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
    do { try process.run() } catch { continuation.resume(throwing: error) }
  }
  return (status, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
}
