#!/bin/sh
# Crash trials for undo logging and transactions (gpm/tx.h): gpm-crash-log
# runs transactions until its watchdog SIGKILLs it at a random moment, then
# a recovery run must bring the array back to exactly the state after the
# transactions the log's word counts as committed. Each log kind runs in
# mode gpm (fenced logging) and gpm-ndp (unfenced logging and updates, the
# CPU flushing).
# Environment: GPM_BIN, GPM_PM_DIR (from run-tests.sh); TRIALS (HCL trials,
# default 50), CONV_TRIALS (default TRIALS), NDP_TRIALS (trials of each
# kind in mode gpm-ndp, default TRIALS), KILL_AFTER_US (default
# 2000:150000), ELEMENTS (default 65536), RESULTS_DIR (optional: counts are
# appended as result rows to RESULTS_DIR/crash-log.tsv).
set -u
bin=${GPM_BIN:?GPM_BIN not set}
dir=${GPM_PM_DIR:?GPM_PM_DIR not set}
trials=${TRIALS:-50}
conv_trials=${CONV_TRIALS:-$trials}
ndp_trials=${NDP_TRIALS:-$trials}
window=${KILL_AFTER_US:-2000:150000}
elements=${ELEMENTS:-65536}

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "skip - crash_log: no CUDA GPU"
    exit 0
fi

status=0
for case in hcl conv hcl-ndp conv-ndp; do
    kind=${case%-ndp}
    mode=gpm ndp=
    n=$trials
    [ "$kind" = conv ] && n=$conv_trials
    if [ "$case" != "$kind" ]; then
        mode=gpm-ndp ndp=--ndp n=$ndp_trials
    fi
    killed=0 recovered=0 unrecovered=0 midtx=0 mid=0 before=0 finished=0 i=0
    while [ "$i" -lt "$n" ]; do
        i=$((i + 1))
        f=$dir/crash-$case-$i
        rm -f "$f.data" "$f.log"
        timeout 120 "$bin/gpm-crash-log" --log "$kind" $ndp --file "$f" --elements "$elements" \
            --kill-after-us "$window" --seed "$((i * 7919 + 17))" >"$f.run" 2>&1
        rc=$?
        [ "$rc" -eq 137 ] && killed=$((killed + 1))
        [ "$rc" -eq 0 ] && finished=$((finished + 1))
        if timeout 120 "$bin/gpm-crash-log" --recover --file "$f" >"$f.rec" 2>&1; then
            recovered=$((recovered + 1))
            # a trial killed inside a transaction has records to undo; one
            # killed after a commit kept that durable progress (the array
            # equals the state after `committed` transactions)
            undone=$(sed -n 's/.* undone \([0-9]*\) .*/\1/p' "$f.rec")
            committed=$(sed -n 's/.* committed \([0-9]*\) .*/\1/p' "$f.rec")
            [ "${undone:-0}" -gt 0 ] && midtx=$((midtx + 1))
            if [ "$rc" -eq 137 ]; then
                if [ "${undone:-0}" -gt 0 ] || [ "${committed:-0}" -gt 0 ]; then
                    mid=$((mid + 1))
                else
                    before=$((before + 1))
                fi
            fi
        else
            unrecovered=$((unrecovered + 1))
            echo "# $case trial $i (run exit $rc):"
            sed 's/^/#   /' "$f.run" "$f.rec"
        fi
        rm -f "$f.data" "$f.log" "$f.run" "$f.rec"
    done
    summary="trials $n, killed $killed (mid-work $mid, of which mid-transaction $midtx; before the first commit $before), recovered $recovered, unrecovered $unrecovered"
    if [ "$unrecovered" -eq 0 ] && [ "$killed" -eq "$n" ] && [ "$n" -gt 0 ] &&
        [ $((2 * mid)) -ge "$n" ]; then
        echo "ok - crash_log_$(echo "$case" | tr - _): $summary"
    else
        echo "not ok - crash_log_$(echo "$case" | tr - _): $summary"
        status=1
    fi
    if [ -n "${RESULTS_DIR:-}" ]; then
        verdict=ok
        [ "$unrecovered" -eq 0 ] || verdict=fail
        "$bin/gpm-row" "$RESULTS_DIR/crash-log.tsv" workload=crash-log op="$kind" mode="$mode" \
            scale=custom size_bytes="$((elements * 4))" reps="$n" verified="$verdict" \
            params="trials=$n,mid_work=$mid,before_progress=$before,finished_first=$finished,recovered=$recovered,unrecovered=$unrecovered,mid_transaction=$midtx,kill_after_us=${window%%:*}-${window##*:},elements=$elements"
    fi
done
exit $status
