#!/bin/sh
# Crash trials for checkpointing: gpm-crash-cp updates device buffers and
# checkpoints two groups in a loop until its watchdog SIGKILLs it at a random
# moment; a recovery run must then restore, for each group, exactly one of
# its last two checkpoints, whole. Trials rotate over the checkpoint modes
# (gpm, gpm-ndp, gpm-eadr, cap-mm, cap-eadr, and cap-fs: the same file
# format written with pwrite + fsync, restored with pread).
# Environment: GPM_BIN, GPM_PM_DIR (from run-tests.sh); TRIALS (default 50),
# KILL_AFTER_US (default 1000:200000), CP_SIZE (bytes, default 50331648),
# RESULTS_DIR (optional: counts are appended as result rows to
# RESULTS_DIR/crash-cp.tsv).
set -u
bin=${GPM_BIN:?GPM_BIN not set}
dir=${GPM_PM_DIR:?GPM_PM_DIR not set}
trials=${TRIALS:-50}
window=${KILL_AFTER_US:-1000:200000}
size=${CP_SIZE:-50331648}
modes="gpm gpm-ndp gpm-eadr cap-mm cap-eadr cap-fs"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "skip - crash_cp: no CUDA GPU"
    exit 0
fi

killed=0 recovered=0 unrecovered=0 inflight=0 before_first=0 finished=0 i=0
while [ "$i" -lt "$trials" ]; do
    set -- $modes
    shift $((i % $#))
    mode=$1
    i=$((i + 1))
    f=$dir/crash-cp-$i
    rm -f "$f" "$f.progress"
    timeout 120 "$bin/gpm-crash-cp" --file "$f" --size "$size" --mode "$mode" \
        --kill-after-us "$window" --seed "$((i * 7919 + 23))" >"$f.run" 2>&1
    rc=$?
    [ "$rc" -eq 137 ] && killed=$((killed + 1))
    [ "$rc" -eq 0 ] && finished=$((finished + 1))
    if timeout 120 "$bin/gpm-crash-cp" --recover --file "$f" >"$f.rec" 2>&1; then
        recovered=$((recovered + 1))
        grep -q 'in-flight one had flipped' "$f.rec" && inflight=$((inflight + 1))
        grep -q 'before the first checkpoint\|no checkpoint yet' "$f.rec" &&
            before_first=$((before_first + 1))
    else
        unrecovered=$((unrecovered + 1))
        echo "# trial $i, mode $mode (run exit $rc):"
        sed 's/^/#   /' "$f.run" "$f.rec"
    fi
    rm -f "$f" "$f.progress" "$f.run" "$f.rec"
done
# Killed mid-work: after every group's first checkpoint, so that recovery
# restores durable progress; before that there is none to restore.
mid=$((killed - before_first))
summary="trials $trials, killed $killed (mid-work $mid, before a group's first checkpoint $before_first), recovered $recovered, unrecovered $unrecovered, in-flight checkpoint had flipped $inflight"
echo "# $summary"
status=0
if [ "$unrecovered" -eq 0 ] && [ "$killed" -eq "$trials" ] && [ "$trials" -gt 0 ] &&
    [ $((2 * mid)) -ge "$trials" ]; then
    echo "ok - crash_cp: $summary"
else
    echo "not ok - crash_cp: $summary"
    status=1
fi
if [ -n "${RESULTS_DIR:-}" ]; then
    verdict=ok
    [ "$unrecovered" -eq 0 ] || verdict=fail
    "$bin/gpm-row" "$RESULTS_DIR/crash-cp.tsv" workload=crash-cp op=checkpoint \
        mode="$(echo $modes | tr ' ' '+')" scale=custom size_bytes="$size" reps="$trials" \
        verified="$verdict" \
        params="trials=$trials,mid_work=$mid,before_progress=$before_first,finished_first=$finished,recovered=$recovered,unrecovered=$unrecovered,inflight_flipped=$inflight,kill_after_us=${window%%:*}-${window##*:}"
fi
exit $status
