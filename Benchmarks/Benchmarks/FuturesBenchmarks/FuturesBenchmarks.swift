import Benchmark
import Futures
import MachineFloor
import Synchronization

// Each Futures operation is measured beside a baseline in the same run: a bare settle-once cell
// (one `Mutex`, one optional callback, no ordering, no cancellation: the least a future can be)
// and, for requests, the core's own propagation through linked `CancelSource`s. Every benchmark scales its
// loop by 1,000 (`scalingFactor: .kilo`), so each figure is per future or per stage. Objects
// escape through `blackHole` so none is stack-promoted. The target: at most 200 ns per
// stage.
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

  // MARK: create + complete + free

  Benchmark("create+complete+free: Futures.Promise") { benchmark in
    for _ in benchmark.scaledIterations {
      let promise = Futures.Promise<Int>()
      blackHole(promise)
      promise.completeWithSuccess(1)
      blackHole(promise.future)
    }
  }
  Benchmark("create+complete+free: completed Future(success:)") { benchmark in
    for index in benchmark.scaledIterations {
      blackHole(Future(success: index))
    }
  }
  Benchmark("create+settle+free: baseline BareCell") { benchmark in
    for _ in benchmark.scaledIterations {
      let cell = BareCell()
      blackHole(cell)
      cell.settle(1)
    }
  }

  // MARK: a 1,000-stage chain, built on a pending root, then completed (per stage)

  Benchmark("map chain, per stage (.immediate): Future.map") { benchmark in
    let root = Futures.Promise<Int>()
    var tail = root.future
    for _ in benchmark.scaledIterations {
      tail = tail.map(.immediate) { $0 &+ 1 }
    }
    root.completeWithSuccess(0)
    blackHole(tail.value)
  }
  Benchmark("map chain, per stage: baseline BareCell chain (recursive)") { benchmark in
    let root = BareCell()
    var tail = root
    for _ in benchmark.scaledIterations {
      let next = BareCell()
      tail.observe { next.settle($0 &+ 1) }
      tail = next
    }
    root.settle(0)
    blackHole(tail.value)
  }

  // MARK: a cancel request through a 1,000-stage chain (per stage; building is not measured)

  Benchmark("cancel request through a chain, per stage: CancelToken") { benchmark in
    let root = Futures.Promise<Int>()
    root.automaticallyCancelOnRequestCancel()
    var tail = root.future
    for _ in benchmark.scaledIterations {
      tail = tail.map(.immediate) { $0 &+ 1 }
    }
    let token = tail.getCancelToken()
    benchmark.startMeasurement()
    token.cancel()
    benchmark.stopMeasurement()
    blackHole(tail.result)
  }
  Benchmark("cancel through a chain, per stage: core linked CancelSource chain") { benchmark in
    let root = CancelSource()
    var sources = [root]
    for _ in benchmark.scaledIterations {
      sources.append(CancelSource(linkedTo: sources[sources.count - 1].signal))
    }
    benchmark.startMeasurement()
    root.cancel()
    benchmark.stopMeasurement()
    blackHole(sources)
  }
}

/// The least a future can be: a value settled once, with one callback, under one `Mutex`.
final class BareCell: Sendable {
  private struct State {
    var value: Int?
    var callback: (@Sendable (Int) -> Void)?
  }
  private let state = Mutex(State())

  var value: Int? { state.withLock { $0.value } }

  func settle(_ value: Int) {
    let callback = state.withLock { state -> (@Sendable (Int) -> Void)? in
      guard state.value == nil else { return nil }
      state.value = value
      defer { state.callback = nil }
      return state.callback
    }
    callback?(value)
  }

  func observe(_ callback: @escaping @Sendable (Int) -> Void) {
    let now = state.withLock { state -> Int? in
      if let value = state.value { return value }
      state.callback = callback
      return nil
    }
    if let now { callback(now) }
  }
}
