# Figure 1b: speedup of GPM over each workload's CPU counterpart (bars,
# ours), with the paper's stated range over BFS, SRAD and PS as error bars.
# Columns of in (scripts/report/figure_1b.py): 1 workload, 2 scale,
# 5 gpm_over_cpu, 7 paper_lo, 8 paper_hi.
set terminal pngcairo size 800,520 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
eval count("5")
stats in using (valid(7) && valid(8) ? 1 : 0) nooutput prefix "NR"
set title ("Figure 1b: GPM over the CPU counterpart (bars: ours; range: paper)") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set ylabel "speedup over CPU with PM (log scale)"
set logscale y
set yrange [0.1:*]
set boxwidth 0.5
set xtics nomirror
set key top left
set xrange [-0.6:*]
cmd = "plot in using 0:(1):xtic(tic(stringcolumn(1), stringcolumn(2))) with points lt nodraw notitle"
if (N5_sum > 0) cmd = cmd . ", in using 0:5 with boxes lc rgb '#ee6677' title 'GPM over CPU (ours)'"
if (NR_sum > 0) cmd = cmd . ", in using 0:7:(0):($8-$7) with vectors heads size 0.05,90 lw 2 lc rgb '#881122' title 'paper, stated range'"
eval cmd . ", 1 with lines dt 2 lc rgb 'black' notitle"
