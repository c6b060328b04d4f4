#!/bin/sh
# The Figure 3 report and plot from fixture rows (made-up numbers chosen so
# the expected values are known, see fixtures/figure_3/README): medians over
# repeated rows, speedups over 1-thread CAP-mm, only the newest run, the
# summary beside the paper, a PNG drawn, and a clear error without rows.
set -u
root=${GPM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$root/scripts/tests-cpu/report-checks.sh"
build_report figure_3 report_builds

# field SERIES THREADS COLUMN: a value of the report table by name.
field() {
    awk -F'\t' -v s="$1" -v t="$2" -v c="$3" '
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
        $1 == s && $2 == t { print $(col[c]); exit }' "$out"
}
expect() { # NAME SERIES THREADS COLUMN WANT
    got=$(field "$2" "$3" "$4")
    if [ "$got" = "$5" ]; then ok "$1"; else notok "$1" "$2/$3 $4 is '$got', want '$5'"; fi
}
expect median_over_repeated_rows cap-mm 1 median_s 1
expect repeated_rows_counted cap-mm 1 rows 3
expect base_throughput cap-mm 1 gbps 1
expect cap_speedup cap-mm 8 speedup_vs_cap_mm_1 1.471
expect gpm_speedup gpm 2048 speedup_vs_cap_mm_1 4
expect gpm_low_speedup gpm 32 speedup_vs_cap_mm_1 0.125
expect ceiling_speedup gpm-nopersist 2048 speedup_vs_cap_mm_1 4.167
expect spread_unknown_for_rows_before_rsd_pct cap-mm 1 noisy unknown
# The paper's numbers are not points of the table: no row of nan beside ours.
if grep -v '^#' "$out" | grep -q -e '^paper' -e '	nan	'; then
    notok table_holds_measured_points_only "$(grep -v '^#' "$out" | grep -e '^paper' -e '	nan	')"
else
    ok table_holds_measured_points_only
fi

# The older run (2 s for 1-thread CAP-mm, 0.1 s for GPM) must not be mixed in.
if grep -q 'git_rev fixture-new' "$out" && [ "$(field gpm 2048 rows)" = 1 ]; then
    ok newest_run_only
else
    notok newest_run_only "older rows leaked into $(head -1 "$out")"
fi

summary summary_cap_plateau 'CAP-mm plateau (best/1-thread): 1.471x at 8 CPU threads; paper 1.47x'
summary summary_gpm_best 'GPM best over 1-thread CAP-mm: 4x at 2048 GPU threads; paper 4x'
summary summary_gpm_over_cap 'GPM best over best CAP-mm: 2.72x'
summary summary_ceiling_share 'ceiling at 2048 GPU threads: 4 GB/s / 4.167 GB/s = 0.960 (criterion >= 0.90: met)'

plot_drawn plot_png_drawn "$root/scripts/plot/figure_3.gp"
# With the paper's file, its two numbers are drawn as lines, and gnuplot
# says nothing.
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -e "in='$out'; out='$tmp/paper.png'; paper='$root/reports/paper/figure_3.tsv'" \
        "$root/scripts/plot/figure_3.gp" 2>"$tmp/err"
    if [ -s "$tmp/paper.png" ] && [ ! -s "$tmp/err" ] &&
        ! cmp -s "$tmp/paper.png" "$tmp/plot_png_drawn.png"; then
        ok plot_draws_the_papers_numbers_from_its_file
    else
        notok plot_draws_the_papers_numbers_from_its_file "$(cat "$tmp/err")"
    fi
    # A report whose speedups are all nan (no 1-thread CAP-mm row) still
    # draws the paper's lines: stats defines nothing over it.
    grep '^#' "$out" >"$tmp/nan.tsv"
    grep -v '^#' "$out" | awk -F'\t' 'BEGIN { OFS = "\t" } NR > 1 { $5 = "nan" } 1' >>"$tmp/nan.tsv"
    gnuplot -e "in='$tmp/nan.tsv'; out='$tmp/nan.png'; paper='$root/reports/paper/figure_3.tsv'" \
        "$root/scripts/plot/figure_3.gp" 2>"$tmp/err"
    if [ -s "$tmp/nan.png" ] && ! grep -q "undefined variable" "$tmp/err"; then
        ok plot_of_nan_speedups_draws_the_papers_lines
    else
        notok plot_of_nan_speedups_draws_the_papers_lines "$(cat "$tmp/err")"
    fi
else
    echo "skip - plot_draws_the_papers_numbers_from_its_file: gnuplot not installed"
fi
no_rows_is_an_error no_rows_is_an_error "$root/scripts/report/figure_3.py" "no persist-scaling rows in $tmp/empty"
