import Adapters
import Benchmark
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

  // MARK: entering and leaving a cancellation scope

  Benchmark("enter+exit: withCancellationToken") { benchmark async in
    let request = CancellationRequest()
    let token = request.token
    for index in benchmark.scaledIterations {
      await withCancellationToken(token) { blackHole(index) }
    }
    blackHole(request)
  }
  Benchmark("enter+exit: withTaskCancellationToken") { benchmark async in
    for index in benchmark.scaledIterations {
      await withTaskCancellationToken { token in blackHole(token); blackHole(index) }
    }
  }
  Benchmark("enter+exit: baseline withTaskCancellationHandler") { benchmark async in
    for index in benchmark.scaledIterations {
      await withTaskCancellationHandler { blackHole(index) } onCancel: {}
    }
  }
  Benchmark("enter+exit: baseline withTaskCancellationHandler + continuation") { benchmark async in
    for index in benchmark.scaledIterations {
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          blackHole(index)
          continuation.resume()
        }
      } onCancel: {}
    }
  }

  // MARK: running work that reports at once

  let immediate = CancellableWork<Int> { _, completion in completion(.success(1)) }
  Benchmark("run: CancellableWork reporting at once") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      blackHole(try await immediate.run())
    }
  }
}
