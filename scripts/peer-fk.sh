#!/usr/bin/env bash
# scripts/peer-fk.sh PROJECT_DIR
# Runs FutureKit 3.5's own XCTest files (FutureKitTests/ of a FutureKit checkout) against the
# `Futures` module of the package at PROJECT_DIR, on Linux: the judge of docs/migrating-from-futurekit.md.
# Run it from the project root: `scripts/peer-fk.sh .` (.ci/run does, when the checkout exists).
# Needs a FutureKit git checkout with the tag 3.5.0 at .build-peers/fk in the current directory
# ($PEER_FK_SRC overrides it); nothing of FutureKit is in this repository. No network: the
# project's dependencies resolve from SwiftPM's cache, which building the project fills. Work
# folder: .build-peer-fk/ in the current directory (ignored by git, as every .build* folder).
#
# What it does to the peer's files, all listed below in EDITS (sed lines), nothing else:
#  - `import FutureKit` becomes `import Futures`;
#  - FKTestCase's two overrides of XCTest methods lose `override` (Linux XCTest's cannot be
#    overridden; see EDITS).
# It adds files of ours, not counted among the peer's: peer-fk.d/BlockBasedTestCase+Linux.swift
# stands in for the Objective-C BlockBasedTestCase (.h/.m), NSException and arc4random_uniform
# (Linux has no Objective-C; Glibc has arc4random_uniform only from 2.36). With it, PromiseTests'
# generated tests run one after another inside one discovered method, `testBlockBasedTests`, with
# a marker line each (see its header). The assertions and logic are FutureKit's.
#
# Files that do not compile against our API are dropped one round at a time, with the errors each
# had (round 1 errors are the file's own; a file first failing in a later round failed only
# because a file it needs was dropped). Then every test class runs in its own process, and the
# generated tests of PromiseTests resume after one that crashed or hung (PEER_FK_HANG s, default
# 60), within PEER_FK_BUDGET s for them all (default 1200; a passing run takes under a minute).
#
# Prints per-file compile status, the failing tests, and last (as peer-tests):
#   "peer tests: F/T files compile, N tests, M failures"
# N counts test methods and generated tests (not the container method); M counts XCTest failures
# (assertions, timeouts) plus one per crashed or hung test or class.
set -u
proj=$(cd "$1" && pwd); shift
bridge=0
tools=$(cd "$(dirname "$0")" && pwd)
here=$(pwd)
src=${PEER_FK_SRC:-$here/.build-peers/fk}
ref=3.5.0
work=$here/.build-peer-fk
files=(BasicTests.swift PromiseTests.swift Future-TestExtensions.swift XCTestCase-Ext.swift BlockBasedTestCase.swift)
# The only edits made to FutureKit's files: FILE|sed expression.
EDITS=(
  '*|s/^import FutureKit$/import Futures/'
  # Linux XCTest declares expectation(description:file:line:) and
  # waitForExpectations(timeout:file:line:handler:) in an extension, which cannot be overridden.
  # FKTestCase's two overrides (they only count expectations) lose `override`; as the more
  # specific overloads they are still the ones the tests call.
  'PromiseTests.swift|s/^    override func expectation(description: String) -> XCTestExpectation {$/    func expectation(description: String) -> XCTestExpectation {/'
  'PromiseTests.swift|s/^    override func waitForExpectations(timeout: TimeInterval, handler handlerOrNil: XCWaitCompletionHandler!) {$/    func waitForExpectations(timeout: TimeInterval, handler handlerOrNil: XCWaitCompletionHandler!) {/'
)
git -C "$src" rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1 || { echo "no FutureKit $ref in $src (git clone https://github.com/FutureKit/FutureKit there)"; exit 2; }
rm -rf "$work/Tests"; mkdir -p "$work/Tests/PeerTests"
for f in "${files[@]}"; do
  git -C "$src" show "$ref:FutureKitTests/$f" > "$work/Tests/PeerTests/$f" || exit 2
  for e in "${EDITS[@]}"; do
    case "${e%%|*}" in '*'|"$f") before=$(md5sum < "$work/Tests/PeerTests/$f"); sed -i -e "${e#*|}" "$work/Tests/PeerTests/$f"
      [ "${e%%|*}" = '*' ] || [ "$before" != "$(md5sum < "$work/Tests/PeerTests/$f")" ] || { echo "edit did not apply to $f: ${e#*|}"; exit 2; };; esac
  done
