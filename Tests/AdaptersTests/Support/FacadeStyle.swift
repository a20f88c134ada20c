import Adapters
import Foundation
import Futures
import Promises
import TestSupport
import Testing
import Tokens

/// A way of starting a `CancellableWork`: the style of one facade. Adapter tests run each real
/// piece of work in every style, so every facade's reach is proven on real work.
enum FacadeStyle: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// `try await work.run()` in a task; cancelled by cancelling the task.
  case async
  /// `work.start(token:)`; cancelled by the token's request.
  case token
  /// `work.start(signal:)`; cancelled by a core `CancelSource`.
  case signal
  /// `work.future()`; cancelled by a request through the future's `CancelToken`.
  case future
  /// `work.promise()`; cancelled by the `CancellablePromise`'s `cancel()`.
  case promise

  var testDescription: String { rawValue }
}

/// Work started in one style: how to cancel it, how to await its one outcome, and how to await
/// the end of the work itself (a cancelled promise rejects at once, before the stopped work has
/// reported: a test that checks the work is gone awaits `workEnded`).
struct StartedWork<Value: Sendable>: Sendable {
  let cancel: @Sendable () -> Void
  let outcome: @Sendable () async -> Swift.Result<Value, any Error>
  let workEnded: @Sendable () async -> Void
}

/// Receives a work's outcome and lets a test await it; counts deliveries to prove "exactly once".
final class OutcomeBox<Value: Sendable>: Sendable {
  private let cell = SettleCell<Swift.Result<Value, any Error>>()
  private let deliveries = Counter()

  /// How many outcomes were delivered (must end at 1).
  var deliveryCount: Int { deliveries.value }

  func deliver(_ result: Swift.Result<Value, any Error>) {
    deliveries.increment()
    cell.settle(result)
  }

  /// Awaits the outcome, then checks it was the only one so far.
  func waitForTheOnlyOutcome() async -> Swift.Result<Value, any Error> {
    let outcome = await wait()
    #expect(deliveryCount == 1, "the work reported \(deliveryCount) times")
    return outcome
  }

  func wait() async -> Swift.Result<Value, any Error> {
    await withCheckedContinuation { continuation in
      cell.observe { continuation.resume(returning: $0) }
    }
  }
}

extension CancellableWork {
  /// Starts this work in `style`, returning once the work's engine has been called (so a test
  /// can act on the running work, and a cancel reaches a started work, not a task still queued).
  func start(as style: FacadeStyle) async -> StartedWork<Value> {
    let engineCalled = OutcomeBox<Void>()
    let engineEnded = OutcomeBox<Void>()
    let observed = CancellableWork { signal, completion in
      start(signal: signal) { result in
        engineEnded.deliver(.success(()))
        completion(result)
      }
      engineCalled.deliver(.success(()))
    }
    let ended: @Sendable () async -> Void = { _ = await engineEnded.wait() }
    let started: StartedWork<Value>
    switch style {
    case .async:
      let task = Task { try await observed.run() }
      started = StartedWork(cancel: { task.cancel() }, outcome: { await task.result }, workEnded: ended)
    case .token:
      let request = CancellationRequest()
      let box = OutcomeBox<Value>()
      observed.start(token: request.token) { box.deliver($0) }
      started = StartedWork(
        cancel: { request.cancel() }, outcome: { await box.waitForTheOnlyOutcome() }, workEnded: ended)
    case .future:
      let future = observed.future()
      started = StartedWork(
        cancel: { future.getCancelToken().cancel() }, outcome: { await future.outcome() }, workEnded: ended)
    case .promise:
      let promise = observed.promise()
      started = StartedWork(cancel: { promise.cancel() }, outcome: { await promise.outcome() }, workEnded: ended)
    case .signal:
      let source = CancelSource()
      let box = OutcomeBox<Value>()
      observed.start(signal: source.signal) { box.deliver($0) }
      started = StartedWork(
        cancel: { source.cancel() }, outcome: { await box.waitForTheOnlyOutcome() }, workEnded: ended)
    }
    _ = await engineCalled.wait()
    return started
  }

  /// Runs this work to its end in `style`, without cancelling it.
  func outcome(as style: FacadeStyle) async -> Swift.Result<Value, any Error> {
    await start(as: style).outcome()
  }
}

extension Future {
  /// The future's result as a `Result` (`.cancelled` as `CancellationError()`), awaited without
  /// the async bridge under test.
  func outcome() async -> Swift.Result<T, any Error> {
    await withCheckedContinuation { continuation in
      onComplete(.immediate) { continuation.resume(returning: $0.swiftResult) }
    }
  }
}

extension CancellablePromise {
  /// The promise's result, awaited without the async bridge under test.
  func outcome() async -> Swift.Result<T, any Error> {
    await withCheckedContinuation { continuation in
      promise.pipe { continuation.resume(returning: $0) }
    }
  }
}
