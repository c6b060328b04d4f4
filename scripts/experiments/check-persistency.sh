#!/bin/sh
# Persistency checks (make check-persistency): for each workload of
# WORKLOADS, each of its operations (OPS) and each mode to check, gpm-check
# runs the work once with its PM stores and persist points traced, checks
# that the trace is complete (replayed, it gives the files the run left),
# builds up to IMAGES (default 100) crash images that the mode's
# persistency model allows, and recovers each with the program's own
# --recover, which must verify against the golden output. Beside each
# check, one untraced run of the same command: the traced run's wall time
# and timed work over its are the trace's overhead (one run each: at tiny
# scale process start-up weighs in the wall time).
#
# Modes: those of MODES (a comma list) where it is set; a workload without
# one of them is skipped for it with one line. Otherwise, per workload
# (W --modes), every mode whose --recover resumes durable progress
# (resumes=1): cpu where the workload has it and, with a GPU, the GPM
# modes (whose kernels' stores and fences the trace records through the
# device API) and the CAP modes that resume. Without a GPU only the modes
# that need none run (cpu), and one line says that the GPU modes need a
# GPU.
#
# NESTED (default 0): so many of each check's images (spread over its crash
# points) have their recovery traced and crashed too, each of those images
# recovered again (gpm-check --nested): a recovery's own missing persist.
#
# The rule: the experiment fails (exit 1) if any check failed: an image
# that did not recover, a check that could not run, or a trace that was
# incomplete (its images prove nothing: the stores it did not see are
# named).
#
# Rows: $RESULTS_DIR/persistency.tsv, op=check, gpm-check's params (op= for
# a workload of several operations, model, images, recovered, wrong,
# crashed, refused, complete, run_s, run_work_s), trace_points, untraced_s,
# untraced_work_s and kernels_write_pm; median_s is the check's wall time.
# Report: scripts/report/persistency.py. A failed check's folder (the run,
# its trace, the failing images) and its log are kept under GPM_PM_DIR and
# named.
# Environment: GPM_BIN, RESULTS_DIR, SCALE (tiny from make), WORKLOADS, OPS,
# MODES, IMAGES, NESTED, CHECK_ARGS (more flags for every run of the
# programs), GPM_PM_DIR.
set -u
name=check-persistency
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/check-run.sh"
IMAGES=${IMAGES:-100}
out=$RESULTS_DIR/persistency.tsv
pm_base=${GPM_PM_DIR:-/dev/shm/gpm-$(id -u)}
mkdir -p "$pm_base" || exit 1
bad=0

gpu_or_cpu_only "$name" checking

secs() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'
}

# check W OP MODE LABEL: one check, its line, and the verdict.
check() {
    w=$1 op=$2 m=$3 lbl=$4
    kernels=0
    modes_where "$GPM_BIN" "$w" kernels_write_pm=1 | grep -qx -- "$m" && kernels=1
    # The same command untraced, in a folder on the same file system.
    u=$(mktemp -d "$pm_base/untraced.XXXXXX") || exit 1
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046,SC2086 # op_flag and CHECK_ARGS: lists of words
    "$GPM_BIN/$w" --mode "$m" --scale "$SCALE" $(op_flag "$op") ${CHECK_ARGS:-} --reps 1 --pm-dir "$u" \
        --out "$u/rows.tsv" >"$u/log" 2>&1
    urc=$?
    t1=$(date +%s.%N)
    if [ "$urc" -eq 0 ]; then
        untraced_s=$(secs "$t0" "$t1")
        untraced_work_s=$(last_field "$u/rows.tsv" median_s)
    else
        echo "$name: $lbl ($m): the untraced run exited $urc: $(tail -n 1 "$u/log")" >&2
        untraced_s=nan untraced_work_s=nan
    fi
    rm -rf "$u"
    d=$(check_dir) || exit 1
    # shellcheck disable=SC2046,SC2086
    run_check "$out" "$d" "$IMAGES" \
        "untraced_s=$untraced_s,untraced_work_s=$untraced_work_s,kernels_write_pm=$kernels" \
        "$w" "$m" "$SCALE" $(op_flag "$op") ${CHECK_ARGS:-}
    p=$CHECK_PARAMS
    ni=$(param "$p" nested_images) nr=$(param "$p" nested_recovered)
    nest_note=""
    [ "${ni:-0}" -eq 0 ] ||
        nest_note="; crashes in $(param "$p" nested) recoveries: $ni images, $nr recovered"
    if [ -n "$CHECK_WHY" ] || [ -z "$(param "$p" images)" ]; then
        verdict="FAILED: the check could not run: ${CHECK_WHY:-gpm-check exited $CHECK_RC}"
    elif [ "$(param "$p" complete)" = no ]; then
        verdict="incomplete: stores the trace did not see ($(grep -m 1 'INCOMPLETE' "$CHECK_LOG" | sed 's/^gpm-check: INCOMPLETE: //'))"
    elif [ "$CHECK_RC" -ne 0 ]; then
        verdict="FAILED: $(not_recovered "$p") images not recovered"
    else
        verdict=ok
    fi
    rate=$(awk -v n="$(param "$p" images)" -v s="$CHECK_S" \
        'BEGIN { if (s > 0 && n > 0) printf "%.1f", n / s; else print "nan" }')
    over=$(awk -v a="$(param "$p" run_s)" -v b="$untraced_s" -v c="$(param "$p" run_work_s)" \
        -v d="$untraced_work_s" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx wall", a / b; else printf "? wall"
                                        if (c + 0 > 0 && d + 0 > 0) printf ", %.2fx work", c / d; else printf ", ? work" }')
    [ -n "$CHECK_WHY" ] ||
        echo "$name: $lbl ($m, $SCALE): $(check_summary "$p")$nest_note; $rate images/s; trace overhead $over: $verdict"
    [ -z "$CHECK_WHY" ] || echo "$name: $lbl ($m, $SCALE): $verdict" >&2
    if [ "$verdict" = ok ]; then
        rm -f "$CHECK_LOG"
    else
        bad=1
        echo "$name: $lbl ($m): the check's folder and log stay in $d and $CHECK_LOG" >&2
        grep -A 4 '^gpm-check: FAILED image' "$CHECK_LOG" | head -n 10 | sed 's/^/    /' >&2
    fi
}

each_check check modes_that_resume check
exit $bad
