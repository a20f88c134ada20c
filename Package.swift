// swift-tools-version: 6.1
// The package of one cancellation core and the facades built on it. See README.md.
import PackageDescription

let package = Package(
  name: "swift-cancellation",
  // `Synchronization` (Atomic, Mutex) sets the Apple floor; Linux has no floor.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "CancelCore", targets: ["CancelCore"]),
    .library(name: "Tokens", targets: ["Tokens"]),
    .library(name: "Promises", targets: ["Promises"]),
    .library(name: "Futures", targets: ["Futures"]),
    .library(name: "Adapters", targets: ["Adapters"]),
  ],
  dependencies: [
    // Only for `swift package generate-documentation`; no module depends on it.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // Only for the tests: model-based property tests (random programs, shrinking).
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    // The engine of `ChildProcess` (Adapters), on the platforms that run child processes; its
    // `FilePath` comes from swift-system on Linux and from the SDK's System on macOS.
    .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
  ],
  targets: [
    .target(name: "CancelCore"),
    .target(name: "Tokens", dependencies: ["CancelCore"]),
    .target(name: "Promises", dependencies: ["CancelCore"]),
    .target(name: "Futures", dependencies: ["CancelCore"]),
    .target(
      name: "Adapters",
      dependencies: [
        "CancelCore", "Tokens", "Promises", "Futures",
        .product(name: "Subprocess", package: "swift-subprocess", condition: .when(platforms: [.macOS, .linux])),
        .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
      ]),

    // The examples: scenarios in a library (so tests run them too) and a thin executable.
    .target(
      name: "ExampleScenarios",
      dependencies: ["CancelCore", "Tokens", "Promises", "Futures", "Adapters", "LocalHTTPServer"]),
    // A slow HTTP server on 127.0.0.1 for the URLSession examples and tests; not a product.
    .target(name: "LocalHTTPServer", dependencies: ["CancelCore"]),
    .executableTarget(name: "Examples", dependencies: ["ExampleScenarios"]),
    // Every scenario and a mixed stress of every facade, for LeakSanitizer in CI (see .ci/run).
    .executableTarget(
      name: "LeakCheck", dependencies: ["ExampleScenarios", "Tokens", "Promises", "Futures", "Adapters"]),

    // Shared test helpers (race harness, iteration scaling); not a product.
    .target(name: "TestSupport", dependencies: ["CancelCore"], path: "Tests/TestSupport"),
    .testTarget(
      name: "CancelCoreTests",
      dependencies: ["CancelCore", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]),
    .testTarget(
      name: "TokensTests",
      dependencies: ["Tokens", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]),
    .testTarget(
      name: "PromisesTests",
      dependencies: ["Promises", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]),
    .testTarget(
      name: "FuturesTests",
      dependencies: ["Futures", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")]),
    .testTarget(
      name: "AdaptersTests",
      dependencies: ["Adapters", "Tokens", "Promises", "Futures", "TestSupport", "LocalHTTPServer"]),
    .testTarget(name: "ExamplesTests", dependencies: ["ExampleScenarios"]),
  ],
  swiftLanguageModes: [.v6]
)
