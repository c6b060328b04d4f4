# Paper Figure 11b: undo-log insert latency against concurrent logging
# threads, HCL against conventional partitioned logging (measured), with the
# paper's mean ratio in the title.
#   gnuplot -e "in='reports/figure_11b.tsv'; out='reports/figure_11b.png'" figure_11b.gp
if (!exists("in")) in = 'reports/figure_11b.tsv'
if (!exists("out")) out = 'reports/figure_11b.png'

set terminal pngcairo size 800,500 font ",10"
set output out
set datafile separator "\t"
set datafile columnheaders
set datafile missing "nan"

stats in using 4 nooutput prefix "R"
set title sprintf("Undo logging latency (Figure 11b): conv/HCL mean %.2fx measured, 3.6x in the paper", R_mean)
set grid ytics lc rgb "#dddddd"
set key top left
set logscale x 2
set logscale y 10
set format x "2^{%L}"
set xlabel "concurrent logging threads"
set ylabel "latency of one insert kernel (us)"
plot in using 1:2 with linespoints lw 2 pt 7 lc rgb "#d62728" title "HCL (measured)", \
     in using 1:3 with linespoints lw 2 pt 5 lc rgb "#1f77b4" title "conventional (measured)"
