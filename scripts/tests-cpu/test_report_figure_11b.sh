#!/bin/sh
# The Figure 11b report and plot from fixture rows (made-up numbers chosen so
# the expected values are known, see fixtures/figure_11b/README): medians
# over repeated rows, conv/hcl per thread count and its mean, only the newest
# run, the paper's value beside ours, a PNG drawn, and a clear error without
# rows.
set -u
root=${GPM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$root/scripts/tests-cpu/report-checks.sh"
build_report figure_11b fig11b_report_builds

# field THREADS COLUMN: a value of the report table by name.
field() {
    awk -F'\t' -v t="$1" -v c="$2" '
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
        $1 == t { print $(col[c]); exit }' "$out"
}
expect() { # NAME THREADS COLUMN WANT
    got=$(field "$2" "$3")
    if [ "$got" = "$4" ]; then ok "$1"; else notok "$1" "$2 $3 is '$got', want '$4'"; fi
}
expect fig11b_median_over_repeated_rows 32 hcl_us 10
expect fig11b_conv_latency 1024 conv_us 40
expect fig11b_ratio_low 32 conv_over_hcl 2
expect fig11b_ratio_high 32768 conv_over_hcl 10
expect fig11b_verified 1024 verified ok

rows=$(grep -vc '^#' "$out")
if [ "$rows" -eq 4 ] && grep -q 'git_rev fixture-new' "$out"; then
    ok fig11b_newest_run_only
else
    notok fig11b_newest_run_only "$rows lines (want header + 3) in $(head -1 "$out")"
fi

summary fig11b_summary_mean 'mean conv/hcl over 3 thread counts: 5.333x; paper 3.6x'
summary fig11b_summary_growth 'growth from 32 to 32768 threads: hcl 2x, conv 10x; paper: hcl flat'

plot_drawn fig11b_plot_png_drawn "$root/scripts/plot/figure_11b.gp"
no_rows_is_an_error fig11b_no_rows_is_an_error "$root/scripts/report/figure_11b.py" "no log-scaling rows in $tmp/empty"
