// swift-tools-version:6.0
// peerdiff: the same generated cancellable-promise programs against PromiseKit 7 (target
// peerdiff-pk7) and against our Promises (target peerdiff-ours). The two targets compile identical
// copies of Interpreter.swift, Program.swift and main.swift plus a Shim.swift each; see ./run.
// PEERDIFF_PEER / PEERDIFF_PROJECT override the paths of the PromiseKit v7 checkout and of the
// project (./run sets them: .build-peers/pk7 and the current directory).
import Foundation
import PackageDescription

let here = Context.packageDirectory
let env = Context.environment
func norm(_ p: String) -> String { URL(fileURLWithPath: p).standardizedFileURL.path }
let peer = norm(env["PEERDIFF_PEER"] ?? ".build-peers/pk7")
let proj = norm(env["PEERDIFF_PROJECT"] ?? ".")
// A path dependency is identified by its folder name, lowercased.
func ident(_ p: String) -> String { URL(fileURLWithPath: p).lastPathComponent.lowercased() }

let package = Package(
  name: "peerdiff",
  dependencies: [.package(path: peer), .package(path: proj)],
  targets: [
    .executableTarget(
      name: "peerdiff-pk7", dependencies: [.product(name: "PromiseKit", package: ident(peer))],
      path: "Sources/PK7", swiftSettings: [.swiftLanguageMode(.v5), .define("PK7")]),
    .executableTarget(
      name: "peerdiff-ours", dependencies: [.product(name: "Promises", package: ident(proj))],
      path: "Sources/Ours", swiftSettings: [.swiftLanguageMode(.v5)]),
  ]
)
