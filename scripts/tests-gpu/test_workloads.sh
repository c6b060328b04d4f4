#!/bin/sh
# Every mode of every workload at tiny scale, verified against its CPU
# reference, then crash trials: the run is killed with SIGKILL at a random
# moment, --recover must finish it and verify.
#   GPM_BIN (programs), GPM_PM_DIR (scratch); WORKLOADS (default: every
#   program in GPM_BIN but libgpm's gpm-* tools), CRASH_TRIALS per workload
#   and mode (default 3), CRASH_SCALE (default small).
# A workload's modes are those its --help lists, so a new workload needs no
# edit here.
set -u
bin=${GPM_BIN:?GPM_BIN must name the programs directory}
dir=${GPM_PM_DIR:-/dev/shm}/workloads.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
rows=$dir/rows.tsv
trials=${CRASH_TRIALS:-3}
cscale=${CRASH_SCALE:-small}
log=$dir/log

# The harness's usage line: "usage: W --mode gpm|gpm-ndp|... [--scale ...".
modes_of() {
    "$bin/$1" --help | sed -n 's/^usage: [^ ]* --mode \([^ ]*\).*/\1/p' | tr '|' ' '
}

if [ -n "${WORKLOADS:-}" ]; then
    workloads=$(echo "$WORKLOADS" | tr 'A-Z,' 'a-z ')
else
    workloads=$(for p in "$bin"/*; do
        case ${p##*/} in gpm-*) ;; *) [ -f "$p" ] && [ -x "$p" ] && echo "${p##*/}" ;; esac
    done)
fi

for w in $workloads; do
    modes=$(modes_of "$w")
    if [ -z "$modes" ]; then
        echo "not ok - $w: its --help lists no modes (is it a workload program?)"
        continue
    fi
    nogpu=0
    for m in $modes; do
        "$bin/$w" --mode "$m" --scale tiny --reps 2 --pm-dir "$dir" --out "$rows" >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && tail -n 1 "$rows" | grep -q "	$w	run	$m	tiny	.*	ok	"; then
            echo "ok - $w $m tiny verified"
        elif grep -q "no CUDA\|CUDA driver version is insufficient\|no CUDA-capable" "$log"; then
            echo "skip - $w $m: no GPU"
            nogpu=1
        else
            echo "not ok - $w $m tiny: exit $rc: $(tail -n 1 "$log")"
        fi
    done
    if [ $nogpu -eq 1 ]; then
        echo "skip - $w crash trials: no GPU"
        continue
    fi
    # Crash trials in the mode that resumes (gpm) and a CAP mode (restart).
    for m in gpm cap-fs; do
        killed=0 finished=0 recovered=0 failed=0
        t=0
        while [ $t -lt "$trials" ]; do
            t=$((t + 1))
            "$bin/$w" --mode "$m" --scale "$cscale" --reps 1 --pm-dir "$dir" \
                --crash-after random --seed $t >"$log" 2>&1
            rc=$?
            case $rc in
            137) killed=$((killed + 1)) ;;
            0) finished=$((finished + 1)) ;;
            *) echo "not ok - $w $m crash trial $t: exit $rc: $(tail -n 1 "$log")"
               failed=$((failed + 1)); continue ;;
            esac
            if "$bin/$w" --mode "$m" --scale "$cscale" --pm-dir "$dir" --recover --seed $t \
                --out "$rows" >"$log" 2>&1 &&
                tail -n 1 "$rows" | grep -q "	$w	recover	$m	.*	ok	"; then
                recovered=$((recovered + 1))
                echo "ok - $w $m crash trial $t ($([ $rc -eq 137 ] && echo killed || echo finished first)): recovered, $(tail -n 1 "$rows" | awk -F'\t' '{print $NF}')"
            else
                failed=$((failed + 1))
                echo "not ok - $w $m crash trial $t: recovery failed: $(tail -n 1 "$log")"
            fi
            rm -f "$dir/$w-$cscale".*
        done
        echo "# $w $m: trials $trials, killed $killed, finished first $finished, recovered $recovered, unrecovered $failed"
    done
done
