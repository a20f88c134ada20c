#!/usr/bin/env bash
# Checks the instructions and mallocs one operation of each key workload costs against the
# thresholds kept in Benchmarks/Thresholds/counts.tsv, and fails when one grows by more than 3 %.
#
#   scripts/check-instruction-counts.sh            check (CI runs this)
#   scripts/check-instruction-counts.sh --update   measure and rewrite the thresholds, on purpose
#   scripts/check-instruction-counts.sh NAME…      check only the named workloads
#
# Counts, not times: valgrind counts the instructions (callgrind) and the heap allocations
# (memcheck) of the release executable `InstructionCounts` (Sources/InstructionCounts) running a
# workload with N and 2N operations (20N and 40N for the cheapest); the difference divided by the
# smaller is the cost of one operation, with start-up and fixed costs cancelled out. The counts
# repeat for the same binary whatever else the machine does (to within a thousand or so
# instructions per run, hence the larger runs of the cheapest), so a 3 % margin is enough. They do
# depend on the compiler, the C library and the CPU features valgrind reports: update the
# thresholds when one of those changes (and say so in the commit), as when the code is made faster
# on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."

THRESHOLDS=Benchmarks/Thresholds/counts.tsv
N=${COUNTS_OPERATIONS:-1000}
MARGIN=1.03
update=0
selected=()
for argument in "$@"; do
  case "$argument" in
    --update) update=1 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) selected+=("$argument") ;;
  esac
done

command -v valgrind >/dev/null || { echo "error: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
swift build -c release --product InstructionCounts >/dev/null
# valgrind 3.19 cannot read the DWARF the Swift 6.3 toolchain writes; totals need no debug info.
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
objcopy --strip-debug "$(swift build -c release --show-bin-path)/InstructionCounts" "$binary"

instructions() { # workload operations
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
mallocs() { # workload operations
  valgrind --tool=memcheck --leak-check=no "$binary" "$1" "$2" 2>&1 \
    | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}
per_operation() { # small large operations
  awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (b - a) / n }'
}
# The few instructions of the cheapest workloads are run 20 times as often: a run's total can vary
# by a thousand or so instructions (a helper thread's wake-up, under load), which is nothing per
# operation for the others but 20 % of a 7-instruction one at 1,000 operations.
operations_for() { # workload
  local threshold
  threshold=$(awk -F'\t' -v w="$1" '$1 == w { print $2 }' "$THRESHOLDS" 2>/dev/null)
  if [ -n "$threshold" ] && awk -v t="$threshold" 'BEGIN { exit !(t < 100) }'; then
    echo $((20 * N))
  else
    echo "$N"
  fi
}

if [ ${#selected[@]} -eq 0 ]; then
  mapfile -t selected < <("$binary" --list | cut -f1)
fi

failures=0
measured=$(mktemp)
for workload in "${selected[@]}"; do
  n=$(operations_for "$workload")
  i1=$(instructions "$workload" "$n"); i2=$(instructions "$workload" $((2 * n)))
  m1=$(mallocs "$workload" "$n"); m2=$(mallocs "$workload" $((2 * n)))
  if [ -z "$i1" ] || [ -z "$i2" ] || [ -z "$m1" ] || [ -z "$m2" ]; then
    echo "error: valgrind gave no count for $workload" >&2
    exit 1
  fi
  ins=$(per_operation "$i1" "$i2" "$n"); mal=$(per_operation "$m1" "$m2" "$n")
  printf '%s\t%s\t%s\n' "$workload" "$ins" "$mal" >>"$measured"
  if [ $update -eq 1 ]; then
    printf '%-52s %12s instructions %6s mallocs\n' "$workload" "$ins" "$mal"
    continue
  fi
  line=$(awk -F'\t' -v w="$workload" '$1 == w' "$THRESHOLDS")
  if [ -z "$line" ]; then
    printf 'FAIL %-47s no threshold in %s (run with --update)\n' "$workload" "$THRESHOLDS"
    failures=$((failures + 1))
    continue
  fi
  max_ins=$(cut -f2 <<<"$line"); max_mal=$(cut -f3 <<<"$line")
  verdict=$(awk -v i="$ins" -v m="$mal" -v ti="$max_ins" -v tm="$max_mal" -v k="$MARGIN" \
    'BEGIN { print (i > ti * k + 0.5 || m > tm * k + 0.01) ? "FAIL" : "ok" }')
  printf '%-4s %-47s %10s instructions (threshold %s) %6s mallocs (threshold %s)\n' \
    "$verdict" "$workload" "$ins" "$max_ins" "$mal" "$max_mal"
  [ "$verdict" = ok ] || failures=$((failures + 1))
done

if [ $update -eq 1 ]; then
  {
    printf '# workload\tinstructions per operation\tmallocs per operation\n'
    printf '# Written by scripts/check-instruction-counts.sh --update; CI fails when a count grows by more than 3 %%.\n'
    cat "$measured"
  } >"$THRESHOLDS.new"
  # Keep thresholds of workloads not measured this time.
  awk -F'\t' 'NR == FNR { seen[$1] = 1; next } !/^#/ && !($1 in seen)' "$measured" "$THRESHOLDS" 2>/dev/null \
    >>"$THRESHOLDS.new" || true
  mv "$THRESHOLDS.new" "$THRESHOLDS"
  echo "wrote $THRESHOLDS"
fi
rm -f "$measured"
if [ $failures -gt 0 ]; then
  echo "error: $failures workload(s) cost more than their threshold + 3 % (see above)." >&2
  echo "If the change is deliberate, run scripts/check-instruction-counts.sh --update and commit the file." >&2
  exit 1
fi
