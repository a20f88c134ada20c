import Benchmark
import MachineFloor
import Tokens

// Each facade operation is measured beside the core operation it is built on, in the same run,
// so the facade's overhead can be read directly (the budget: at most 10 % over the core).
// Every benchmark scales its loop by 1,000 (`scalingFactor: .kilo`): the figures marked `*` are per
// operation. Objects escape through `blackHole` so none is stack-promoted.
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

  // MARK: create + cancel + free

  Benchmark("create+cancel+free: CancellationRequest") { benchmark in
    for _ in benchmark.scaledIterations {
      let request = CancellationRequest()
      blackHole(request)
      request.cancel()
    }
  }
  Benchmark("create+cancel+free: core CancelSource") { benchmark in
    for _ in benchmark.scaledIterations {
      let source = CancelSource()
      blackHole(source)
      source.cancel()
    }
  }

  Benchmark("create+register+cancel+free: CancellationRequest") { benchmark in
    for _ in benchmark.scaledIterations {
      let request = CancellationRequest()
      blackHole(request)
      request.token.onCancel {}
      request.cancel()
    }
  }
  Benchmark("create+register+cancel+free: core CancelSource") { benchmark in
    for _ in benchmark.scaledIterations {
      let source = CancelSource()
      blackHole(source)
      source.signal.onCancel {}
      source.cancel()
    }
  }

  // MARK: onCancel register + unregister on a live token

  Benchmark("onCancel register+unregister: CancellationToken") { benchmark in
    let request = CancellationRequest()
    let token = request.token
    blackHole(request)
    for _ in benchmark.scaledIterations {
      let registration = token.onCancel {}
      blackHole(registration.unregister())
    }
  }
  Benchmark("onCancel register+unregister: core CancelSignal") { benchmark in
    let source = CancelSource()
    let signal = source.signal
    blackHole(source)
    for _ in benchmark.scaledIterations {
      let registration = signal.onCancel {}
      blackHole(registration.unregister())
    }
  }

  // MARK: || and && construction
  //
  // The core has no operators; its closest equivalent is one source linked to both operands
  // (`CancelSource(linkedTo:)`, the any-of that `||` extends with "completes when both complete").
  // Operands are prepared before the measurement; the results are kept so that only building is
  // measured. After the measurement the left operands end in a way that completes every result
  // without allocating, so that all variants tear down the same way (freeing only): a teardown that
  // allocates while it frees (`a && b` linking to `b` once `a` is cancelled, say) leaves glibc's heap
  // fragmented and slows the next iteration's allocations, so the figure measured the allocator's
  // state instead of the operators.

  Benchmark("|| construction: CancellationToken") { benchmark in
    let lefts = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    let rights = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    var results: [CancellationToken] = []
    results.reserveCapacity(lefts.count)
    benchmark.startMeasurement()
    for index in lefts.indices { results.append(lefts[index].token || rights[index].token) }
    benchmark.stopMeasurement()
    blackHole(results)
    for left in lefts { left.cancel() }
  }
  Benchmark("&& construction: CancellationToken") { benchmark in
    let lefts = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    let rights = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    var results: [CancellationToken] = []
    results.reserveCapacity(lefts.count)
    benchmark.startMeasurement()
    for index in lefts.indices { results.append(lefts[index].token && rights[index].token) }
    benchmark.stopMeasurement()
    blackHole(results)
    for left in lefts { left.close() }  // completes every result without allocating
  }
  Benchmark("||/&& construction: core CancelSource(linkedTo:)") { benchmark in
    let lefts = (0..<benchmark.scaledIterations.count).map { _ in CancelSource() }
    let rights = (0..<benchmark.scaledIterations.count).map { _ in CancelSource() }
    var results: [CancelSource] = []
    results.reserveCapacity(lefts.count)
    benchmark.startMeasurement()
    for index in lefts.indices { results.append(CancelSource(linkedTo: lefts[index].signal, rights[index].signal)) }
    benchmark.stopMeasurement()
    blackHole(results)
    for left in lefts { left.cancel() }
  }

  // MARK: || and && whole life: build, complete through an operand, free

  Benchmark("|| build+cancel+free: CancellationToken") { benchmark in
    let lefts = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    let rights = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    benchmark.startMeasurement()
    for index in lefts.indices {
      let derived = lefts[index].token || rights[index].token
      blackHole(derived)
      lefts[index].cancel()
    }
    benchmark.stopMeasurement()
  }
  Benchmark("&& build+close+free: CancellationToken") { benchmark in
    let lefts = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    let rights = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    benchmark.startMeasurement()
    for index in lefts.indices {
      let derived = lefts[index].token && rights[index].token
      blackHole(derived)
      lefts[index].close()
    }
    benchmark.stopMeasurement()
  }
  Benchmark("||/&& build+cancel+free: core CancelSource(linkedTo:)") { benchmark in
    let lefts = (0..<benchmark.scaledIterations.count).map { _ in CancelSource() }
    let rights = (0..<benchmark.scaledIterations.count).map { _ in CancelSource() }
    benchmark.startMeasurement()
    for index in lefts.indices {
      let child = CancelSource(linkedTo: lefts[index].signal, rights[index].signal)
      blackHole(child)
      lefts[index].cancel()
    }
    benchmark.stopMeasurement()
  }

  // MARK: map construction (beside a single-parent link)

  Benchmark("map construction: CancellationToken") { benchmark in
    let sources = (0..<benchmark.scaledIterations.count).map { _ in CancellationRequest() }
    var results: [CancellationToken] = []
    results.reserveCapacity(sources.count)
    benchmark.startMeasurement()
    for source in sources { results.append(source.token.map { true }) }
    benchmark.stopMeasurement()
    blackHole(results)
    for source in sources { source.cancel() }
  }
  Benchmark("map construction: core CancelSource(linkedTo:) one parent") { benchmark in
    let sources = (0..<benchmark.scaledIterations.count).map { _ in CancelSource() }
    var results: [CancelSource] = []
    results.reserveCapacity(sources.count)
    benchmark.startMeasurement()
    for source in sources { results.append(CancelSource(linkedTo: source.signal)) }
    benchmark.stopMeasurement()
    blackHole(results)
    for source in sources { source.cancel() }
  }
}
