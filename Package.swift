// swift-tools-version: 6.1
// The package of one cancellation core and the facades built on it. See README.md.
import PackageDescription

let package = Package(
  name: "swift-cancellation",
  // The Apple floor is that of `Duration` and `ContinuousClock`; docs/platforms.md lists every
  // Apple API the package uses and its availability (scripts/check-platform-floor.sh keeps it so).
  // Linux has no floor.
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "CancelCore", targets: ["CancelCore"]),
    .library(name: "Tokens", targets: ["Tokens"]),
    .library(name: "Promises", targets: ["Promises"]),
    .library(name: "Futures", targets: ["Futures"]),
    .library(name: "Adapters", targets: ["Adapters"]),
  ],
  // Opt-in integrations (SE-0450 package traits), none enabled by default: a client names the ones it
  // wants on its `.package(..., traits: [...])` line. Each trait gates its package dependency in
  // every target-dependency reference below (`.when(traits:)`) and its code (`#if NIO` etc. in
  // Sources/Adapters/<Integration>/), so a build without it neither resolves nor builds that package.
  traits: [
    .trait(name: "NIO", description: "EventLoopFuture bridges and an EventLoop deadline scheduler (swift-nio)."),
    .trait(
      name: "AsyncHTTPClient",
      description: "Cancellable AsyncHTTPClient requests carrying the token's deadline.",
      enabledTraits: ["NIO"]),
    .trait(name: "ServiceLifecycle", description: "Graceful shutdown as a token (swift-service-lifecycle)."),
    .trait(name: "OpenCombine", description: "AnyCancellable and publisher bridges (OpenCombine)."),
    .trait(
      name: "ServiceContext", description: "Deadlines across services in ServiceContext (swift-distributed-tracing)."),
    .trait(
      name: "GRPC",
      description: "gRPC calls under a token and server handlers with the caller's deadline (grpc-swift 2)."),
    .trait(
      name: "Observability",
      description: "Cancellation records to swift-log and as span events (swift-distributed-tracing)."),
    .default(enabledTraits: []),
  ],
  dependencies: [
    // The core's atomics (the standard library's `Atomic` needs macOS 15 / iOS 18).
    .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
    // Only for `swift package generate-documentation`; no module depends on it.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // Only for the tests: model-based property tests (random programs, shrinking).
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    // The engine of `ChildProcess` (Adapters), on the platforms that run child processes; its
    // `FilePath` comes from swift-system on Linux and from the SDK's System on macOS.
    .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
    // The integrations' packages; only targets behind a trait use them (see `traits` above).
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
    // Only for gRPC's tests and example: a real HTTP/2 transport on 127.0.0.1.
    .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
  ],
  targets: [
    .target(name: "CancelCore", dependencies: [.product(name: "Atomics", package: "swift-atomics")]),
    .target(name: "Tokens", dependencies: ["CancelCore"]),
    .target(name: "Promises", dependencies: ["CancelCore"]),
    .target(name: "Futures", dependencies: ["CancelCore"]),
    .target(
      name: "Adapters",
      dependencies: [
        "CancelCore", "Tokens", "Promises", "Futures",
        .product(name: "Subprocess", package: "swift-subprocess", condition: .when(platforms: [.macOS, .linux])),
        .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
      ] + integrationProducts),

    // The examples: scenarios in a library (so tests run them too) and a thin executable.
    .target(
      name: "ExampleScenarios",
      dependencies: ["CancelCore", "Tokens", "Promises", "Futures", "Adapters", "LocalHTTPServer"]
        + integrationProducts + integrationExampleProducts),
    // A slow HTTP server on 127.0.0.1 for the URLSession examples and tests; not a product.
    .target(name: "LocalHTTPServer", dependencies: ["CancelCore"]),
    .executableTarget(name: "Examples", dependencies: ["ExampleScenarios"]),
    // Every scenario and a mixed stress of every facade, for LeakSanitizer in CI (see .ci/run).
    .executableTarget(
      name: "LeakCheck", dependencies: ["ExampleScenarios", "Tokens", "Promises", "Futures", "Adapters"]),

    // The workloads whose instruction and malloc counts CI checks against Benchmarks/Thresholds/
    // (scripts/check-instruction-counts.sh); not a product.
    .executableTarget(
      name: "InstructionCounts", dependencies: ["CancelCore", "Tokens", "Promises", "Futures", "Adapters"]),
    // Top-level code waiting for promises on the main thread, run by MainThreadWaitTests as a
    // child process (the test process has no free main thread); not a product.
    .executableTarget(name: "MainThreadWait", dependencies: ["Promises"]),
    // Sets the process's one cancellation observer and checks what it receives, run by
    // CancellationObserverTests as a child process (an observer set in the test process would
    // watch every other test's cancels); not a product.
    .executableTarget(name: "ObserverCheck", dependencies: ["Tokens", "Promises", "Futures", "TestSupport"]),

    // Shared test helpers (race harness, iteration scaling); not a product.
    .target(
      name: "TestSupport", dependencies: ["CancelCore", .product(name: "Atomics", package: "swift-atomics")],
      path: "Tests/TestSupport"),
    .testTarget(
      name: "CancelCoreTests",
      dependencies: ["CancelCore", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]),
    .testTarget(
      name: "TokensTests",
      dependencies: ["Tokens", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]),
    .testTarget(
      name: "PromisesTests",
      dependencies: [
        "Promises", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "Atomics", package: "swift-atomics"),
      ]),
    .testTarget(
      name: "FuturesTests",
      dependencies: ["Futures", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]),
    .testTarget(
      name: "AdaptersTests",
      dependencies: [
        "Adapters", "Tokens", "Promises", "Futures", "TestSupport", "LocalHTTPServer",
        .product(name: "Atomics", package: "swift-atomics"),
      ] + integrationProducts + integrationTestProducts),
    .testTarget(name: "ExamplesTests", dependencies: ["ExampleScenarios"]),
    // `@MainActor` view models written as an app writes one, with Promises and with Futures (see
    // docs/migrating-from-promisekit-6-8.md and docs/migrating-from-futurekit.md).
    .testTarget(name: "MainActorTests", dependencies: ["Promises", "Futures", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)

/// The integrations' products, each behind its trait: a target that names these builds them only
/// when the trait is enabled (and the scenarios and tests import them under the same `#if`).
var integrationProducts: [Target.Dependency] {
  [
    .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
    .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
    .product(
      name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
    .product(name: "OpenCombine", package: "OpenCombine", condition: .when(traits: ["OpenCombine"])),
    .product(
      name: "Instrumentation", package: "swift-distributed-tracing",
      condition: .when(traits: ["ServiceContext", "Observability"])),
    .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
    .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Observability"])),
    .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
  ]
}

/// Test-only helpers of the integrations' packages (NIO's manual-time event loops, Lifecycle's
/// graceful-shutdown harness), behind the same traits.
var integrationTestProducts: [Target.Dependency] {
  [
    .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["NIO"])),
    .product(
      name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle",
      condition: .when(traits: ["ServiceLifecycle"])),
    .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
    .product(
      name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
  ]
}

/// What the integration scenarios run on besides the adapters (a real event loop, Lifecycle's
/// shutdown trigger), behind the same traits.
var integrationExampleProducts: [Target.Dependency] {
  [
    .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
    .product(
      name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle",
      condition: .when(traits: ["ServiceLifecycle"])),
    .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
  ]
}
