#!/usr/bin/env bash
# test-under-load.sh [RUNS] [-- SWIFT_TEST_ARGS...]: runs `swift test` RUNS times (10 by default)
# while a busy loop per core keeps every core of the machine busy, as CI and users run the suite
# next to other work. Prints each run's result and, at the end, "N passed, M failed" over the runs
# and the names of the tests that failed (their output is in .build-load/run-K.log).
# A test whose outcome depends on timing shows up here; it must wait for events instead.
# Usage, from the repository root: scripts/test-under-load.sh 10
# Builds once first (`swift build --build-tests`), then runs with --skip-build.
set -uo pipefail
runs=${1:-10}; shift || true
[ "${1:-}" = "--" ] && shift
cd "$(dirname "$0")/.."
logs=.build-load; mkdir -p "$logs"
swift build --build-tests >"$logs/build.log" 2>&1 || { tail -20 "$logs/build.log"; exit 1; }

burners=()
for _ in $(seq "$(nproc)"); do
  ( trap 'exit 0' TERM; while :; do :; done ) &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null' EXIT

passed=0; failed=0
for k in $(seq "$runs"); do
  start=$(date +%s)
  if swift test --skip-build "$@" >"$logs/run-$k.log" 2>&1; then
    passed=$((passed + 1)); result=passed
  else
    failed=$((failed + 1)); result=FAILED
  fi
  echo "run $k: $result in $(( $(date +%s) - start )) s"
  grep -E "✘ Test .* (failed|recorded)|error: .*XCTAssert|Fatal error|signal code" "$logs/run-$k.log" | sort -u | head -20
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
