import Benchmark
import MachineFloor
import Promises

// Every Promises operation is measured beside a baseline in the same run: the hand-written
// `MutexPromise` (see Baseline.swift) for plain promises, the plain `Promise` chain for cancellable
// ones. Loops scale by 1,000 (`scalingFactor: .kilo`): figures are per promise, per stage or per
// input. Objects escape through `blackHole` so none is stack-promoted.
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

  // MARK: create + fulfil

  Benchmark("create+fulfil: Promise.pending + fulfill") { benchmark in
    for _ in benchmark.scaledIterations {
      let (promise, resolver) = Promise<Int>.pending()
      blackHole(promise)
      resolver.fulfill(1)
    }
  }
  Benchmark("create+fulfil: baseline MutexPromise") { benchmark in
    for _ in benchmark.scaledIterations {
      let promise = MutexPromise<Int>()
      blackHole(promise)
      promise.resolve(1)
    }
  }

  // MARK: map chains (per stage)

  Benchmark("map(on: nil) chain, resolved root: per stage") { benchmark in
    var tail = Promise.value(0)
    for _ in benchmark.scaledIterations {
      tail = tail.map(on: nil) { $0 &+ 1 }
    }
    blackHole(tail)
  }
  Benchmark("map chain, resolved root: baseline MutexPromise, per stage") { benchmark in
    var tail = MutexPromise(value: 0)
    for _ in benchmark.scaledIterations {
      tail = tail.map { $0 &+ 1 }
    }
    blackHole(tail)
  }
  Benchmark("map(on: nil) chain, pending root then fulfilled: per stage") { benchmark in
    let (root, resolver) = Promise<Int>.pending()
    var tail = root
    for _ in benchmark.scaledIterations {
      tail = tail.map(on: nil) { $0 &+ 1 }
    }
    resolver.fulfill(0)
    blackHole(tail)
  }
  Benchmark("map chain, pending root then fulfilled: baseline MutexPromise, per stage") { benchmark in
    // The baseline delivers recursively (one stack frame group per stage); 1,000 stages fit.
    let root = MutexPromise<Int>()
    var tail = root
    for _ in benchmark.scaledIterations {
      tail = tail.map { $0 &+ 1 }
    }
    root.resolve(0)
    blackHole(tail)
  }

  // MARK: when(fulfilled:) (per input)

  Benchmark("when(fulfilled:) over 1,000 pending promises: per input") { benchmark in
    let count = benchmark.scaledIterations.count
    benchmark.startMeasurement()
    var promises: [Promise<Int>] = []
    var resolvers: [Resolver<Int>] = []
    promises.reserveCapacity(count)
    resolvers.reserveCapacity(count)
    for _ in 0..<count {
      let (promise, resolver) = Promise<Int>.pending()
      promises.append(promise)
      resolvers.append(resolver)
    }
    let all = when(fulfilled: promises)
    for resolver in resolvers { resolver.fulfill(1) }
    blackHole(all)
  }

  // MARK: cancellable chains (per stage)

  Benchmark("cancellable map(on: nil) chain built then cancelled: per stage") { benchmark in
    let (root, _) = CancellablePromise<Int>.pending()
    var tail = root
    for _ in benchmark.scaledIterations {
      tail = tail.map(on: nil) { $0 &+ 1 }
    }
    tail.cancel()
    blackHole(tail)
  }
  Benchmark("cancellable map(on: nil) chain built then fulfilled: per stage") { benchmark in
    let (root, resolver) = CancellablePromise<Int>.pending()
    var tail = root
    for _ in benchmark.scaledIterations {
      tail = tail.map(on: nil) { $0 &+ 1 }
    }
    resolver.fulfill(0)
    blackHole(tail)
  }
  Benchmark("CancellablePromise create+cancel") { benchmark in
    for _ in benchmark.scaledIterations {
      let (promise, _) = CancellablePromise<Int>.pending()
      blackHole(promise)
      promise.cancel()
    }
  }

  // MARK: PromiseKit 7's cancellable shapes (the peer comparison's workloads)

  // Each step a cancellable request: the body returns a cancellable promise. Baseline: the
  // cancellable `map` chain above (same root, same cancel), whose stage costs no nested chain.
  Benchmark("cancellable then(on: nil) { cancellable } chain, pending root, cancelled: per stage") { benchmark in
    let (root, resolver) = Promise<Int>.pending()
    var tail = root.cancellize()
    for _ in benchmark.scaledIterations {
      tail = tail.then(on: nil) { Promise.value($0 &+ 1).cancellize() }
    }
    tail.cancel()
    resolver.fulfill(0)
    blackHole(tail)
  }
  Benchmark("cancellable then(on: nil) { cancellable } chain, resolved root: per stage") { benchmark in
    var tail = Promise.value(0).cancellize()
    for _ in benchmark.scaledIterations {
      tail = tail.then(on: nil) { Promise.value($0 &+ 1).cancellize() }
    }
    blackHole(tail)
  }
  Benchmark("cancellable map(on: nil) chain, resolved root: per stage (baseline of the above)") { benchmark in
    var tail = Promise.value(0).cancellize()
    for _ in benchmark.scaledIterations {
      tail = tail.map(on: nil) { $0 &+ 1 }
    }
    blackHole(tail)
  }
  Benchmark("CancellablePromise(resolver:) + fulfil") { benchmark in
    for index in benchmark.scaledIterations {
      let promise = CancellablePromise<Int> { $0.fulfill(index) }
      blackHole(promise)
    }
  }
  Benchmark("Promise.pending().promise.cancellize() + cancel") { benchmark in
    for _ in benchmark.scaledIterations {
      let (root, resolver) = Promise<Int>.pending()
      let member = root.cancellize()
      member.cancel()
      blackHole(member)
      resolver.fulfill(0)
    }
  }
}
