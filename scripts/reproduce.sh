#!/bin/sh
# Every figure and table of the paper that the suite covers, at SCALE
# (default paper), then reports/$PLATFORM/summary.md: our numbers beside the
# paper's.
#   scripts/reproduce.sh BIN_DIR
# Runs Figure 3, Figures 9, 10, 12, 1a and 1b, Tables 4 and 5, Figures 11a
# and 11b, the persistence roofline and YCSB on GPHash (both beyond the
# paper), the crash campaign,
# the persistency checks (gpm-check, at tiny scale: what a missing flush or
# fence would break, which no kill on DRAM shows), NVC's restarts with no
# persist honoured (tiny scale too) and SBRP's litmus tests, ported
# programs and their scope mutants (small scale: its timings set two
# variants of one program side by side)
# through scripts/experiment.sh, in that order (later ones reuse
# Figure 9's rows of the same revision). Before it starts it
# prints an estimate of the total time from the rows earlier runs left in
# results/$PLATFORM at this scale; as it goes it prints each step and the
# time so far. A failed step is reported and the others still run; the
# script then exits 1. Environment: as scripts/experiment.sh (SCALE,
# WORKLOADS, OPS, TRIALS, PLATFORM, GPM_PM_DIR, REPS), and STEPS (a comma
# list, default every step): only these steps, so that one revision's
# results can be made in several sittings (rows are appended; the reports
# read them all). The crash campaign runs at CRASH_SCALE (default small;
# a kill tests recovery, whose logic is the same at every size, and a
# paper-scale trial takes seconds to minutes) with CRASH_TRIALS (default
# 100) random kills per workload and operation: 1,100 over the nine
# workloads, with the commit kills of gpKVS and gpDB on top.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-build/bin}" && pwd)
root=$(cd "$here/.." && pwd)
export SCALE=${SCALE:-paper}
crash_scale=${CRASH_SCALE:-small}
results=${RESULTS_DIR:-$root/results/${PLATFORM:-local}}
all_steps="figure_3 figure_9 figure_10 figure_12 figure_1a figure_1b table_4 table_5 figure_11a figure_11b roofline figure_ycsb crash check-persistency nvc sbrp"
steps=$(echo "${STEPS:-$all_steps}" | tr ',' ' ')
for s in $steps; do
    case " $all_steps " in
        *" $s "*) ;;
        *) echo "reproduce: STEPS: no step '$s'; the steps are: $all_steps" >&2; exit 2 ;;
    esac
done
"$here/lib/check-vars.sh" reproduce "$bin" || exit 2
if ! why=$("$bin/gpm-info" --check-gpu 2>&1); then
    echo "reproduce: ${why#gpm-info: }: run it on a machine with an NVIDIA GPU" >&2
    exit 1
fi

# The estimate: what the rows of earlier runs at this scale took (each run's
# repetitions and its two untimed passes, setup and verification, counted
# as two more), per step; a step without rows is named.
estimate() {
    for s in $steps; do
        f=$results/$s.tsv sc=$SCALE
        [ "$s" != crash ] || sc=$crash_scale
        [ "$s" != check-persistency ] || { f=$results/persistency.tsv sc=tiny; }
        [ "$s" != nvc ] || sc=tiny
        [ "$s" != sbrp ] || sc=small
        [ -f "$f" ] || { echo "$s ?"; continue; }
        # A check's median_s is the whole check.
        awk -F'\t' -v s="$sc" -v step="$s" '
            /^#/ { next }
            !hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
            $c["scale"] == s || step == "figure_3" || step == "figure_11b" {
                t += $c["median_s"] * (step == "check-persistency" || step == "nvc" ? 1 : $c["reps"] + 2); n++ }
            END { if (n) printf "%s %.0f\n", step, t; else print step " ?" }' "$f"
    done
}
known=0 unknown=""
while read -r s t; do
    if [ "$t" = "?" ]; then unknown="$unknown $s"; else known=$((known + ${t%.*})); fi
done <<EST
$(estimate)
EST
echo "reproduce: SCALE=$SCALE, rows in $results"
echo "reproduce: estimated time from earlier rows: about $((known / 60)) min $((known % 60)) s${unknown:+; no earlier rows for:$unknown}"

start=$(date +%s) failed="" k=0
for s in $steps; do
    k=$((k + 1))
    echo "reproduce: [$k/$(echo $steps | wc -w)] $s (after $(( $(date +%s) - start )) s)"
    if [ "$s" = crash ]; then
        echo "reproduce: crash at scale $crash_scale, ${CRASH_TRIALS:-100} trials per workload and operation"
        SCALE=$crash_scale TRIALS=${CRASH_TRIALS:-100} RESULTS_DIR=$results \
            "$here/experiment.sh" crash "$bin" || failed="$failed $s"
    elif [ "$s" = check-persistency ] || [ "$s" = nvc ]; then
        SCALE=tiny RESULTS_DIR=$results "$here/experiment.sh" "$s" "$bin" || failed="$failed $s"
    elif [ "$s" = sbrp ]; then
        SCALE=small RESULTS_DIR=$results "$here/experiment.sh" "$s" "$bin" || failed="$failed $s"
    else
        RESULTS_DIR=$results "$here/experiment.sh" "$s" "$bin" || failed="$failed $s"
    fi
done
# The reports of this revision's rows (gpm-info.tsv names it): a folder
# with rows of earlier ones too still gives one revision's reference.
rev=$(awk -F'\t' '$1 == "git_rev" { print $2 }' "$results/gpm-info.tsv" 2>/dev/null)
REF_REV=${REF_REV:-$rev} RESULTS_DIR=$results "$here/reports.sh" >/dev/null
echo "reproduce: done in $(( $(date +%s) - start )) s; ${REPORTS_DIR:-$root/reports/$(basename "$results")}/summary.md"
if [ -n "$failed" ]; then
    echo "reproduce: FAILED steps:$failed" >&2
    exit 1
fi
