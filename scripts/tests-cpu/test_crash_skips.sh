#!/bin/sh
# make crash CRASH_MODE=cpu over every workload: the workloads without a
# CPU counterpart are skipped, one line each, and the others are crashed
# and recovered (real programs: PS has the mode, BLK has not). A campaign
# where no workload has the mode says so and fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
if [ ! -x "${GPM_BIN:-}/ps" ] || [ ! -x "${GPM_BIN:-}/blk" ]; then
    echo "skip - crash over workloads with and without the mode: no ${GPM_BIN:-GPM_BIN}/ps or blk"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-crash-skips.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/pm"
for p in ps blk gpm-info gpm-row; do ln -s "$GPM_BIN/$p" "$tmp/bin/$p"; done

# Without WORKLOADS: every program of the folder.
env -u WORKLOADS RESULTS_DIR="$tmp/res" REPORTS_DIR="$tmp/rep" GPM_PM_DIR="${GPM_PM_DIR:-$tmp/pm}" \
    SCALE=tiny TRIALS=2 CRASH_MODE=cpu CRASH_ARGS="--n 16M --block 256" \
    "$root/scripts/experiment.sh" crash "$tmp/bin" >"$tmp/out" 2>&1
rc=$?
if [ "$(grep -c "^crash: blk has no mode 'cpu': skipped$" "$tmp/out")" = 1 ]; then
    echo "ok - a workload without the mode is skipped with one line"
else
    echo "not ok - blk was not skipped with one line: $(head -c 400 "$tmp/out")"
fi
if [ "$rc" -eq 0 ] && grep -q "^crash: ps (cpu, tiny): trials 2, .*unrecovered 0: ok" "$tmp/out" &&
    ! grep -q "blk (cpu" "$tmp/out"; then
    echo "ok - the workloads with the mode are crashed and recovered, and the campaign passes"
else
    echo "not ok - campaign exit $rc: $(tail -c 400 "$tmp/out")"
fi

# No workload with the mode: one line, a failure.
env WORKLOADS=blk RESULTS_DIR="$tmp/res2" REPORTS_DIR="$tmp/rep2" GPM_BIN="$tmp/bin" \
    SCALE=tiny TRIALS=1 CRASH_MODE=cpu "$root/scripts/experiments/crash.sh" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^crash: none of the workloads (blk ) has mode 'cpu'" "$tmp/out"; then
    echo "ok - a campaign where no workload has the mode fails, saying so"
else
    echo "not ok - no workload with the mode: exit $rc: $(head -c 400 "$tmp/out")"
fi
