import TestSupport
import Testing

/// `wait()` on the main thread runs the main queue while it waits, so a chain whose bodies run on
/// the main queue settles instead of waiting for the main thread for ever (a program's top-level
/// code, whose bodies take on the main actor's isolation, waiting with `wait()`: found by the
/// independent review of issue 27). The test process has no free main thread (Swift Testing's
/// `dispatchMain()` gives it up), so the program that waits is the `MainThreadWait` executable,
/// run as a child process.
@Suite("Promises: wait() on the main thread")
struct MainThreadWaitTests {
  @Test func topLevelCodeWaitsForChainsWhoseBodiesRunOnTheMainQueue() async throws {
    let (status, text) = try await runSiblingProgram("MainThreadWait")
    #expect(status == 0, "\(text)")
    #expect(text.contains("every wait on the main thread returned"))
  }
}
