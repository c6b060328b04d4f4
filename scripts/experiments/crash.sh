#!/bin/sh
# Crash campaign: for each workload of WORKLOADS, TRIALS trials of
#   W --mode gpm --crash-after random --keep --seed I   (killed by SIGKILL)
#   W --mode gpm --recover --seed I --out crash-trials.tsv   (must verify)
# (CRASH_MODE=cpu crashes the CPU baseline instead, which needs no GPU.)
# A trial whose run finished before the kill is counted as such and its
# recovery is still checked. Prints one summary line per workload, appends
# a campaign row (op=crash-campaign) to $RESULTS_DIR/crash.tsv and exits 1
# if any trial was not recovered. Report: scripts/report/crash.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, WORKLOADS, TRIALS (default 50),
# GPM_PM_DIR, CRASH_SEED (first seed - 1, default 0), TRIAL_TIMEOUT
# (seconds one program may run before it counts as hung, default 900),
# CRASH_MODE (default gpm).
set -u
name=crash
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
TRIALS=${TRIALS:-50}
limit=${TRIAL_TIMEOUT:-900}
mode=${CRASH_MODE:-gpm}
trials_out=$RESULTS_DIR/crash-trials.tsv
logs=$(mktemp -d "${TMPDIR:-/tmp}/gpm-crash.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
bad=0

for w in $(workloads); do
    have_program "$w" || { bad=1; continue; }
    skip=0
    [ -f "$trials_out" ] && skip=$(wc -l <"$trials_out")
    recovered=0 unrecovered=0 finished=0
    i=1
    while [ "$i" -le "$TRIALS" ]; do
        seed=$((${CRASH_SEED:-0} + i))
        log=$logs/$w-$i.log
        start=$(date +%s)
        timeout -k 30 "$limit" "$GPM_BIN/$w" --mode "$mode" --scale "$SCALE" --seed "$seed" --keep \
            --crash-after random ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} >"$log" 2>&1
        rc=$?
        # timeout -k ends a hung program with SIGKILL too (status 137).
        [ "$rc" -eq 137 ] && [ $(($(date +%s) - start)) -ge "$limit" ] && rc=124
        case $rc in
            137) what="killed" ;;
            0) what="finished before the kill"; finished=$((finished + 1)) ;;
            124) what="hung (no exit within ${limit}s)" ;;
            *) what="exited with status $rc, not killed" ;;
        esac
        timeout -k 30 "$limit" "$GPM_BIN/$w" --mode "$mode" --scale "$SCALE" --seed "$seed" --recover \
            ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} --out "$trials_out" >>"$log" 2>&1
        rrc=$?
        if [ "$rrc" -eq 0 ] && { [ "$rc" -eq 137 ] || [ "$rc" -eq 0 ]; }; then
            recovered=$((recovered + 1))
            echo "$name: $w trial $i/$TRIALS (seed $seed): $what, recovered"
        else
            unrecovered=$((unrecovered + 1))
            echo "$name: $w trial $i/$TRIALS (seed $seed): $what, NOT RECOVERED (recover exit $rrc); log:" >&2
            tail -n 20 "$log" | sed 's/^/    /' >&2
        fi
        i=$((i + 1))
    done
    echo "$name: $w ($mode, $SCALE): trials $TRIALS, recovered $recovered, unrecovered $unrecovered, finished before kill $finished"
    python3 "$here/report/crash.py" --record "$RESULTS_DIR" "$w" "$SCALE" "$TRIALS" \
        "$recovered" "$unrecovered" "$finished" "$skip" "$mode" || bad=1
    [ "$unrecovered" -eq 0 ] || bad=1
done
exit $bad
