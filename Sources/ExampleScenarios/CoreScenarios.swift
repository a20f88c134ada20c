import CancelCore
import Foundation

/// Scenarios of the core alone.
let coreScenarios: [Scenario] = [
  Scenario(name: "core-deadline", summary: "A polling loop stopped by a 150 ms deadline (TimeoutError)") { report in
    let source = CancelSource(timeout: .milliseconds(150))
    let started = ContinuousClock.now
    var rounds = 0
    report.say("working until the deadline cancels the source")
    while !source.isCancelled {
      rounds += 1
      try await Task.sleep(for: .milliseconds(5))  // the "work"
    }
    let reason = source.signal.reason
    report.say(
      "stopped after \(rounds) rounds, \(Report.milliseconds(ContinuousClock.now - started)); reason: \(reason.map { "\($0)" } ?? "none")"
    )
    try require(reason is TimeoutError, "expected a TimeoutError, got \(String(describing: reason))")
  },
  Scenario(name: "core-tree", summary: "One cancel reaches a tree of linked sources, handlers newest first") { report in
    struct ClientWentAway: Error {}
    let request = CancelSource()
    let database = CancelSource(linkedTo: request.signal)
    let cache = CancelSource(linkedTo: request.signal)
    let query = CancelSource(linkedTo: database.signal)
    let order = OrderLog()
    request.signal.onCancel { order.add("request") }
    database.signal.onCancel { order.add("database") }
    cache.signal.onCancel { order.add("cache") }
    query.signal.onCancel { (reason: any Error) in
      order.add("query (\(reason is ClientWentAway ? "same reason" : "other reason"))")
    }
    let started = ContinuousClock.now
    request.cancel(reason: ClientWentAway())
    let took = ContinuousClock.now - started
    report.say("cancelled the request; handlers ran in this order: \(order.entries.joined(separator: ", "))")
    report.say("the whole tree was cancelled in \(Report.milliseconds(took)), synchronously, on this thread")
    try require(query.isCancelled && cache.isCancelled, "the tree was not fully cancelled")
  },
  Scenario(name: "core-await", summary: "A task waiting for cancellation wakes when another task cancels") { report in
    let source = CancelSource()
    let signal = source.signal
    let waiter = Task { () -> ContinuousClock.Instant in
      await signal.cancelled()
      return ContinuousClock.now
    }
    try await Task.sleep(for: .milliseconds(20))  // let the waiter suspend: this is a demo, not a test
    let cancelledAt = ContinuousClock.now
    source.cancel()
    let wokeAt = await waiter.value
    report.say("a task suspended in signal.cancelled(); another cancelled the source")
    report.say("the waiter resumed \(Report.milliseconds(wokeAt - cancelledAt)) after cancel()")
    try require(wokeAt >= cancelledAt, "the waiter resumed before the cancel")
  },
]

/// An order-preserving log shared with handlers.
final class OrderLog: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `items` is read and written only inside `lock.withLock`.
  private var items: [String] = []

  func add(_ item: String) { lock.withLock { items.append(item) } }
  var entries: [String] { lock.withLock { items } }

  init() {
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }
}
