# Figure 12: write bandwidth to PM under GPM per workload (bars), the GPU's
# PCIe transmit throughput sampled during the run (points: bytes on the
# link, headers likely included, so it can stand above both others), and
# the write ceiling measured by Figure 3 (line: bytes written, as the bars).
# Columns of in (scripts/report/figure_12.py): 1 workload, 2 scale,
# 5 pm_write_gbps, 6 pcie_tx_gbps, 9 write_ceiling_gbps.
set terminal pngcairo size 1000,560 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
do for [c in "5 6"] { eval count(c) }
stats in using (valid(9) ? column(9) : 0) nooutput prefix "C"
set title ("Figure 12: write bandwidth to PM under GPM") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set ylabel "GB/s"
set yrange [0:*]
set boxwidth 0.5
set xtics rotate by -30 nomirror
# Room on the right for the last label, which leans past the plot.
set rmargin 9
# Below the plot: the points of any workload can reach its top.
set key below horizontal
set xrange [-0.6:*]
cmd = "plot in using 0:(0):xtic(tic(stringcolumn(1), stringcolumn(2))) with points lt nodraw notitle"
if (N5_sum > 0) cmd = cmd . ", in using 0:5 with boxes lc rgb '#ee6677' title 'bytes persisted / operation time'"
if (N6_sum > 0) cmd = cmd . ", in using 0:6 with points pt 7 ps 1.6 lc rgb '#4477aa' title 'PCIe transmit, bytes on the link (NVML)'"
if (C_max > 0) cmd = cmd . sprintf(", %g with lines dt 2 lw 2 lc rgb 'black' title 'write ceiling, unpersisted (Figure 3)'", C_max)
eval cmd
