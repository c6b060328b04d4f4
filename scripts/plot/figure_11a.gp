# Figure 11a: speedup of HCL over the conventional log at its best partition
# count per transactional workload (bars, ours), the paper's values as markers.
# Columns of in (scripts/report/figure_11a.py): 1 workload, 2 scale,
# 7 hcl_speedup, 8 paper_hcl_speedup.
set terminal pngcairo size 800,520 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
do for [c in "7 8"] { eval count(c) }
set title ("Figure 11a: HCL over the conventional log (bars: ours; markers: paper)") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set ylabel "speedup of HCL"
set yrange [0:*]
set boxwidth 0.5
set xtics nomirror
set key top left
set xrange [-0.6:*]
cmd = "plot in using 0:(0):xtic(tic(stringcolumn(1), stringcolumn(2))) with points lt nodraw notitle"
if (N7_sum > 0) cmd = cmd . ", in using 0:7 with boxes lc rgb '#ee6677' title 'HCL over conventional at its best (ours)'"
if (N8_sum > 0) cmd = cmd . ", in using 0:8 with points pt 7 ps 1.6 lc rgb '#881122' title 'paper'"
eval cmd . ", 1 with lines dt 2 lc rgb 'black' notitle"
