#!/usr/bin/env bash
# shellcheck disable=SC2086 # an empty SEED must vanish
# run.sh -- the differential test against Redis and the expiry model, for
# every step, as TAP (one line per step and check), so tests/run.sh counts it
# as it counts bats --tap.
#
#   tests/compat/run.sh [OPS]        OPS commands per step and check (default 2000)
#
# Environment (make sets the first two):
#   BUILD    where the servers are (default build): $BUILD/NN-name/server
#   STEPS    the steps to test (default: every steps/NN-name with a main.c)
#   EXPIRY_OPS   operations for the expiry model (default OPS)
#   SEED     a fixed seed for both scripts (default: a new one each run,
#            printed in the failure output so a run can be repeated)
#
# Output:
#   ok 1 - differential 01-resp: 2000 operations compared, 0 mismatches (step 01-resp, seed 123, 0.3 s)
#   not ok 5 - differential 04-expiry-lazy: 2000 operations compared, 2 mismatches (...)
#   #   (the first mismatches, with the commands that led to them)
#   ok 8 - expiry model 04-expiry-lazy: 2000 operations checked, 0 violations (...)
#   ok 9 - differential 05-active-sampling # skip redis-server is not installed
#   1..12
set -u
cd "$(dirname "$0")/../.." || exit 2
OPS=${1:-2000}
EXPIRY_OPS=${EXPIRY_OPS:-$OPS}
BUILD=${BUILD:-build}
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
if [ -z "${STEPS:-}" ]; then
  STEPS=$(for m in steps/[0-9][0-9]-*/main.c; do basename "$(dirname "$m")"; done)
fi

n=0 rc=0
report() { # report STATUS NAME OUTPUT
  local status=$1 name=$2 out=$3 summary
  summary=$(grep -E '^[0-9]+ operations (compared|checked)' <<<"$out" | tail -1)
  n=$((n + 1))
  if [ "$status" -eq 0 ]; then
    echo "ok $n - $name: $summary"
  else
    rc=1
    echo "not ok $n - $name: ${summary:-exited with status $status}"
    grep -vE '^[0-9]+ operations' <<<"$out" | head -40 | sed 's/^/#   /'
  fi
}

have_redis=1
command -v "${REDIS_SERVER:-redis-server}" >/dev/null 2>&1 || have_redis=0

for s in $STEPS; do
  server=$BUILD/$s/server
  if [ ! -x "$server" ]; then
    n=$((n + 1)); rc=1
    echo "not ok $n - $s: $server is not built"
    continue
  fi
  if [ "$have_redis" -eq 1 ]; then
    out=$("$PYTHON" tests/compat/differential.py "$s" "$server" "$OPS" ${SEED:-} 2>&1)
    report $? "differential $s" "$out"
  else
    n=$((n + 1))
    echo "ok $n - differential $s # skip redis-server is not installed"
  fi
  # The expiry model needs TTLs: chapter 04 on.
  if [ "$((10#${s%%-*}))" -ge 4 ]; then
    out=$("$PYTHON" tests/compat/expiry_model.py "$server" "$EXPIRY_OPS" ${SEED:-} 2>&1)
    report $? "expiry model $s" "$out"
  fi
done
echo "1..$n"
exit $rc
