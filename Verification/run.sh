#!/usr/bin/env bash
# Checks the models exhaustively with spin in every configuration: chain membership
# (ChainMembership.pml) and carried stages (CarriedStage.pml). The protocol as the code runs it
# must pass, and each configuration written to fail (an earlier, withdrawn or simpler form of the
# protocol) must be caught, by the property it breaks.
# Needs spin (Debian/Ubuntu: apt-get install spin) and a C compiler. Takes a few seconds.
# Usage: Verification/run.sh [-v]   (-v prints the counterexample of each failing configuration)
set -euo pipefail
models="$(cd "$(dirname "$0")" && pwd)"
verbose=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$models"/*.pml .
model=ChainMembership.pml

failures=0

# check NAME EXPECTED [PATTERN] -- DEFINES...: EXPECTED is pass or fail; a failing configuration
# must fail with a message matching PATTERN (the property it breaks).
check() {
  local name=$1 expect=$2 pattern=$3
  shift 4
  rm -f pan pan.* ./*.trail
  if ! spin "$@" -a "$model" >spin.log 2>&1; then
    cat spin.log
    echo "error: spin could not read the model ($name)" >&2
    exit 2
  fi
  # An exhaustive safety search: assertions and invalid end states (a thread blocked for ever).
  gcc -O2 -w -DSAFETY -o pan pan.c
  ./pan -m100000 >pan.log 2>&1 || true
  if grep -q "max search depth too small" pan.log; then
    echo "error: $name: the search depth is too small" >&2
    exit 2
  fi
  local errors states outcome=pass why=""
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.log | head -1)
  states=$(sed -n 's/^ *\([0-9]*\) states, stored.*/\1/p' pan.log | head -1)
  if [ "${errors:-1}" != 0 ]; then
    outcome=fail
    why=$(grep -E "assertion violated|invalid end state|acceptance" pan.log | head -1 | sed 's/^pan:[0-9]*: *//')
  fi
  if [ "$outcome" = "$expect" ] && { [ "$outcome" = pass ] || grep -qE "$pattern" <<<"$why"; }; then
    printf '  %-34s %s as expected (%s states)%s\n' "$name" "$outcome" "$states" "${why:+: $why}"
  else
    printf '  %-34s %s, EXPECTED %s (%s states)%s\n' "$name" "$outcome" "$expect" "$states" "${why:+: $why}"
    failures=$((failures + 1))
  fi
  if [ "$outcome" = fail ] && { [ -n "$verbose" ] || [ "$expect" = pass ]; }; then
    spin -t -p -g "$@" "$model" | grep -E "proc +[0-9]+ \(" |
      grep -vE "\[\(1\)\]|\[else\]|goto|\[IF\]" | sed -E "s/ +/ /g; s/$model://" | head -150 || true
  fi
}

echo "Chain membership model ($(spin -V)):"
check "the code"                         pass "" -- 
check "the code, attaching"              pass "" -- -DATTACH
check "the code, a root context"         pass "" -- -DROOT
check "a root context, attaching"        pass "" -- -DROOT -DATTACH
check "before #28 (retain in a deinit)"  fail 'mState\[m\]==0' -- -DMAIN_BEFORE_28
check "withdrawn unretained settle"      fail 'mState\[m\]==0' -- -DWITHDRAWN
check "withdrawn, after the close fix"   pass "" -- -DWITHDRAWN_CLOSED_FIX
check "the settle retaining its member"  pass "" -- -DRETAINED_SETTLE
check "retaining, attaching"             pass "" -- -DRETAINED_SETTLE -DATTACH
check "a stage checking first"           fail 'cancelWhileWaiting' -- -DSTAGE_CHECK_FIRST
check "closed on drop (before D1)"       fail 'lostUpstream' -- -DCLOSE_ON_DROP

model=CarriedStage.pml
echo "Carried stage model:"
check "hand-down and sweep"              pass "" --
check "no hand-down (a member per stage)" fail 'result\[x\]!=0' -- -DNO_HANDOFF
check "no sweep (queued delivery)"       fail 'result\[x\]!=0' -- -DNO_SWEEP
check "handoff forgotten on settle"      fail 'result\[x\]!=0' -- -DFORGET_ON_SETTLE

if [ "$failures" -ne 0 ]; then
  echo "error: $failures configuration(s) did not end as expected" >&2
  exit 1
fi
echo "ok: every configuration ended as expected"
