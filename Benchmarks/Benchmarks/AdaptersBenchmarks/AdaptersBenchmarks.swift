import Adapters
import Benchmark
import Futures
import MachineFloor
import Promises
import Synchronization
import Tokens

// The async bridges, each beside Swift's own `withTaskCancellationHandler` (+ a checked
// continuation where the bridge suspends) measured in the same run: the budget is at most
// twice that baseline. Every loop is scaled by 1,000 (`scalingFactor: .kilo`): the figures marked
// `*` are per operation.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal, .throughput],
    timeUnits: .nanoseconds,
    warmupIterations: 3,
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: 1_000
  )

  registerMachineFloor()  // the `floor:` benchmark: see MachineFloor

  // MARK: entering and leaving a cancellation scope

  Benchmark("enter+exit: withCancellationToken") { benchmark async in
    let request = CancellationRequest()
    let token = request.token
    for index in benchmark.scaledIterations {
      try? await withCancellationToken(token) { blackHole(index) }
    }
    blackHole(request)
  }
  Benchmark("enter+exit: withTaskCancellationToken") { benchmark async in
    for index in benchmark.scaledIterations {
      await withTaskCancellationToken { token in
        blackHole(token); blackHole(index)
      }
    }
  }
  Benchmark("enter+exit: baseline withTaskCancellationHandler") { benchmark async in
    for index in benchmark.scaledIterations {
      await withTaskCancellationHandler {
        blackHole(index)
      } onCancel: {
      }
    }
  }
  Benchmark("enter+exit: baseline withTaskCancellationHandler + continuation") { benchmark async in
    for index in benchmark.scaledIterations {
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          blackHole(index)
          continuation.resume()
        }
      } onCancel: {
      }
    }
  }

  // MARK: running work that reports at once

  let immediate = CancellableWork<Int> { _, completion in completion(.success(1)) }
  Benchmark("run: CancellableWork reporting at once") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      blackHole(try await immediate.run())
    }
  }

  // MARK: the current token: an adapter given no token, outside any scope, beside the same call
  // given one (issue 30's budget: at most 5 % slower), and the lookup itself

  Benchmark("run: CancellableWork reporting at once, explicit CancellationToken.none") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      blackHole(try await immediate.run(token: CancellationToken.none))
    }
  }
  Benchmark("start: CancellableWork reporting at once, no token, no scope") { benchmark in
    for _ in benchmark.scaledIterations {
      immediate.start { blackHole($0) }
    }
  }
  Benchmark("start: CancellableWork reporting at once, explicit signal") { benchmark in
    for _ in benchmark.scaledIterations {
      immediate.start(signal: .never) { blackHole($0) }
    }
  }
  Benchmark("read: CancellationToken.current, no scope") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(CancellationToken.current)
    }
  }
  Benchmark("read: CancellationToken.current, in a scope") { benchmark in
    let request = CancellationRequest()
    CancellationToken.withCurrent(request.token) {
      for _ in benchmark.scaledIterations {
        blackHole(CancellationToken.current)
      }
    }
  }

  // MARK: awaiting a cancellable promise

  Benchmark("await: CancellablePromise.async(), resolved") { benchmark async throws in
    let promise = Promise.value(1).cancellize()
    for _ in benchmark.scaledIterations {
      blackHole(try await promise.async())
    }
  }
  Benchmark("await: CancellablePromise.async(), pending then fulfilled") { benchmark async throws in
    for index in benchmark.scaledIterations {
      let (promise, resolver) = CancellablePromise<Int>.pending()
      async let value = promise.async()
      resolver.fulfill(index)
      blackHole(try await value)
    }
  }
  Benchmark("create+fulfil: CancellablePromise.pending(), no await (the share of the promise itself)") {
    benchmark in
    for index in benchmark.scaledIterations {
      let (promise, resolver) = CancellablePromise<Int>.pending()
      blackHole(promise)
      resolver.fulfill(index)
    }
  }
  Benchmark("await: baseline withTaskCancellationHandler + continuation, resumed at once") { benchmark async in
    for index in benchmark.scaledIterations {
      let value = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
          continuation.resume(returning: index)
        }
      } onCancel: {
      }
      blackHole(value)
    }
  }
  Benchmark("await: baseline withTaskCancellationHandler + continuation, resumed by another task") {
    benchmark async in
    for index in benchmark.scaledIterations {
      let box = ContinuationBox()
      async let value = withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
          box.set(continuation)
        }
      } onCancel: {
      }
      box.resume(returning: index)
      blackHole(await value)
    }
  }
  Benchmark("await: Future.async(), completed") { benchmark async throws in
    for index in benchmark.scaledIterations {
      blackHole(try await Future(success: index).async())
    }
  }
}

/// Hands a continuation to the code that resumes it, whichever comes first (the baseline's
/// equivalent of a promise's resolver).
final class ContinuationBox: Sendable {
  private enum State {
    case empty
    case waiting(CheckedContinuation<Int, Never>)
    case ready(Int)
  }
  private let state = Mutex(State.empty)

  func set(_ continuation: CheckedContinuation<Int, Never>) {
    let ready: Int? = state.withLock { state in
      if case .ready(let value) = state { return value }
      state = .waiting(continuation)
      return nil
    }
    if let ready { continuation.resume(returning: ready) }
  }

  func resume(returning value: Int) {
    let waiting: CheckedContinuation<Int, Never>? = state.withLock { state in
      if case .waiting(let continuation) = state {
        state = .empty
        return continuation
      }
      state = .ready(value)
      return nil
    }
    waiting?.resume(returning: value)
  }
}
