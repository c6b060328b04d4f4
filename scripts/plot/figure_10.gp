# Figure 10: speedup over CAP-fs of GPM-NDP, GPM, GPM-eADR, CAP-eADR and,
# where it ran, CAP-gds per workload (bars, ours), with the paper's values as
# markers where it states them (its text states none per workload; its
# stated relations are in the comment lines of the TSV).
# Columns of in (scripts/report/figure_10.py): 1 workload, 2 scale,
# 8-11 our speedups, 15-18 the paper's, 22 CAP-gds's speedup.
set terminal pngcairo size 1000,560 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
# The paper states no per-workload values: their series are left out. The
# tic labels ride on an invisible series of their own.
do for [c in "8 9 10 11 15 16 17 18 22"] { eval count(c) }
paper_title = "title 'paper (where stated)'"
set key autotitle columnheader
set title ("Figure 10: speedup over CAP-fs (log scale; paper states no per-workload bars)") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set ylabel "speedup over CAP-fs (log scale)"
set logscale y
set yrange [0.1:*]
bw = 0.15
set boxwidth bw
set xtics rotate by -30 nomirror
# Room on the right for the last label, which leans past the plot.
set rmargin 9
set key top left
set xrange [-0.6:*]
cmd = "plot in using 0:(1):xtic(tic(stringcolumn(1), stringcolumn(2))) with points lt nodraw notitle"
if (N8_sum > 0) cmd = cmd . ", in using ($0 - 2*bw):8 with boxes lc rgb '#ccbb44' title 'GPM-NDP'"
if (N9_sum > 0) cmd = cmd . ", in using ($0 - bw):9 with boxes lc rgb '#ee6677' title 'GPM'"
if (N10_sum > 0) cmd = cmd . ", in using ($0):10 with boxes lc rgb '#228833' title 'GPM-eADR'"
if (N11_sum > 0) cmd = cmd . ", in using ($0 + bw):11 with boxes lc rgb '#4477aa' title 'CAP-eADR'"
if (N22_sum > 0) cmd = cmd . ", in using ($0 + 2*bw):22 with boxes lc rgb '#aa3377' title 'CAP-gds'"
# The paper's markers (column C, at X) share one key entry, on the first
# series drawn.
marker(x, c) = sprintf(", in using (%s):%d with points pt 7 ps 1.4 lc rgb 'black' ", x, c)
if (N15_sum > 0) { cmd = cmd . marker("$0 - 2*bw", 15) . paper_title; paper_title = "notitle" }
if (N16_sum > 0) { cmd = cmd . marker("$0 - bw", 16) . paper_title; paper_title = "notitle" }
if (N17_sum > 0) { cmd = cmd . marker("$0", 17) . paper_title; paper_title = "notitle" }
if (N18_sum > 0) { cmd = cmd . marker("$0 + bw", 18) . paper_title }
eval cmd . ", 1 with lines dt 2 lc rgb 'black' notitle"
