import ExampleScenarios
import Testing

/// Runs every scenario of the examples executable, so the tour cannot rot.
@Suite("Examples")
struct ScenarioTests {
  // A scenario waits only for events that come; the limit (far beyond any run, even on a busy
  // machine) turns a scenario that waits forever into a failure that names it, not a stalled run.
  @Test(.timeLimit(.minutes(20)), arguments: allScenarios.map(\.name))
  func scenarioBehavesAsDescribed(name: String) async throws {
    let scenario = try #require(allScenarios.first { $0.name == name })
    let report = Report(echo: false)
    try await scenario.run(report)
    #expect(!report.transcript.isEmpty)
  }

  @Test func scenarioNamesAreUnique() {
    #expect(Set(allScenarios.map(\.name)).count == allScenarios.count)
  }
}
