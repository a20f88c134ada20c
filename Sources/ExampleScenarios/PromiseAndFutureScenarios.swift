import Adapters
import Foundation
import Futures
import LocalHTTPServer
import Promises
import Tokens

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Scenarios of the Promises and Futures facades on real work, and of the bridges between them.
let promiseAndFutureScenarios: [Scenario] = [
  Scenario(name: "promise-process", summary: "Cancelling a promise chain stops the `sleep 3600` child at its root") {
    report in
    let child = ObservedChild(try requireExecutable("sleep"), arguments: ["3600"])
    let chain = child.work.promise()
      .map(on: nil) { $0.standardOutputText }
    let pid = try await child.pid()
    report.say("a chain of two promises runs `sleep 3600` (process \(pid)); cancelling its tail")
    let cancelledAt = ContinuousClock.now
    chain.cancel()
    report.say("the whole chain was rejected synchronously: \(chain.error.map { "\($0)" } ?? "not rejected")")
    let goneAfter = try await child.goneAfter(cancelledAt)
    report.say("the child was gone \(Report.milliseconds(goneAfter)) after cancel()")
    try require(chain.isRejected && chain.isCancelled, "the chain was not cancelled")
  },
  Scenario(name: "promise-async", summary: "A promise made from an async task: cancel() interrupts the task's sleep") {
    report in
    let interrupted = Outcome<Bool>()
    let promise = CancellablePromise<Void> {
      do {
        try await Task.sleep(for: .seconds(3_600))
      } catch {
        interrupted.deliver(.success(error is CancellationError))
        throw error
      }
    }
    try await Task.sleep(for: .milliseconds(20))
    let cancelledAt = ContinuousClock.now
    promise.cancel()
    let (result, endedAt) = await interrupted.value()
    report.say(
      "cancel() rejected the promise at once; the task's sleep threw \(Report.milliseconds(endedAt - cancelledAt)) later"
    )
    try require((try? result.get()) == true, "the task was not cancelled")
  },
  Scenario(name: "future-http", summary: "A cancel request on a future stops a slow HTTP download mid-transfer") {
    report in
    let server = try LocalHTTPServer(chunkSize: 1024, chunkCount: 4_000_000, chunkInterval: .milliseconds(10))
    defer { server.stop() }
    let future = URLSession.shared.dataWork(from: server.baseURL.appendingPathComponent("slow")).future()
      .map(.immediate) { $0.data.count }
    await server.answerStarted(path: "/slow")
    let cancelledAt = ContinuousClock.now
    future.getCancelToken().cancel()
    let end = await server.connectionEnd(number: 1)
    report.say(
      "requested cancellation of the tail of a 2-stage chain; the server saw the client hang up \(Report.milliseconds(ContinuousClock.now - cancelledAt)) later, after \(end.bodyBytesSent / 1024) KB"
    )
    let result = await future.settled()
    report.say("the future completed \(result)")
    try require(result.isCancelled && end.clientClosedEarly, "the transfer was not stopped: \(result)")
  },
  Scenario(name: "future-tree", summary: "One of two consumers cancels: its branch ends, the shared timer runs on") {
    report in
    let shared = Future(afterDelay: 0.2, success: "tick")
    let first = shared.map(.immediate) { "first got \($0)" }
    let second = shared.map(.immediate) { "second got \($0)" }
    first.getCancelToken().cancel()
    report.say("the first consumer cancelled: its branch is \(first.result.map { "\($0)" } ?? "pending")")
    let other = await second.settled()
    report.say("the timer still fired for the second: \(other)")
    try require(first.result?.isCancelled == true && other.value == "second got tick", "the tree rules did not hold")
  },
  Scenario(name: "await-chain", summary: "Cancelling a task that awaits a promise chain cancels the chain") { report in
    let child = ObservedChild(try requireExecutable("sleep"), arguments: ["3600"])
    let waiter = Task {
      try await child.work.promise()
        .map(on: nil) { $0.succeeded }
        .async()
    }
    _ = try await child.pid()
    let cancelledAt = ContinuousClock.now
    waiter.cancel()
    let result = await waiter.result
    report.say(
      "cancelled the awaiting task; the await threw \(result) \(Report.milliseconds(ContinuousClock.now - cancelledAt)) later"
    )
    let goneAfter = try await child.goneAfter(cancelledAt)
    report.say("and the child at the chain's root was gone \(Report.milliseconds(goneAfter)) after the cancel")
    try require(result.isCancellation, "the await did not end cancelled")
  },
  Scenario(name: "one-token", summary: "One token stops a promise chain, a future and a task, each on real work") {
    report in
    let child = ObservedChild(try requireExecutable("sleep"), arguments: ["3600"])
    let request = CancellationRequest()
    let chain = child.work.promise()
    let timer = DispatchQueue.global().scheduledWork(after: .seconds(3_600)) { "fired" }.future()
    let task = Task { try await Task.sleep(for: .seconds(3_600)) }
    request.token.register(cancelable: chain)
    request.token.register(future: timer)
    request.token.register(cancelable: task)
    _ = try await child.pid()
    let cancelledAt = ContinuousClock.now
    request.cancel()
    let timerResult = await timer.settled()
    let taskResult = await task.result
    let goneAfter = try await child.goneAfter(cancelledAt)
    report.say("one request.cancel(): the promise chain was rejected: \(chain.isRejected)")
    report.say("the future's timer was stopped: \(timerResult); the task threw: \(taskResult)")
    report.say("the chain's child process was gone \(Report.milliseconds(goneAfter)) after the cancel")
    try require(chain.isRejected && timerResult.isCancelled && taskResult.isCancellation, "something kept running")
  },
]

/// The path of an executable found in `PATH`.
func requireExecutable(_ name: String) throws -> URL {
  guard let url = ChildProcess.findExecutable(named: name) else { throw ScenarioFailure("no `\(name)` in PATH") }
  return url
}

/// A child process run as `CancellableWork`, reporting when it launched (its pid) and when the
/// engine reported its end (after the child was reaped): a cancelled promise rejects at once, and
/// these tell how long the process itself took to go.
struct ObservedChild: Sendable {
  let work: CancellableWork<ProcessOutput>
  let launched = Outcome<Int32>()
  let reaped = Outcome<Void>()

  init(_ executable: URL, arguments: [String]) {
    let launched = launched
    let reaped = reaped
    work = CancellableWork { signal, completion in
      ChildProcess.run(executable, arguments: arguments, signal: signal) { pid in
        launched.deliver(.success(pid))
      } completion: { result in
        launched.deliver(.failure(ScenarioFailure("the child did not start")))  // ignored once launched
        reaped.deliver(.success(()))
        completion(result)
      }
    }
  }

  /// The launched child's pid.
  func pid() async throws -> Int32 { try await launched.value().0.get() }

  /// How long after `start` the child was reaped; checks that the pid is gone.
  func goneAfter(_ start: ContinuousClock.Instant) async throws -> Duration {
    let pid = try await pid()
    let (_, reapedAt) = await reaped.value()
    try require(kill(pid, 0) == -1, "process \(pid) still exists")
    return reapedAt - start
  }
}

extension Future {
  /// The future's result once it completes (without the async bridge, to show the future's own
  /// `.cancelled` state).
  func settled() async -> FutureResult<T> {
    await withCheckedContinuation { continuation in
      onComplete(.immediate) { continuation.resume(returning: $0) }
    }
  }
}
