#!/bin/sh
# Recomputability without crash consistency (make nvc), after NVC (Ma et
# al., MCHPC'18): can a workload restart from whatever PM holds when no
# persist is honoured? For each workload of WORKLOADS, each operation (OPS)
# and each mode (MODES; default: gpm where a GPU is visible, its trace's
# fences ignored as if the kernels had none, and cpu where the workload has
# it), gpm-check runs the work once traced and builds IMAGES (default 1000)
# crash images under its model none: every store before the crash may or
# may not have reached PM, each word holding any value written to it. Only
# the run identity's persists count (--honour .id): it names the run and is
# written three times a run, so the question is the workload's data, not
# the harness's bookkeeping. Each image is restarted with the workload's own
# --recover and classified:
#   correct: it recovered and verified; the row's durable_median is the
#     median share of the work those recoveries found durable (the rest
#     they computed again: the extra work);
#   wrong output: it restarted and gave a wrong result (the workload's
#     check names the first difference in the log, and its row how wrong,
#     in the workload's own error measure: wrong_units=B/T of its units,
#     the largest error where the output is floating point); the row's
#     wrong_share_median and wrong_share_max are the median and the largest
#     share of units wrong among the wrong outputs, wrong_max_err the
#     largest error, wrong_measured how many of them said;
#   failed restart: the recovery refused what PM held (damage it detected)
#     or crashed.
# Failing images are the finding here, not a failure: the experiment fails
# only where a check could not run or its trace was incomplete.
# Rows: $RESULTS_DIR/nvc.tsv (op=check, gpm-check's params, model=none,
# honour=.id). Report: scripts/report/nvc.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE (tiny from make), WORKLOADS, OPS,
# MODES, IMAGES, CHECK_ARGS (more flags for the programs), GPM_PM_DIR.
set -u
name=nvc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/check-run.sh"
IMAGES=${IMAGES:-1000}
out=$RESULTS_DIR/nvc.tsv
CHECKER_FLAGS="--model none --honour .id"
bad=0

gpu_or_cpu_only "$name" "restarting"

# to_restart W: MODES's modes of W; else gpm and cpu, where W resumes them
# and they run here.
to_restart() {
    if [ -n "${MODES:-}" ]; then
        modes_given "$1"
    else
        modes_that_resume "$1" | grep -x -e gpm -e cpu
    fi
}

# how_wrong PARAMS: " (a median X% of their UNITS wrong, at most Y%, the
# largest error E)" from a check's row, "" where no output was wrong.
how_wrong() {
    _w=$(param "$1" wrong) _k=$(param "$1" wrong_measured)
    [ "${_w:-0}" -gt 0 ] || return 0
    if [ "${_k:-0}" -eq 0 ]; then
        echo " (not measured)"
        return 0
    fi
    awk -v w="$_w" -v k="$_k" -v med="$(param "$1" wrong_share_median)" \
        -v max="$(param "$1" wrong_share_max)" -v u="$(param "$1" units)" \
        -v e="$(param "$1" wrong_max_err)" -v ek="$(param "$1" wrong_err)" 'BEGIN {
        printf " (%sa median %.3g%% of their %s wrong, at most %.3g%%", (k < w) ? k " of " w " measured: " : "",
            100 * med, u, 100 * max
        if (e != "") printf ", the largest error %s, %s", e, ek == "rel" ? "relative" : "absolute"
        printf ")" }'
}

# restart W OP MODE LABEL: one check under model none, and its line.
restart() {
    w=$1 op=$2 m=$3 lbl=$4
    d=$(check_dir) || exit 1
    # shellcheck disable=SC2046,SC2086 # op_flag and CHECK_ARGS: lists of words
    run_check "$out" "$d" "$IMAGES" "" "$w" "$m" "$SCALE" $(op_flag "$op") ${CHECK_ARGS:-}
    p=$CHECK_PARAMS
    if [ -n "$CHECK_WHY" ] || [ -z "$(param "$p" images)" ]; then
        echo "$name: $lbl ($m, $SCALE): FAILED: the check could not run: ${CHECK_WHY:-gpm-check exited $CHECK_RC}" >&2
        echo "$name: $lbl ($m): its folder and log stay in $d and $CHECK_LOG" >&2
        bad=1
        return
    fi
    if [ "$(param "$p" complete)" = no ]; then
        echo "$name: $lbl ($m, $SCALE): incomplete trace: $(grep -m 1 'INCOMPLETE' "$CHECK_LOG" | sed 's/^gpm-check: INCOMPLETE: //')" >&2
        bad=1
    fi
    dm=$(param "$p" durable_median)
    echo "$name: $lbl ($m, $SCALE): $(param "$p" images) images, no persist honoured but the identity's: $(param "$p" recovered) correct$([ -z "$dm" ] || awk -v x="$dm" 'BEGIN { printf " (finding a median %.0f%% of the work durable)", 100 * x }'), $(param "$p" wrong) wrong output$(how_wrong "$p"), $(($(param "$p" refused) + $(param "$p" crashed))) failed restarts ($(param "$p" refused) refused, $(param "$p" crashed) crashed)"
    rm -rf "$d" "$CHECK_LOG"
}

each_check restart to_restart restart
exit $bad
