#!/usr/bin/env bash
# check-install.sh: installs this package the way README's "Installation" section says, into client
# packages made from scratch, and runs a line of each facade through them.
#
#  1. Clones this repository (its committed HEAD) into a temporary folder and tags the clone with
#     the version in VERSION, so that a `from:` requirement resolves as it would from a release.
#  2. A client that depends on that clone by git URL (`file://…`, `from: <VERSION>`) and uses
#     every product: it builds, and its executable runs a line of Tokens, Promises, Futures,
#     Adapters and CancelCore and checks each outcome.
#  3. The same client depending on the checkout by path (`.package(path:)`).
#  4. A client that uses only `Tokens`, without traits: builds and runs a line, prints which
#     packages SwiftPM resolved (docs/integrations.md quotes it) and fails if an integration's
#     package (NIO, AsyncHTTPClient, ServiceLifecycle, OpenCombine, ServiceContext's tracing) is
#     among them.
#
# Usage, from the repository root: scripts/check-install.sh   (CI runs it; a few minutes, most of
# it building the package twice). Work folder: .build-install/ (ignored by git).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(tr -d '[:space:]' < "$root/VERSION")
work=$root/.build-install
rm -rf "$work"; mkdir -p "$work"

git clone -q "$root" "$work/swift-cancellation"
git -C "$work/swift-cancellation" tag "$version"

# A client of every product; $1: its folder, $2: the dependency line.
make_client() {
  mkdir -p "$1/Sources/Client"
  cat > "$1/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Client",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  dependencies: [
    $2,
  ],
  targets: [
    .executableTarget(
      name: "Client",
      dependencies: [
        .product(name: "CancelCore", package: "swift-cancellation"),
        .product(name: "Tokens", package: "swift-cancellation"),
        .product(name: "Promises", package: "swift-cancellation"),
        .product(name: "Futures", package: "swift-cancellation"),
        .product(name: "Adapters", package: "swift-cancellation"),
      ])
  ]
)
SWIFT
  cp "$root/scripts/install-check-client.swift" "$1/Sources/Client/main.swift"
}

echo "==> by git URL: file://$work/swift-cancellation from: \"$version\""
make_client "$work/by-url" ".package(url: \"file://$work/swift-cancellation\", from: \"$version\")"
(cd "$work/by-url" && swift build -q && swift run -q Client)
grep -q "\"version\" : \"$version\"" "$work/by-url/Package.resolved" \
  || { echo "error: the client did not resolve version $version" >&2; exit 1; }

echo "==> by path"
make_client "$work/by-path" ".package(path: \"$work/swift-cancellation\")"
(cd "$work/by-path" && swift build -q && swift run -q Client)

echo "==> a Tokens-only client without traits: what SwiftPM resolves, and that it builds and runs"
mkdir -p "$work/tokens-only/Sources/Client"
cat > "$work/tokens-only/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Client",
  dependencies: [.package(url: "file://$work/swift-cancellation", from: "$version")],
  targets: [.executableTarget(name: "Client", dependencies: [.product(name: "Tokens", package: "swift-cancellation")])]
)
SWIFT
echo 'import Tokens
let request = CancellationRequest()
request.cancel()
print("Tokens-only client: token cancelled =", request.token.isCancelled)' > "$work/tokens-only/Sources/Client/main.swift"
(cd "$work/tokens-only" && swift build -q && swift run -q Client)
resolved=$(grep '"identity"' "$work/tokens-only/Package.resolved" | sed 's/.*: "\(.*\)".*/\1/' | sort | tr '\n' ' ')
echo "resolved: $resolved"
for integration in swift-nio async-http-client swift-service-lifecycle opencombine swift-distributed-tracing swift-service-context; do
  case " $resolved " in *" $integration "*) echo "error: $integration resolved without its trait" >&2; exit 1 ;; esac
done
echo "install check passed"
