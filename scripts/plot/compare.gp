# Two platforms compared (scripts/report/compare.py): (a) B's speedup over A
# per workload and mode, coloured by the verdict of the rule in the TSV
# (faster, slower, same, ambiguous); (b) each platform's speedup over its
# CAP-fs, with the paper's stated range where it has one.
#   gnuplot -e "in='reports/compare/A-vs-B.tsv'; out='reports/compare/A-vs-B.png'" compare.gp
# Columns of in: 1 workload, 2 scale, 3 mode, 12 b_speedup, 13 verdict,
# 14 a_over_capfs, 15 b_over_capfs, 17 paper_lo, 18 paper_hi.
set terminal pngcairo size 1100,900 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
colour(v) = v eq "faster" ? 0x228833 : v eq "slower" ? 0xee6677 : v eq "same" ? 0x999999 : 0xdddddd
do for [c in "12 14 15"] { eval count(c) }
stats in using (valid(17) && valid(18) ? 1 : 0) nooutput prefix "NR"
set multiplot layout 2,1 title ("B against A") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set logscale y
set xtics rotate by -30 nomirror noenhanced
set xrange [-0.6:*]
set rmargin 9
set key top left

set title "(a) B's speedup over A (A's median / B's): above 1, B is faster"
set ylabel "B over A (log scale)"
# Bars from 1 to the ratio, up or down, in a range that holds both sides.
stats in using (valid(12) ? $12 : 1) nooutput prefix "S"
lo = S_min < 1 ? S_min : 1
hi = S_max > 1 ? S_max : 1
set yrange [lo / 1.5 : hi * 1.5]
# A narrow log range has one decade tic at most: more, labelled.
set ytics add ("0.5" 0.5, "0.67" 0.67, "0.8" 0.8, "0.9" 0.9, "1.1" 1.1, "1.25" 1.25, "1.5" 1.5, "2" 2)
cmd = "plot in using 0:(1):xtic(tic(stringcolumn(1) . ' ' . stringcolumn(3), stringcolumn(2))) with points lt nodraw notitle"
if (N12_sum > 0) cmd = cmd . ", in using 0:12:($0 - 0.3):($0 + 0.3):(1):12:(colour(strcol(13))) with boxxyerror lc rgb variable notitle"
# The verdicts' key: one empty series each.
cmd = cmd . ", NaN with boxes lc rgb '#228833' title 'B faster', NaN with boxes lc rgb '#ee6677' title 'B slower'"
cmd = cmd . ", NaN with boxes lc rgb '#999999' title 'the same', NaN with boxes lc rgb '#dddddd' title 'ambiguous'"
eval cmd . ", 1 with lines dt 2 lc rgb 'black' notitle"

set title "(b) speedup over CAP-fs on each platform, and the paper's stated range"
set autoscale y
unset ytics
set ytics
set ylabel "over CAP-fs (log scale)"
bw = 0.3
set boxwidth bw
cmd = "plot in using 0:(1):xtic(tic(stringcolumn(1) . ' ' . stringcolumn(3), stringcolumn(2))) with points lt nodraw notitle"
if (N14_sum > 0) cmd = cmd . ", in using ($0 - bw/2):14 with boxes lc rgb '#4477aa' title 'A'"
if (N15_sum > 0) cmd = cmd . ", in using ($0 + bw/2):15 with boxes lc rgb '#ccbb44' title 'B'"
if (NR_sum > 0) cmd = cmd . ", in using 0:17:(0):($18-$17) with vectors heads size 0.05,90 lw 2 lc rgb '#881122' title 'paper, stated range'"
eval cmd . ", 1 with lines dt 2 lc rgb 'black' notitle"
unset multiplot
