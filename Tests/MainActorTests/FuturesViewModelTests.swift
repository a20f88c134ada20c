import Dispatch
import Futures
import TestSupport
import Testing

// A `@MainActor` view model written as an app writes one with Futures (Swift 6 language mode, like
// the whole package): its blocks assign its properties, with no `assumeIsolated`. (This file
// imports only `Futures`, so `Promise` is `Futures.Promise` here.)

/// The model's back end: futures completed on a global queue, as network code completes them.
struct FutureNameService: Sendable {
  var names = ["1": "Ada", "2": "Grace"]

  func name(of id: String) -> Future<String> {
    let promise = Promise<String>()
    DispatchQueue.global().async {
      if let name = names[id] {
        promise.completeWithSuccess(name)
      } else {
        promise.completeWithFail(FutureLookupError.unknown(id))
      }
    }
    return promise.future
  }
}

enum FutureLookupError: Error, Equatable {
  case unknown(String)
}

/// Whether the caller runs on the main queue, the main actor's executor.
private var onMainQueue: Bool { QueueProbe.mainLabel == "main" }

extension Future {
  /// The result, once the future completed (the test waits for the completion, not for time).
  func outcome() async -> FutureResult<T> {
    await withCheckedContinuation { (done: CheckedContinuation<FutureResult<T>, Never>) in
      onComplete(Executor.immediate) { result in done.resume(returning: result) }
    }
  }

  /// The value, or the error thrown (a cancellation throws `CancellationError`).
  func value() async throws -> T {
    switch await outcome() {
    case .success(let value): return value
    case .fail(let error): throw error
    case .cancelled: throw CancellationError()
    }
  }
}

@MainActor
final class FuturesViewModel {
  let service: FutureNameService
  var label = ""
  var error: (any Error)?
  var cancelled = false
  var completions = 0
  /// Whether each block ran on the main queue, in the order they ran.
  var ranOnMainQueue: [Bool] = []
  /// What the view does when the model changed (the tests resume here).
  var changed: () -> Void = {}

  init(service: FutureNameService = FutureNameService()) {
    self.service = service
  }

  func record() {
    ranOnMainQueue.append(onMainQueue)
  }

  /// The common line, with `.main`.
  func loadOnMain(id: String) {
    service.name(of: id).onSuccess(.main) { name in
      self.record()
      self.label = name
    }.onFail(.main) { error in
      self.record()
      self.error = error
    }.onComplete(.main) { _ in
      self.changed()
    }
  }

  /// The common line with the default executor (`.primary`), `map`, and a block returning a future.
  func loadBoth() {
    service.name(of: "1").map { name in
      self.record()
      return name.uppercased()
    }.onSuccess { first -> Future<String> in
      self.record()
      return self.service.name(of: "2").map { first + " & " + $0 }
    }.onSuccess { both in
      self.record()
      self.label = both
    }.onFail { error in
      self.error = error
    }.onComplete { _ in
      self.changed()
    }
  }

  /// `onComplete`'s completion form, `.current`, and `Future(block:)`.
  func loadWithFallback(id: String) {
    let prefix = Future { self.label + ":" }
    service.name(of: id).onComplete(.current) { result -> Completion<String> in
      self.record()
      switch result {
      case .success(let name): return .success((prefix.value ?? "") + name)
      case .fail: return .completeUsing(Future(.main) { "nobody" })
      case .cancelled: return .cancelled
      }
    }.onSuccess { name in
      self.label = name
      self.changed()
    }
  }

  /// A download that only ends when the model cancels it: its request handler and the chain's
  /// `onCancel` run on the main actor.
  var pending: CancelToken?

  func startDownload() -> Future<String> {
    let promise = Promise<String>()
    promise.onRequestCancel { _ in
      self.record()
      self.completions += 1
      return .complete(.cancelled)
    }
    pending = promise.future.onCancel { [self] in
      record()
      cancelled = true
    }.onComplete(.main) { _ in
      self.changed()
    }.getCancelToken()
    return promise.future
  }
}

@MainActor
@Suite("A @MainActor view model's futures")
struct FuturesViewModelTests {
  /// Runs `start` with a model and waits until the model reports a change.
  func run(_ model: FuturesViewModel, _ start: (FuturesViewModel) -> Void) async {
    await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
      model.changed = { changed.resume() }
      start(model)
    }
  }

  @Test func theCommonLineOnMain() async {
    let model = FuturesViewModel()
    await run(model) { $0.loadOnMain(id: "2") }
    #expect(model.label == "Grace")
    #expect(model.error == nil)
    #expect(model.ranOnMainQueue == [true])

    let failing = FuturesViewModel()
    await run(failing) { $0.loadOnMain(id: "3") }
    #expect(failing.label == "")
    #expect(failing.error as? FutureLookupError == .unknown("3"))
    #expect(failing.ranOnMainQueue == [true])
  }

  @Test func theDefaultExecutorMapAndAFutureReturningBlock() async {
    let model = FuturesViewModel()
    await run(model) { $0.loadBoth() }
    #expect(model.label == "ADA & Grace")
    #expect(model.ranOnMainQueue == [true, true, true])
  }

  @Test func aCompletionBlockAndTheBlockInitializer() async {
    let model = FuturesViewModel()
    model.label = "hi"
    await run(model) { $0.loadWithFallback(id: "1") }
    #expect(model.label == "hi:Ada")

    // The failure hands the future over to a future made on the main actor.
    let fallback = FuturesViewModel()
    await run(fallback) { $0.loadWithFallback(id: "9") }
    #expect(fallback.label == "nobody")
    #expect(fallback.ranOnMainQueue == [true])
  }

  @Test func theBlockInitializerRunsAtOnceOnTheMainActor() {
    let model = FuturesViewModel()
    model.label = "now"
    // Called on the main actor: the block ran before the initializer returned.
    let future = Future { () -> String in
      model.record()
      return model.label
    }
    #expect(future.value == "now")
    #expect(model.ranOnMainQueue == [true])
  }

  @Test func aCancelRequestRunsTheHandlerAndOnCancelOnTheMainActor() async {
    let model = FuturesViewModel()
    var download: Future<String>?
    await run(model) { model in
      download = model.startDownload()
      model.pending?.cancel()
    }
    #expect(model.completions == 1)
    #expect(model.cancelled)
    #expect(model.ranOnMainQueue == [true, true])
    #expect(download?.result?.isCancelled == true)
  }

  @Test func aBlockIsolatedToTheMainActorRunsOnTheMainQueueWhateverTheExecutor() async throws {
    // Registered off the main actor, where `.primary` and `.current` name the global queue (see
    // `aBlockWithoutIsolationRunsOnItsExecutor`): a main-actor block still runs on the main queue.
    let (ran, ranInInit) = await Task.detached { () -> (Future<[Bool]>, Future<Bool>) in
      let value = Future(success: 1)
      let ran = value.onSuccess(.primary) { @MainActor _ in onMainQueue }.onSuccess(.current) {
        @MainActor first in [first, onMainQueue]
      }
      return (ran, Future(.primary) { @MainActor in onMainQueue })
    }.value
    #expect(try await ran.value() == [true, true])
    #expect(try await ranInInit.value() == true)
  }
}

