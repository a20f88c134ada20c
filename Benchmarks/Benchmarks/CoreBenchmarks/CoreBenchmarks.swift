import Benchmark
import CancelCore
import MachineFloor

// Every benchmark scales its loop by 1,000 (`scalingFactor: .kilo`): the figures marked `*` in the
// output are per operation. Objects escape through `blackHole` so none is stack-promoted.
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

  // MARK: isCancelled

  // The count is consumed once after the loop, so the loop measures the load itself rather than a
  // call per iteration; an acquiring atomic load is never hoisted out of the loop.
  Benchmark("isCancelled: CancelSignal") { benchmark in
    let source = CancelSource()
    let signal = source.signal
    blackHole(source)
    var cancelled = 0
    for _ in benchmark.scaledIterations where signal.isCancelled { cancelled += 1 }
    blackHole(cancelled)
  }
  Benchmark("isCancelled: baseline Mutex flag") { benchmark in
    let token = MutexFlagToken()
    blackHole(token)
    var cancelled = 0
    for _ in benchmark.scaledIterations where token.isCancelled { cancelled += 1 }
    blackHole(cancelled)
  }
  Benchmark("isCancelled: baseline Atomic<Bool>") { benchmark in
    let flag = AtomicFlag()
    blackHole(flag)
    var cancelled = 0
    for _ in benchmark.scaledIterations where flag.isCancelled { cancelled += 1 }
    blackHole(cancelled)
  }

  // MARK: register + unregister on a live source

  Benchmark("register+unregister: CancelSignal") { benchmark in
    let source = CancelSource()
    let signal = source.signal
    blackHole(source)
    for _ in benchmark.scaledIterations {
      let registration = signal.onCancel {}
      blackHole(registration.unregister())
    }
  }
  Benchmark("register+unregister: baseline Mutex flag") { benchmark in
    let token = MutexFlagToken()
    blackHole(token)
    for _ in benchmark.scaledIterations {
      let slot = token.register {}
      token.unregister(slot)
    }
  }

  // MARK: create + register + cancel + free

  Benchmark("create+register+cancel+free: CancelSource") { benchmark in
    for _ in benchmark.scaledIterations {
      let source = CancelSource()
      blackHole(source)
      source.signal.onCancel {}
      source.cancel()
    }
  }
  Benchmark("create+register+cancel+free: baseline Mutex flag") { benchmark in
    for _ in benchmark.scaledIterations {
      let token = MutexFlagToken()
      blackHole(token)
      _ = token.register {}
      token.cancel()
    }
  }

  // MARK: cancel with 1 and 100 handlers (sources prepared before the measurement)

  for handlerCount in [1, 100] {
    Benchmark("cancel with \(handlerCount) handlers: CancelSource") { benchmark in
      let sources = (0..<benchmark.scaledIterations.count).map { _ in CancelSource() }
      for source in sources { for _ in 0..<handlerCount { source.signal.onCancel {} } }
      benchmark.startMeasurement()
      for source in sources { source.cancel() }
      benchmark.stopMeasurement()
      blackHole(sources)
    }
    Benchmark("cancel with \(handlerCount) handlers: baseline Mutex flag") { benchmark in
      let tokens = (0..<benchmark.scaledIterations.count).map { _ in MutexFlagToken() }
      for token in tokens { for _ in 0..<handlerCount { _ = token.register {} } }
      benchmark.startMeasurement()
      for token in tokens { token.cancel() }
      benchmark.stopMeasurement()
      blackHole(tokens)
    }
  }

  // MARK: link + unlink a child

  Benchmark("link+unlink a child: CancelSource") { benchmark in
    let parent = CancelSource()
    let signal = parent.signal
    blackHole(parent)
    for _ in benchmark.scaledIterations {
      let child = CancelSource(linkedTo: signal)
      blackHole(child)
      child.close()
    }
  }
  Benchmark("link+unlink a child: baseline Mutex flag") { benchmark in
    let parent = MutexFlagToken()
    blackHole(parent)
    for _ in benchmark.scaledIterations {
      let child = MutexFlagToken()
      blackHole(child)
      let slot = parent.register { child.cancel() }
      parent.unregister(slot)
    }
  }
}
