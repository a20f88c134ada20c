// swift-tools-version: 6.1
// Benchmarks for swift-cancellation, kept in their own package so the library builds without
// package-benchmark. Run from this directory: `swift package benchmark`.
import PackageDescription

let package = Package(
  name: "swift-cancellation-benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "swift-cancellation", path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    .target(
      name: "MachineFloor",
      dependencies: [.product(name: "Benchmark", package: "benchmark")],
      path: "Benchmarks/MachineFloor"
    ),
    .executableTarget(
      name: "CoreBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        "MachineFloor",
        .product(name: "CancelCore", package: "swift-cancellation"),
      ],
      path: "Benchmarks/CoreBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "TokensBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        "MachineFloor",
        .product(name: "Tokens", package: "swift-cancellation"),
      ],
      path: "Benchmarks/TokensBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "AdaptersBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        "MachineFloor",
        .product(name: "Adapters", package: "swift-cancellation"),
        .product(name: "Futures", package: "swift-cancellation"),
        .product(name: "Promises", package: "swift-cancellation"),
        .product(name: "Tokens", package: "swift-cancellation"),
      ],
      path: "Benchmarks/AdaptersBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "FuturesBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        "MachineFloor",
        .product(name: "Futures", package: "swift-cancellation"),
      ],
      path: "Benchmarks/FuturesBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "PromisesBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        "MachineFloor",
        .product(name: "Promises", package: "swift-cancellation"),
      ],
      path: "Benchmarks/PromisesBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
