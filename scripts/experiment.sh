#!/bin/sh
# Runs one experiment, notes its wall time in results/$PLATFORM/timing.tsv
# if it succeeded, then builds its report and the timing report.
#   scripts/experiment.sh TARGET BIN_DIR
# TARGET is figure_3, figure_9, ...; scripts/experiments/TARGET.sh does the
# runs and appends raw rows under results/$PLATFORM/, then
# scripts/reports.sh TARGET turns them into reports/$PLATFORM/TARGET.{tsv,png}.
# Environment: SCALE (tiny|small|paper), WORKLOADS (comma list; default
# every workload program), TRIALS, PLATFORM (results/<PLATFORM>/, default
# "local"), GPM_PM_DIR. Experiments that need a GPU check for one once, up
# front, and stop with one line if there is none; check-persistency,
# mutants and nvc run without one too (their cpu modes; they say so).
# check-persistency's report drops the "check-":
# reports/$PLATFORM/persistency.tsv.
set -eu
target=$1
here=$(cd "$(dirname "$0")" && pwd)
GPM_BIN=$(cd "${2:-build/bin}" && pwd)
GPM_ROOT=$(cd "$here/.." && pwd)
RESULTS_DIR=${RESULTS_DIR:-$GPM_ROOT/results/${PLATFORM:-local}}
export GPM_BIN GPM_ROOT RESULTS_DIR
# The checkers run many programs per workload: tiny unless told.
case $target in check-persistency | mutants | nvc) export SCALE=${SCALE:-tiny} ;; esac
export SCALE=${SCALE:-small} TRIALS=${TRIALS:-50}
script=$here/experiments/$target.sh
if [ ! -x "$script" ]; then
    echo "experiment: no experiment named $target (expected $script)" >&2
    exit 2
fi
"$here/lib/check-vars.sh" "$target" "$GPM_BIN" || exit 2
# Every experiment but the CPU crash campaign and the checkers runs GPU
# programs.
case $target in
    check-persistency | mutants | nvc) needs_gpu=0 ;;
    crash) needs_gpu=$([ "${CRASH_MODE:-gpm}" = cpu ] && echo 0 || echo 1) ;;
    *) needs_gpu=1 ;;
esac
if [ "$needs_gpu" -eq 1 ]; then
    if ! why=$("$GPM_BIN/gpm-info" --check-gpu 2>&1); then
        echo "$target: ${why#gpm-info: }: run it on a machine with an NVIDIA GPU (without one: make test, make crash CRASH_MODE=cpu, make check-persistency, make mutants)" >&2
        exit 1
    fi
fi
mkdir -p "$RESULTS_DIR"
"$GPM_BIN/gpm-info" >"$RESULTS_DIR/gpm-info.tsv" 2>/dev/null || true
# Reports are built even when some runs failed: the failures are in them.
rc=0
start=$(date +%s.%N)
"$script" || rc=$?
# The experiment's wall time, for the report that sets it against the
# rows' timed repetitions (scripts/report/timing.py); a failed experiment
# adds none: its wall time is not that of the work it was to do.
timing=$RESULTS_DIR/timing.tsv
if [ "$rc" -eq 0 ]; then
    [ -s "$timing" ] ||
        printf 'target\tscale\tworkloads\tops\tstarted\twall_s\texit\tgit_rev\thost\n' >"$timing"
    # The revision and host from the platform written above.
    awk -F'\t' -v t="$target" -v s="$SCALE" -v w="${WORKLOADS:-all}" -v o="${OPS:-all}" \
        -v t0="$start" -v t1="$(date +%s.%N)" -v rc="$rc" \
        -v at="$(date -u -d "@${start%.*}" +%Y-%m-%dT%H:%M:%SZ)" '
        { v[$1] = $2 }
        END { printf "%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\n", t, s, w, o, at, t1 - t0, rc,
                     v["git_rev"], v["host"] }' "$RESULTS_DIR/gpm-info.tsv" >>"$timing"
fi
"$here/reports.sh" "${target#check-}" $([ -s "$timing" ] && echo timing) || { [ "$rc" -ne 0 ] || rc=1; }
exit "$rc"
