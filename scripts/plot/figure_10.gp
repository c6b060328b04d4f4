# Figure 10: speedup over CAP-fs of GPM-NDP, GPM, GPM-eADR and CAP-eADR per
# workload (bars, ours), with the paper's values as markers where it states
# them (the paper's text states per-workload values for none; its stated
# relations are in the comment lines of the TSV).
#   gnuplot -e "in='reports/figure_10.tsv'; out='reports/figure_10.png'" figure_10.gp
# Columns of in (scripts/report/figure_10.py): 1 workload, 2 scale,
# 8-11 our speedups, 15-18 the paper's.
set terminal pngcairo size 1000,560 font ",11"
set output out
set datafile separator "\t"
set datafile missing "nan"
set key autotitle columnheader
set title "Figure 10: speedup over CAP-fs (log scale; paper states no per-workload bars)"
set ylabel "speedup over CAP-fs (log scale)"
set logscale y
set yrange [0.1:*]
set grid ytics
set style fill solid 0.8 border -1
bw = 0.18
set boxwidth bw
set xtics rotate by -30 nomirror
set key top left
set xrange [-0.6:*]
plot in using ($0 - 1.5*bw):8:xtic(stringcolumn(1)." ".stringcolumn(2)) with boxes lc rgb "#ccbb44" title "GPM-NDP", \
     ''  using ($0 - 0.5*bw):9 with boxes lc rgb "#ee6677" title "GPM", \
     ''  using ($0 + 0.5*bw):10 with boxes lc rgb "#228833" title "GPM-eADR", \
     ''  using ($0 + 1.5*bw):11 with boxes lc rgb "#4477aa" title "CAP-eADR", \
     ''  using ($0 - 1.5*bw):15 with points pt 7 ps 1.4 lc rgb "black" notitle, \
     ''  using ($0 - 0.5*bw):16 with points pt 7 ps 1.4 lc rgb "black" notitle, \
     ''  using ($0 + 0.5*bw):17 with points pt 7 ps 1.4 lc rgb "black" notitle, \
     ''  using ($0 + 1.5*bw):18 with points pt 7 ps 1.4 lc rgb "black" title "paper (where stated)", \
     1 with lines dt 2 lc rgb "black" notitle
