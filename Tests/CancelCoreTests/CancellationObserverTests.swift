import TestSupport
import Testing

/// The process's cancellation observer can be set once, and once set it sees every cancel in the
/// process: set here, it would watch (and slow) every other test. So the checks run in the
/// `ObserverCheck` executable, as a child process.
@Suite("Cancellation observer")
struct CancellationObserverTests {
  @Test func theObserverIsSetOnceAndSeesEachCancelOnceWithoutNesting() async throws {
    let (status, text) = try await runSiblingProgram("ObserverCheck")
    #expect(status == 0, "\(text)")
    #expect(text.contains("observer checks passed"), "\(text)")
  }
}
