# Figure 9: speedup over CAP-fs of CAP-mm, GPM and, where it ran, CAP-gds
# per workload (bars, ours), with the paper's stated CAP-mm values as markers
# and its stated GPM ranges for the workload or its class as error bars
# (column 9 states the same ranges as text, "7-8", and is not plotted).
# Columns of in (scripts/report/figure_9.py): 1 workload, 2 scale,
# 6 capmm_speedup, 7 gpm_speedup, 8 paper_capmm_speedup, 10 paper_gpm_lo,
# 11 paper_gpm_hi, 23 capgds_speedup.
set terminal pngcairo size 1000,560 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
# The paper leaves most values unstated: their series are left out. The
# tic labels ride on an invisible series of their own.
do for [c in "6 7 8 23"] { eval count(c) }
stats in using (valid(10) && valid(11) ? 1 : 0) nooutput prefix "NR"
set key autotitle columnheader
set title ("Figure 9: speedup over CAP-fs (bars: ours; markers: paper)") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set ylabel "speedup over CAP-fs (log scale)"
set logscale y
set yrange [0.1:*]
set boxwidth 0.25
set xtics rotate by -30 nomirror
# Room on the right for the last label, which leans past the plot.
set rmargin 9
set key top left
set xrange [-0.6:*]
bw = 0.25
cmd = "plot in using 0:(1):xtic(tic(stringcolumn(1), stringcolumn(2))) with points lt nodraw notitle"
if (N6_sum > 0) cmd = cmd . ", in using ($0 - bw):6 with boxes lc rgb '#4477aa' title 'CAP-mm (ours)'"
if (N7_sum > 0) cmd = cmd . ", in using ($0):7 with boxes lc rgb '#ee6677' title 'GPM (ours)'"
if (N23_sum > 0) cmd = cmd . ", in using ($0 + bw):23 with boxes lc rgb '#aa3377' title 'CAP-gds (ours)'"
if (N8_sum > 0) cmd = cmd . ", in using ($0 - bw):8 with points pt 7 ps 1.6 lc rgb '#113355' title 'CAP-mm (paper, stated)'"
if (NR_sum > 0) cmd = cmd . ", in using ($0):10:(0):($11-$10) with vectors heads size 0.05,90 lw 2 lc rgb '#881122' title 'GPM (paper, stated range)'"
eval cmd . ", 1 with lines dt 2 lc rgb 'black' notitle"
