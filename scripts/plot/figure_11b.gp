# Paper Figure 11b: undo-log insert latency against concurrent logging
# threads, HCL against conventional partitioned logging at its best partition
# count per thread count (labelled with that count) and at the fixed 64
# partitions used before the sweep, with the paper's mean ratio in the title.
# Columns of in (scripts/report/figure_11b.py): 1 threads, 2 hcl_us,
# 3 conv_best_us, 4 conv_best_partitions, 5 conv_best_over_hcl, 6 conv64_us.
if (!exists("in")) in = 'reports/local/figure_11b.tsv'
if (!exists("out")) out = 'reports/local/figure_11b.png'

set terminal pngcairo size 800,500 font ",10"
load system("dirname '" . ARG0 . "'") . "/common.gpi"

do for [c in "2 3 5 6"] { eval count(c) }
stats in using (valid(5) ? $5 : 0) nooutput prefix "R"
mean = N5_sum > 0 ? R_sum / N5_sum : NaN
set title (sprintf("Undo logging latency (Figure 11b): conv(best partitions)/HCL mean %.2fx measured, 3.6x in the paper", mean)) . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set grid ytics lc rgb "#dddddd"
set key top left Left reverse
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set logscale x 2
set logscale y 10
set format x "2^{%L}"
set xlabel "concurrent logging threads"
set ylabel "latency of one insert kernel (us)"
cmd = ""
if (N2_sum > 0) cmd = cmd . ", in using 1:2 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'HCL (measured)'"
if (N3_sum > 0) cmd = cmd . ", in using 1:3 with linespoints lw 2 pt 5 lc rgb '#1f77b4' title 'conventional, best partition count (measured; labels: count)'" . \
                            ", in using 1:3:4 with labels offset 0,1 font ',8' tc rgb '#1f77b4' notitle"
if (N6_sum > 0) cmd = cmd . ", in using 1:6 with linespoints lw 1 dt 2 pt 4 lc rgb '#7f7f7f' title 'conventional, 64 partitions (measured)'"
eval plot_or_note(cmd, 'no measured latency in the report', '[1:2] [1:10]')
