#!/usr/bin/env bash
# Keeps the Apple floor (macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1; docs/platforms.md).
#
# Fails when a Swift file under Sources/ or Tests/ imports `Synchronization`, or uses a name from
# the deny-list below (APIs that need an OS newer than the floor) that docs/platforms.md does not
# list. A Linux build cannot report Apple availability errors, so this name list stands in for
# one; to use such an API behind `if #available` / `@available`, add it to docs/platforms.md's
# table (with its guard) and it is allowed.
#
# Usage: scripts/check-platform-floor.sh [repository root]   (exit 1 on a finding)
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

table=docs/platforms.md
[[ -f $table ]] || { echo "error: $table is missing" >&2; exit 1; }

# pattern (grep -E) | the name docs/platforms.md's table must list for it to be allowed (empty:
# never allowed) | why it is above the floor.
deny=(
  'import[[:space:]]+Synchronization||the Synchronization module (Mutex, Atomic) needs macOS 15 / iOS 18; CoreLock and CoreAtomic replace it'
  '\bMutex[[:space:]]*[<(]|Mutex|Mutex (Synchronization) needs macOS 15 / iOS 18; use CoreLock'
  '\bAtomic[[:space:]]*<|Atomic|Atomic (Synchronization) needs macOS 15 / iOS 18; use CoreAtomic (or swift-atomics in tests)'
  '\bAtomicLazyReference\b|AtomicLazyReference|AtomicLazyReference (Synchronization) needs macOS 15 / iOS 18'
  '\bWordPair\b|WordPair|WordPair (Synchronization) needs macOS 15 / iOS 18'
  '\bInlineArray\b|InlineArray|InlineArray needs macOS 26 / iOS 26'
  '\b(Mutable)?(Raw)?Span[[:space:]]*[<.(]|Span|Span, RawSpan and MutableSpan need macOS 26 / iOS 26'
  '\bUTF8Span\b|UTF8Span|UTF8Span needs macOS 26 / iOS 26'
  'Task\.immediate|Task.immediate|Task.immediate needs macOS 26 / iOS 26'
  'Task[[:space:]]*\([[:space:]]*name:|Task(name:)|Task(name:) needs macOS 26 / iOS 26'
  '\bwithTaskPriorityEscalationHandler\b|withTaskPriorityEscalationHandler|withTaskPriorityEscalationHandler needs macOS 26 / iOS 26'
  '\.escalatePriority\(|escalatePriority|Task.escalatePriority needs macOS 26 / iOS 26'
  '\bwithTaskExecutorPreference\b|withTaskExecutorPreference|withTaskExecutorPreference needs macOS 15 / iOS 18'
  '\bTaskExecutor\b|TaskExecutor|TaskExecutor needs macOS 15 / iOS 18'
  '\bwithThrowingDiscardingTaskGroup\b|withThrowingDiscardingTaskGroup|withThrowingDiscardingTaskGroup needs macOS 14 / iOS 17'
  '\bwithDiscardingTaskGroup\b|withDiscardingTaskGroup|withDiscardingTaskGroup needs macOS 14 / iOS 17'
  '\bbasePriority\b|basePriority|UnsafeCurrentTask.basePriority needs macOS 14 / iOS 17'
  '@Observable\b|Observation|the Observation module needs macOS 14 / iOS 17'
  'import[[:space:]]+Observation|Observation|the Observation module needs macOS 14 / iOS 17'
  '\bwithObservationTracking\b|Observation|the Observation module needs macOS 14 / iOS 17'
  'AsyncSequence<|AsyncSequence<Element, Failure>|AsyncSequence with primary associated types needs macOS 15 / iOS 18'
  'import[[:space:]]+GRPC|GRPCCore|grpc-swift 2 declares its API for macOS 15 / iOS 18; only files whose gRPC declarations carry the same @available may import it'
  'AsyncIteratorProtocol<|AsyncIteratorProtocol<Element, Failure>|AsyncIteratorProtocol with primary associated types needs macOS 15 / iOS 18'
)

# Whether a row of the table (a line starting with `|`) names `$1` in backquotes in its first cell.
listed() {
  local key=$1
  [[ -n $key ]] || return 1
  awk -F'|' -v key="\`$key\`" '/^\|/ && index($2, key) { found = 1 } END { exit !found }' "$table"
}

findings=0
for entry in "${deny[@]}"; do
  pattern=${entry%%|*}
  rest=${entry#*|}
  key=${rest%%|*}
  why=${rest#*|}
  # Comments and doc comments may name anything; only code counts.
  hits=$(grep -rnE --include='*.swift' "$pattern" Sources Tests 2>/dev/null \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
  [[ -z $hits ]] && continue
  listed "$key" && continue
  echo "error: $why; not listed in $table:" >&2
  printf '%s\n' "$hits" | sed 's/^/  /' >&2
  findings=$((findings + 1))
done

if ((findings > 0)); then
  echo "error: $findings API(s) above the platform floor (see $table)" >&2
  exit 1
fi
echo "platform floor: no Synchronization import and no unlisted API above macOS 13 / iOS 16 / tvOS 16 / watchOS 9"
