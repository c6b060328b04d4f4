#!/bin/sh
# The Figure 11b report and plot from fixture rows (made-up numbers chosen so
# the expected values are known, see fixtures/figure_11b/README): medians
# over repeated rows, conventional logging taken per thread count at its
# best verified partition count (which differs between thread counts) and
# at the fixed 64, conv/hcl for both and their means, only the newest run,
# the paper's value beside ours, a PNG drawn without gnuplot warnings, and a
# clear error without rows.
set -u
root=${GPM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$root/scripts/tests-cpu/report-checks.sh"
build_report figure_11b fig11b_report_builds

# field THREADS COLUMN: a value of the report table by name.
field() {
    awk -F'\t' -v t="$1" -v c="$2" '
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
        $1 == t { print (c in col) ? $(col[c]) : "NO-COLUMN"; exit }' "$out"
}
expect() { # NAME THREADS COLUMN WANT
    got=$(field "$2" "$3")
    if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "$2 $3 is '$got', want '$4'"; fi
}
expect fig11b_median_over_repeated_rows 32 hcl_us 10
expect fig11b_conv_best_latency 32 conv_best_us 20
expect fig11b_conv_best_count_reported 32 conv_best_partitions 4
expect fig11b_conv_best_count_differs_per_thread_count 32768 conv_best_partitions 1024
expect fig11b_unverified_faster_count_is_not_the_best 1024 conv_best_partitions 256
expect fig11b_ratio_at_best 1024 conv_best_over_hcl 4
expect fig11b_spread_unknown_for_rows_before_rsd_pct 1024 noisy unknown
expect fig11b_ratio_at_best_high 32768 conv_best_over_hcl 5
expect fig11b_fixed64_median_over_repeated_rows 32768 conv64_us 200
expect fig11b_fixed64_ratio 32768 conv64_over_hcl 10
expect fig11b_fixed64_absent_below_64_threads 32 conv64_us nan
expect fig11b_counts_above_threads_not_tried 32 conv_partitions_tried 1,4,16
expect fig11b_verified 32 verified ok
expect fig11b_unverified_row_flagged 1024 verified fail

rows=$(grep -vc '^#' "$out")
if [ "$rows" -eq 4 ] && grep -q 'git_rev fixture-new' "$out"; then
    ok fig11b_newest_run_only
else
    notok fig11b_newest_run_only "$rows lines (want header + 3) in $(head -1 "$out")"
fi

summary fig11b_summary_mean 'mean conv_best/hcl over 3 thread counts: 3.667x; paper 3.6x'
summary fig11b_summary_fixed64 'mean conv64/hcl (fixed 64 partitions) over 2 thread counts: 8x'
summary fig11b_summary_sweep 'ran at partition counts 1,4,16,64,256,1024 (per thread count'
summary fig11b_summary_growth 'growth from 32 to 32768 threads: hcl 2x, conv_best 5x; paper: hcl flat'
summary fig11b_best_at_sweep_edge_noted 'NOTE: the best partition count is the largest tried at 32768 threads'
summary fig11b_unverified_warned 'WARNING: some rows failed verification'

plot_drawn fig11b_plot_png_drawn "$root/scripts/plot/figure_11b.gp"
no_rows_is_an_error fig11b_no_rows_is_an_error "$root/scripts/report/figure_11b.py" "no log-scaling rows in $tmp/empty"

# Rows from before the sweep (one partition count) still make a report,
# which says that conventional logging was not swept.
grep -v 'fixture-new.*conv.*partitions=\(1\|4\|16\|256\|1024\),' \
    "$root/scripts/tests-cpu/fixtures/figure_11b/rows.tsv" >"$tmp/results/figure_11b.tsv"
if python3 "$root/scripts/report/figure_11b.py" "$tmp/results" "$out" 2>"$tmp/err" &&
    [ "$(field 1024 conv_best_partitions)" = 64 ] &&
    grep -q '^# NOTE: conventional logging ran at one partition count only (64)' "$out"; then
    ok fig11b_single_count_run_is_said
else
    notok fig11b_single_count_run_is_said "$(cat "$tmp/err") $(grep '^# NOTE' "$out")"
fi

# A sweep without the fixed count: the conv64 series has no number, and the
# plot leaves it out without a gnuplot warning.
grep -v 'fixture-new.*conv.*partitions=64,' \
    "$root/scripts/tests-cpu/fixtures/figure_11b/rows.tsv" >"$tmp/results/figure_11b.tsv"
if python3 "$root/scripts/report/figure_11b.py" "$tmp/results" "$out" 2>"$tmp/err" &&
    [ "$(field 32768 conv64_us)" = nan ] && [ "$(field 1024 conv64_us)" = nan ]; then
    plot_drawn fig11b_plot_without_fixed64_series "$root/scripts/plot/figure_11b.gp"
else
    notok fig11b_plot_without_fixed64_series "report: $(cat "$tmp/err")"
fi
