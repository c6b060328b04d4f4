# Figure 1a: throughput of batched SETs, GPM against the CPU stores (bars,
# ours, million SETs a second), each CPU store labelled with GPM's lead over
# it; the paper gives only the range of that lead (2.7-5.8x), in the title.
# Columns of in (scripts/report/figure_1a.py): 1 system, 2 scale,
# 3 msets_per_s, 5 threads, 6 gpm_over_it.
set terminal pngcairo size 800,520 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
set title ("Figure 1a: batched SETs (bars: ours; paper: GPM 2.7-5.8x over CPU stores)") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set ylabel "million SETs a second (log scale)"
set logscale y
stats in using 3 nooutput prefix "Y"
set yrange [Y_min / 4 : Y_max * 4]
set boxwidth 0.5
set xtics nomirror
set xrange [-0.6:*]
set key off
# Above each CPU store's bar: GPM's lead over it and the store's thread count.
lead(c6, c5) = valid(6) ? sprintf("GPM %.2gx\n(%s threads)", column(6), strcol(5)) : ""
plot in using 0:3:xtic(tic(stringcolumn(1), stringcolumn(2))) with boxes lc rgb '#4477aa', \
     in using 0:($3 * 1.7):(lead(6, 5)) with labels font ",9" noenhanced
