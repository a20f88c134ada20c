import Foundation

/// One runnable tour stop of the examples executable: real work, cancelled, with a report of what
/// happened and how long cancellation took.
public struct Scenario: Sendable {
  /// The name typed on the command line (`swift run Examples <name>`).
  public let name: String
  /// One line for `--help`.
  public let summary: String
  /// Runs the scenario, writing what happens to `report`. Throws if the scenario did not behave as
  /// described (the test suite runs every scenario, so a broken promise fails the build).
  public let run: @Sendable (_ report: Report) async throws -> Void

  /// Creates a scenario.
  public init(name: String, summary: String, run: @escaping @Sendable (_ report: Report) async throws -> Void) {
    self.name = name
    self.summary = summary
    self.run = run
  }
}

/// Every scenario, in tour order.
public let allScenarios: [Scenario] =
  coreScenarios + tokenAndAdapterScenarios + promiseAndFutureScenarios + integrationScenarios

/// A scenario that did not behave as it claims.
public struct ScenarioFailure: Error, CustomStringConvertible {
  /// What went wrong.
  public let description: String

  /// Creates a failure with a description.
  public init(_ description: String) {
    self.description = description
  }
}

/// Fails the scenario with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
  if !condition { throw ScenarioFailure(message()) }
}
