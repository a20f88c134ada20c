import Adapters
import Foundation
import LocalHTTPServer
import Tokens

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Scenarios of the Tokens facade and the bridges to tasks and Foundation work.
let tokenAndAdapterScenarios: [Scenario] = [
  Scenario(name: "tokens-process", summary: "A token with a 200 ms timeout stops a `sleep 3600` child process") {
    report in
    guard let sleep = ChildProcess.findExecutable(named: "sleep") else { throw ScenarioFailure("no `sleep` in PATH") }
    let request = CancellationRequest(timeout: .milliseconds(200))
    let outcome = Outcome<ProcessOutput>()
    let launched = Outcome<Int32>()
    ChildProcess.run(sleep, arguments: ["3600"], token: request.token) {
      launched.deliver(.success($0))
    } completion: {
      launched.deliver(.failure(ScenarioFailure("the child did not start")))  // ignored once launched
      outcome.deliver($0)
    }
    let pid = try? await launched.value().0.get()
    report.say("started `sleep 3600` as process \(pid.map(String.init) ?? "?"); the token times out in 200 ms")
    let cancelledAt = await request.token.cancelledAt()
    let (result, endedAt) = await outcome.value()
    report.say("the child was stopped and reaped \(Report.milliseconds(endedAt - cancelledAt)) after the timeout")
    guard case .failure(let error) = result else { throw ScenarioFailure("the child was not stopped: \(result)") }
    report.say("outcome: \(error) (isCancellation: \(error.isCancellation))")
    try require(error is TimeoutError, "expected the token's TimeoutError, got \(error)")
    if let pid { try require(kill(pid, 0) == -1, "process \(pid) still exists") }
  },
  Scenario(
    name: "tokens-http", summary: "A token cancels a slow HTTP download mid-transfer; the server sees the hang-up"
  ) {
    report in
    let server = try LocalHTTPServer(chunkSize: 1024, chunkCount: 4_000_000, chunkInterval: .milliseconds(10))
    defer { server.stop() }
    let request = CancellationRequest()
    let outcome = Outcome<DataResponse>()
    URLSession.shared.dataTask(
      with: URLRequest(url: server.baseURL.appendingPathComponent("slow")), token: request.token
    ) { outcome.deliver($0) }
    report.say("downloading 4 GB from \(server.baseURL), 1 KB every 10 ms")
    await server.answerStarted(path: "/slow")
    try await Task.sleep(for: .milliseconds(100))  // let some of the body flow: this is a demo
    let cancelledAt = ContinuousClock.now
    request.cancel()
    let (result, endedAt) = await outcome.value()
    let end = await server.connectionEnd(number: 1)
    report.say(
      "cancelled; the transfer ended \(Report.milliseconds(endedAt - cancelledAt)) later, the server had sent \(end.bodyBytesSent / 1024) KB and saw the client hang up: \(end.clientClosedEarly)"
    )
    try require(result.isCancellation && end.clientClosedEarly, "the transfer was not stopped: \(result)")
  },
  Scenario(name: "async-timer", summary: "Cancelling a task stops a one-hour Dispatch timer and releases its closure") {
    report in
    let work = DispatchQueue.global().scheduledWork(after: .seconds(3_600)) { "fired" }
    let task = Task { try await work.run() }
    try await Task.sleep(for: .milliseconds(50))
    let cancelledAt = ContinuousClock.now
    task.cancel()
    let result = await task.result
    report.say(
      "cancelled the task; the timer was stopped \(Report.milliseconds(ContinuousClock.now - cancelledAt)) later")
    guard case .failure(let error) = result else { throw ScenarioFailure("the timer fired") }
    report.say("the task threw \(error)")
    try require(error is CancellationError, "expected CancellationError, got \(error)")
  },
  Scenario(name: "token-to-task", summary: "A token cancels async work: an hour-long Task.sleep stops at once") {
    report in
    let request = CancellationRequest()
    let sleeper = Task {
      try await withCancellationToken(request.token) { try await Task.sleep(for: .seconds(3_600)) }
    }
    try await Task.sleep(for: .milliseconds(50))
    let cancelledAt = ContinuousClock.now
    request.cancel()
    let result = await sleeper.result
    report.say(
      "cancelled the token; the task's sleep threw \(Report.milliseconds(ContinuousClock.now - cancelledAt)) later")
    guard case .failure(let error) = result else { throw ScenarioFailure("the sleep was not interrupted") }
    try require(error is CancellationError, "expected CancellationError, got \(error)")
  },
  Scenario(name: "task-to-token", summary: "Cancelling a task cancels the token that token-style code polls") {
    report in
    let polling = Task {
      await withTaskCancellationToken { token in
        var rounds = 0
        while !token.isCancelled {  // token-style code that knows nothing about tasks
          rounds += 1
          usleep(1_000)
        }
        return (rounds, token.reason)
      }
    }
    try await Task.sleep(for: .milliseconds(50))
    polling.cancel()
    let (count, reason) = await polling.value
    report.say(
      "the polling loop saw its token cancelled after \(count) rounds; reason: \(reason.map { "\($0)" } ?? "none")")
    try require(reason is CancellationError, "the token was not cancelled by the task")
  },
]

/// One outcome, delivered from any thread, awaited once, with the instant it arrived.
final class Outcome<Value: Sendable>: Sendable {
  private let cell = SettleCell<(Swift.Result<Value, any Error>, ContinuousClock.Instant)>()

  func deliver(_ value: Swift.Result<Value, any Error>) {
    cell.settle((value, .now))
  }

  func value() async -> (Swift.Result<Value, any Error>, ContinuousClock.Instant) {
    await withCheckedContinuation { continuation in
      cell.observe { continuation.resume(returning: $0) }
    }
  }
}

extension CancellationToken {
  /// Waits until this token is cancelled and returns when that happened.
  func cancelledAt() async -> ContinuousClock.Instant {
    await cancelled()
    return .now
  }
}