done
cp "$tools/peer-fk.d/BlockBasedTestCase+Linux.swift" "$work/Tests/PeerTests/_peerfk_BlockBasedTestCase+Linux.swift"
total=${#files[@]}
pkgname=$(basename "$proj" | tr A-Z a-z)  # a path dependency is identified by its folder name
cat > "$work/Package.swift" <<P
// swift-tools-version:6.0
import PackageDescription
let package = Package(name: "peerfk", dependencies: [.package(path: "$proj")],
  targets: [.testTarget(name: "PeerTests", dependencies: [.product(name: "Futures", package: "$pkgname")], swiftSettings: [.swiftLanguageMode(.v5)])])
P
[ -f "$work/Package.resolved" ] || [ ! -f "$proj/Package.resolved" ] || cp "$proj/Package.resolved" "$work/"
cd "$work"
# Compile, dropping the files with errors one round at a time.
: > build.log; dropped=""
for round in $(seq 1 10); do
  if timeout 900 swift build --build-tests > build-round$round.log 2>&1; then cat build-round$round.log >> build.log; break; fi
  cat build-round$round.log >> build.log
  errs=$(grep -E "^/.*Tests/PeerTests/[^:]+\.swift:[0-9]+:[0-9]+: error:" build-round$round.log | sed -E 's#^.*/Tests/PeerTests/##' | sort -u | sort -t: -k1,1 -k2,2n)
  bad=$(echo "$errs" | cut -d: -f1 | grep -v '^$' | sort -u)
  [ -n "$bad" ] || { echo "build fails outside the peer files:"; grep -m10 "error:" build-round$round.log; echo "peer tests: 0/$total files compile, 0 tests, 0 failures"; exit 1; }
  if echo "$bad" | grep -q '^_peerfk_'; then echo "peer-fk's own files do not compile:"; echo "$errs" | grep '^_peerfk_' | head; echo "peer tests: 0/$total files compile, 0 tests, 0 failures"; exit 1; fi
  for b in $bad; do
    n=$(echo "$errs" | grep -c "^$b:")
    echo "does not compile (round $round, $n errors): $b"
    # one line per distinct message, with its first line number and how many times it occurs
    echo "$errs" | grep "^$b:" | sed -E 's/^[^:]+:([0-9]+):[0-9]+: error: (.*)$/\2|\1/' | awk -F'|' '{ if (!($1 in first)) { first[$1]=$2; order[++k]=$1 } c[$1]++ } END { for (i=1;i<=k;i++) printf "    %s (line %s%s)\n", order[i], first[order[i]], (c[order[i]]>1 ? ", x" c[order[i]] : "") }'
    dropped="$dropped $b"; rm -f "Tests/PeerTests/$b"
  done
  ls Tests/PeerTests | grep -qv '^_peerfk_' || break
done
kept=$(ls Tests/PeerTests | grep -v '^_peerfk_' | wc -l)
for f in "${files[@]}"; do [ -f "Tests/PeerTests/$f" ] && echo "compiles: $f"; done
if [ "$kept" -eq 0 ]; then echo "peer tests: 0/$total files compile, 0 tests, 0 failures"; exit 1; fi
timeout 900 swift build --build-tests >> build.log 2>&1 || { echo "build failed after dropping files"; echo "peer tests: $kept/$total files compile, 0 tests, 0 failures"; exit 1; }

# Run: one process per class; the generated tests (testBlockBasedTests) apart, resumed after a
# crash or a hang (the process timeout) from the next generated test.
: > test.log; : > generated.log
tests=$(timeout 300 swift test --skip-build --list-tests 2>/dev/null | grep -E '^PeerTests\.[A-Za-z0-9_]+/')
classes=$(echo "$tests" | grep -oE '^PeerTests\.[A-Za-z0-9_]+' | sort -u)
n=0; m=0; crashed=""; notrun=""; gen_deadline=$((SECONDS + ${PEER_FK_BUDGET:-1200}))  # seconds for all generated tests
count() { # count OUTPUT: adds XCTest's "Executed N tests, with M failures" (last one) to n and m
  local line; line=$(echo "$1" | grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" | tail -1)
  n=$((n + $(echo "$line" | grep -oE "Executed [0-9]+" | grep -oE "[0-9]+"))); m=$((m + $(echo "$line" | grep -oE "with [0-9]+" | grep -oE "[0-9]+")))
}
for c in $classes; do
  if echo "$tests" | grep "^$c/" | grep -qv "/testBlockBasedTests$"; then
    out=$(timeout 600 swift test --skip-build --filter "^$c/" --skip "/testBlockBasedTests$" 2>&1); echo "$out" >> test.log
    if echo "$out" | grep -qE "Program crashed|Fatal error|signal [0-9]+|timed out" || ! echo "$out" | grep -qE "Executed [0-9]+ tests?, with"; then
      crashed="$crashed ${c#PeerTests.}"; m=$((m+1))
    else count "$out"; fi
  fi
  echo "$tests" | grep -qE "^$c/testBlockBasedTests$" || continue
  from=0
  while :; do
    left=$((gen_deadline - SECONDS))
    if [ $left -le 0 ]; then notrun="$notrun ${c#PeerTests.}(generated tests from index $from on)"; break; fi
    out=$(PEER_FK_FROM=$from timeout $((left < 590 ? left : 590)) swift test --skip-build --filter "^$c/testBlockBasedTests$" 2>&1); rc=$?
    echo "$out" >> test.log; echo "$out" | grep '^peer-fk: ' | grep -v '^peer-fk: hung ' >> generated.log
    echo "$out" | grep -q "^peer-fk: done " && break
    last=$(echo "$out" | grep -oE '^peer-fk: start [0-9]+ [^ ]+' | tail -1)
    [ -n "$last" ] || { crashed="$crashed ${c#PeerTests.}(generated, before the first)"; m=$((m+1)); break; }
    i=$(echo "$last" | cut -d' ' -f3); name=$(echo "$last" | cut -d' ' -f4)
    if [ $rc = 124 ] && [ "$i" -gt "$from" ] && ! echo "$out" | grep -q '^peer-fk: hung '; then from=$i; continue; fi  # only slow: run it again
    echo "peer-fk: end $i $name $( { [ $rc = 124 ] || echo "$out" | grep -q '^peer-fk: hung '; } && echo hung || echo crashed) 1" >> generated.log
    from=$((i+1))
  done
done
# The generated tests: one "end" line each (passed / failed K / crashed / hung).
gen_n=$(grep -c '^peer-fk: end ' generated.log); gen_m=$(grep '^peer-fk: end ' generated.log | awk '{s+=$6} END {print s+0}')
n=$((n + gen_n)); m=$((m + gen_m))
grep -E ": error: [A-Za-z0-9_]+\.[A-Za-z0-9_]+ :" test.log | grep -v '\[test_' | sed -E 's/.*: error: ([A-Za-z0-9_]+\.[A-Za-z0-9_]+) : (.*)$/failed: \1: \2/' | sort -u | head -40
if [ "$gen_n" -gt 0 ]; then
  gen_bad=$(grep -E '^peer-fk: end .* (failed|crashed|hung) ' generated.log)
  echo "generated tests (PromiseTests): $gen_n run, $(echo -n "$gen_bad" | grep -c .) failed$([ -n "$gen_bad" ] && echo '; by scenario (index in createAllTheTests):')"
  # name: test_<index>_<type>_<value>_<scenario...>_<promise executor>_<future executor>
  [ -n "$gen_bad" ] && grep '^peer-fk: end ' generated.log | awk '{ split($4, p, "_"); idx=p[2]; k=length(p); runs[idx]++; if ($5 == "passed") next; s=""; for (j=5; j<=k-2; j++) s = s (s=="" ? "" : "_") p[j]; cnt[idx]++; desc[idx]=s; what[idx]=what[idx] " " p[3] ":" p[k-1] "/" p[k] ($5=="failed" ? "" : "(" $5 ")") } END { for (x in cnt) printf "  #%s %s: %d of %d runs failed (type:promise/future executor):%s\n", x, desc[x], cnt[x], runs[x], what[x] }' | sort -t'#' -k2 -n | cut -c1-400
  [ -n "$gen_bad" ] && echo "  first failure message of each failing scenario:"
  grep '^peer-fk: failure in ' generated.log | sed -E 's/^peer-fk: failure in test_([0-9]+)_[^:]*: /\1|/' | awk -F'|' '!seen[$1]++ { printf "  #%s %s\n", $1, $2 }' | sort -t'#' -k2 -n | cut -c1-300
fi
[ -n "$dropped" ] && echo "does not compile against Futures:$dropped"
[ -n "$crashed" ] && echo "crashed (counted as one failure):$crashed"
[ -n "$notrun" ] && echo "NOT RUN, time budget (PEER_FK_BUDGET=${PEER_FK_BUDGET:-1200}s) spent:$notrun"
echo "peer tests: $kept/$total files compile, $n tests, $m failures"
[ "$m" = 0 ] && [ "$kept" -eq "$total" ] && [ -z "$notrun" ]
