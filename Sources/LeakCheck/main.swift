// The leak check CI runs under LeakSanitizer (`swift build --sanitize=address`, which includes it
// on Linux, run with `ASAN_OPTIONS=detect_leaks=1`): every example scenario, then a mixed stress
// of every facade that completes, cancels and drops pending work of every kind, from two threads.
// At exit LeakSanitizer reports any object nobody can reach any more (a reference cycle is one)
// and the process fails. An executable rather than the test runner: the XCTest runner's own
// objects would be reported.
import Adapters
import Dispatch
import ExampleScenarios
import Foundation
import Futures
import Promises
import Tokens

let iterations = Int(ProcessInfo.processInfo.environment["LEAK_CHECK_ITERATIONS"] ?? "") ?? 2_000
// The stress drops pending promises on purpose: no warning for each.
conf.logHandler = { _ in }

/// Writes a line at once (unbuffered), so it precedes the sanitizer's report at exit.
func say(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

// MARK: Every example scenario

var failures = 0
for scenario in allScenarios {
  do {
    try await scenario.run(Report(echo: false))
  } catch {
    failures += 1
    say("✘ \(scenario.name): \(error)")
  }
}
say("ran \(allScenarios.count) scenarios, \(failures) failed")

// MARK: A mixed stress of every facade

/// Where queued stages run; drained before the process exits, so no block is still on its way.
let queue = DispatchQueue(label: "leak-check", attributes: .concurrent)

struct Stop: Error {}

/// One round of everything, `round` choosing how each piece ends: completed, cancelled, or dropped
/// while pending.
@Sendable func round(_ round: Int) {
  let ending = round % 3

  // Core: sources, links, deadlines, members through a token.
  let parent = CancelSource()
  let child = CancelSource(linkedTo: parent.signal)
  let observed = CancelSource()
  child.signal.onCancel { _ = observed }
  parent.cancel(after: .seconds(3600))
  if ending == 0 { parent.cancel() } else if ending == 1 { child.close() }

  // Tokens: derived tokens, registrations, handles.
  let request = CancellationRequest()
  let other = CancellationRequest()
  let derived = (request.token || other.token).map { true } && request.token.flatMap { other.token }
  derived.onComplete { _ in _ = other.token }
  request.token.register(cancelable: other)
  let producer = Futures.Promise<Int>()
  request.token.register(cancelable: producer.future.getCancelToken())

  // Promises: a plain chain, a guarantee chain, a cancellable chain with every kind of stage.
  let (plain, plainResolver) = Promises.Promise<Int>.pending()
  plain.map(on: nil) { $0 + 1 }.then(on: queue) { Promises.Promise.value($0) }
    .recover(on: nil) { _ in Promises.Promise.value(0) }.done(on: nil) { _ in }.catch(on: nil) { _ in }
  let (guarantee, resolve) = Guarantee<Int>.pending()
  guarantee.map(on: nil) { $0 + 1 }.done(on: queue) { _ in }
  let (root, rootResolver) = CancellablePromise<Int>.pending()
  let finalizer = root.map(on: nil) { $0 + 1 }
    .then(on: queue) { value in CancellablePromise<Int>(task: nil) { $0.fulfill(value) } }
    .recover(on: nil) { _ in Promises.Promise.value(0) }
    .ensure(on: nil) {}
    .done(on: nil) { _ in }
    .catch(on: nil, policy: .allErrors) { _ in }
  request.token.register(cancelable: finalizer)
  let racers = (0..<3).map { _ in CancellablePromise<Int>.pending() }
  let raced = race(racers.map(\.promise), autoCancel: true)
  let all = when(fulfilled: racers.map(\.promise))

  // Futures: a chain with every kind of stage, a combination, a bridge to promises.
  let mapped = producer.future.map(.immediate) { $0 + 1 }
    .onSuccess(.immediate) { Future(success: $0) }
    .onComplete(.immediate) { _ in Completion<Int>.success(0) }
  mapped.onFail(.immediate) { _ in }
  let combined = combineFutures(mapped, producer.future.map(.immediate) { $0 })
  let bridged = mapped.asCancellablePromise()

  switch ending {
  case 0:
    plainResolver.fulfill(1)
    resolve(1)
    rootResolver.fulfill(1)
    for racer in racers { racer.resolver.fulfill(1) }
    producer.completeWithSuccess(1)
    request.cancel()
  case 1:
    plainResolver.reject(Stop())
    root.cancel()
    raced.cancel()
    all.cancel()
    combined.getCancelToken().cancel()
    bridged.cancel()
    request.cancel(reason: Stop())
  default:
    break  // everything dropped pending
  }
}

// Two threads at once, so the stress also crosses threads.
DispatchQueue.concurrentPerform(iterations: 2) { worker in
  for index in 0..<iterations { round(index * 2 + worker) }
}
queue.sync(flags: .barrier) {}

say("ran \(iterations * 2) rounds of the mixed stress")
exit(failures == 0 ? 0 : 1)
