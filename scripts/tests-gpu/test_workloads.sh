#!/bin/sh
# Every mode of every workload at tiny scale, verified against its CPU
# reference, then crash trials in gpm (which resumes durable progress) and
# cap-fs and cap-gds (which rerun), where the workload has them: the run is
# killed with SIGKILL just after its K-th unit of progress is durable
# (--kill progress:K), K spread over the units a measured run has, so
# every kill lands mid-work whatever the machine's speed; --recover must
# finish it, verify, and say what the kill hit (scripts/lib/crash-trial.sh);
# where a workload has cap-delta, its crash trials too. A workload with a
# variant for SBRP (--persistency sbrp) runs it in gpm and gpm-eadr too.
#   GPM_BIN (programs), GPM_PM_DIR (scratch); WORKLOADS (default: every
#   program in GPM_BIN but libgpm's gpm-* tools), CRASH_TRIALS per workload
#   and mode (default 4), CRASH_SCALE (default small), WORKLOAD_JOBS
#   (workloads tested at once, each in a folder of its own; default a third
#   of the cores). Each workload's lines are shown together, in order.
# A workload's modes are those its --help lists, so a new workload needs no
# edit here.
set -u
bin=${GPM_BIN:?GPM_BIN must name the programs directory}
top=${GPM_PM_DIR:-/dev/shm}/workloads.$$
mkdir -p "$top" || exit 1
trap 'rm -rf "$top"' EXIT
trials=${CRASH_TRIALS:-4}
cscale=${CRASH_SCALE:-small}
jobs=${WORKLOAD_JOBS:-$(($(getconf _NPROCESSORS_ONLN) / 3))}
case $jobs in '' | *[!0-9]*) echo "not ok - WORKLOAD_JOBS=$jobs: pass a count"; exit 1 ;; esac
[ "$jobs" -ge 1 ] || jobs=1
. "$(dirname "$0")/../lib/crash-trial.sh"
. "$(dirname "$0")/../lib/workloads.sh"

# verified_run W OP MODE LABEL [FLAGS]: one tiny run of W in MODE, which
# must leave a verified row that, in GPU modes, says the PCIe throughput
# (or that the driver gives none).
verified_run() {
    vw=$1 vop=$2 vm=$3 vlabel=$4
    shift 4
    "$bin/$vw" --mode "$vm" "$@" --scale tiny --reps 2 --pm-dir "$dir" --out "$rows" >"$log" 2>&1
    vrc=$?
    if [ $vrc -eq 0 ] && tail -n 1 "$rows" | grep -q "	$vw	$vop	$vm	tiny	.*	ok	" &&
        { [ "$vm" = cpu ] || tail -n 1 "$rows" | grep -q "pcie_tx"; }; then
        echo "ok - $vw $vlabel tiny verified"
    else
        echo "not ok - $vw $vlabel tiny: exit $vrc: $(tail -n 1 "$log")"
    fi
}

# test_workload W: every mode of W, then its crash trials, in $top/W.
test_workload() {
    w=$1 dir=$top/$1
    rows=$dir/rows.tsv log=$dir/log
    mkdir -p "$dir" || return 1
    modes=$(workload_modes "$bin" "$w")
    off=" $(modes_unavailable "$bin" "$w" | tr '\n' ' ') "
    if [ -z "$modes" ]; then
        echo "not ok - $w: its --help lists no modes (is it a workload program?)"
        return 0
    fi
    # Each operation of a workload that has several (--op) is a test of its own.
    for op in $(workload_ops "$bin" "$w"); do
        flag="" what=""
        [ "$op" = run ] || { flag="--op $op"; what="$op "; }
        for m in $modes; do
            case $off in *" $m "*)
                echo "ok - $w $what$m # SKIP: $("$bin/$w" --mode "$m" --scale tiny 2>&1 | tail -n 1)"
                continue ;;
            esac
            # shellcheck disable=SC2086 # flag is no word or two
            verified_run "$w" "$op" "$m" "$what$m" $flag
        done
        # The variant written for SBRP, where the workload has one.
        if "$bin/$w" --help 2>/dev/null | grep -q -- --persistency; then
            for m in gpm gpm-eadr; do
                # shellcheck disable=SC2086
                verified_run "$w" "$op" "$m" "$what$m --persistency sbrp" $flag --persistency sbrp
            done
        fi
        extra=""
        has_mode "$bin" "$w" cap-delta && extra=cap-delta
        mode_available "$bin" "$w" cap-gds && extra="$extra cap-gds"
        for m in gpm cap-fs $extra; do
            has_mode "$bin" "$w" "$m" || continue
            GPM_PM_DIR=$dir
            # shellcheck disable=SC2086 # flag is no word or two
            if ! timeline=$(measure_work "$w" "$m" "$cscale" "$dir" $flag 2>"$log"); then
                echo "not ok - $w $what$m crash trials: $(cat "$log")"
                continue
            fi
            units=${timeline%% *}
            if [ "${units:-0}" -lt 2 ]; then
                echo "not ok - $w $what$m crash trials: $units unit(s) of progress at $cscale scale: none to kill between"
                continue
            fi
            mid=0 failed=0 t=0
            while [ $t -lt "$trials" ]; do
                t=$((t + 1))
                # Killed just after unit K is durable, K spread over the
                # work: never at a moment that the machine's speed decides.
                k=$((units * t / (trials + 1)))
                [ "$k" -ge 1 ] || k=1
                # shellcheck disable=SC2086
                if crash_trial "$w" "$m" "$cscale" "$t" "progress:$k" "$dir" $flag; then
                    [ "$TRIAL" = mid-work ] && mid=$((mid + 1))
                    echo "ok - $w $what$m crash trial $t (killed after unit $k of $units): $TRIAL, recovered: $(echo "$TRIAL_PARAMS" | sed 's/.*seed=[0-9]*,//')"
                else
                    failed=$((failed + 1))
                    echo "not ok - $w $what$m crash trial $t (killed after unit $k of $units): $TRIAL: $(tail -n 1 "$TRIAL_LOG")"
                fi
            done
            # A kill after unit K < the last lands inside the work, every time.
            if [ "$mid" -eq "$trials" ]; then
                echo "ok - $w $what$m crash trials: $mid of $trials killed mid-work, $failed unrecovered"
            else
                echo "not ok - $w $what$m crash trials: $mid of $trials killed mid-work"
            fi
        done
    done
}

# At most $jobs workloads at once: each waits for the oldest still running.
list=$(workload_list "$bin")
running=""
for w in $list; do
    # shellcheck disable=SC2086 # a list of process ids
    set -- $running
    if [ $# -ge "$jobs" ]; then
        wait "$1"
        shift
        running=$*
    fi
    test_workload "$w" >"$top/$w.out" 2>&1 &
    running="$running $!"
done
wait
for w in $list; do
    cat "$top/$w.out"
done