@Suite("Futures' blocks that take on their caller's isolation")
struct FuturesIsolationTests {
  @Test func aBlockWithoutIsolationRunsOnItsExecutor() async throws {
    // Not on an actor: the default (`.primary`, here the global queue, as `.current` names it),
    // `.main`, and the initializer's immediate default run where the `Executor` forms do.
    let value = Future(success: 1)
    let onDefault = try await value.onSuccess { _ in onMainQueue }.value()
    let onPrimary = try await value.onSuccess(Executor.primary) { _ in onMainQueue }.value()
    let onMain = try await value.map(.main) { _ in onMainQueue }.value()
    #expect(!onDefault)
    #expect(!onPrimary)
    #expect(onMain)
    // The initializer's default runs the block before it returns.
    let now = Future { onMainQueue ? 0 : 1 }
    #expect(now.value == 1)
  }

  @Test func aBlockIsolatedToAnotherActorRunsOnThatActor() async throws {
    let counter = FutureCounter()
    #expect(try await counter.add(Future(success: 4)).value() == 4)
    #expect(try await counter.add(Future(success: 3)).value() == 7)
    #expect(await counter.total == 7)
    #expect(try await counter.addLater(Future(success: 1)).value() == 8)
    #expect(try await counter.made().value() == 8)

    // onFail and onCancel run on the actor and pass the result on.
    let failed = await counter.observe(Future<Int>(fail: FutureLookupError.unknown("x")))
    await #expect(throws: FutureLookupError.unknown("x")) { try await failed.value() }
    let cancelled = await counter.observe(Future<Int>(cancelled: ()))
    #expect(await cancelled.outcome().isCancelled)
    #expect(await counter.failures == 1)
    #expect(await counter.cancels == 1)

    // onComplete's two forms.
    #expect(try await counter.describe(Future(success: 2)).value() == "2")
    #expect(await counter.total == 10)
    try await counter.count(Future(success: 5)).value()
    #expect(await counter.completions == 1)

    // A request handler on the actor answers with a completion.
    let download = await counter.download()
    download.getCancelToken().cancel()
    #expect(await download.outcome().isCancelled)
    #expect(await counter.requests == 1)

    // A thrown error fails the future.
    await #expect(throws: FutureLookupError.unknown("t")) {
      try await counter.fail(Future(success: 0)).value()
    }
    #expect(await counter.failures == 2)
    #expect(await counter.ranInTask == [true, true, true, true])
  }
}

/// An actor whose futures' blocks touch its state: those blocks run on the actor.
actor FutureCounter {
  var total = 0
  var failures = 0
  var cancels = 0
  var completions = 0
  var requests = 0
  /// Whether each block that recorded it ran in a task (as a block awaited on the actor does; one
  /// run by an executor runs outside any task).
  var ranInTask: [Bool] = []

  func record() {
    ranInTask.append(withUnsafeCurrentTask { $0 != nil })
  }

  func add(_ value: Future<Int>) -> Future<Int> {
    value.onSuccess { value in
      self.record()
      self.total += value
      return self.total
    }
  }

  func addLater(_ value: Future<Int>) -> Future<Int> {
    value.onSuccess { value -> Future<Int> in
      self.total += value
      return Future(success: self.total)
    }
  }

  func made() -> Future<Int> {
    Future { self.total }
  }

  func observe(_ future: Future<Int>) -> Future<Int> {
    future.onFail { _ in
      self.record()
      self.failures += 1
    }.onCancel {
      self.cancels += 1
    }
  }

  func describe(_ future: Future<Int>) -> Future<String> {
    future.onComplete { result -> Completion<String> in
      self.total += result.value ?? 0
      return .success(result.value.map(String.init) ?? "-")
    }
  }

  func count(_ future: Future<Int>) -> Future<Void> {
    future.onComplete { _ in
      self.completions += 1
    }
  }

  func download() -> Future<String> {
    let promise = Promise<String>()
    promise.onRequestCancel { _ in
      self.record()
      self.requests += 1
      return .complete(.cancelled)
    }
    return promise.future
  }

  func fail(_ future: Future<Int>) -> Future<Int> {
    future.map { _ in
      self.failures += 1
      throw FutureLookupError.unknown("t")
    }
  }
}
