# YCSB on GPHash and gpKVS: left, Mops of each core workload on GPHash in
# gpm (lookups from its mirror in GPU memory, or from PM through BktCache;
# 8-byte keys and values), none, cap-delta and the CPU counterpart, and on
# gpKVS in gpm, cap-delta and on the CPU, beside libpmemobj and RocksDB (log
# scale); right, GPHash's and gpKVS's gpm throughput against its batches'
# p99 latency over batch sizes (GPHash's Figures 5-6).
# Columns of in (scripts/report/figure_ycsb.py): 1 kind, 2 ycsb, 3 x,
# 4 scale, 5 variant, 6 batch, 7 mops, 10 batch_p99_us, 14 plotted (the
# rows of one scale). Column 3 places each workload (figure_ycsb.py's
# order, which the tics below name).
set terminal pngcairo size 1300,620 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
set multiplot layout 1,2 title ("YCSB on GPHash and gpKVS") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
# A variant, or (rows from before the mirror) its "-pm" twin: gpm-k8, gpm-pm-k8.
mix(v, off) = (strcol(1) eq "mix" && strcol(5) eq v && $14 == 1) ? $3 + off : NaN
mix2(v, w, off) = (strcol(1) eq "mix" && (strcol(5) eq v || strcol(5) eq w) && $14 == 1) ? $3 + off : NaN
set title "throughput by workload (batches of the default size)"
set ylabel "Mops (log scale)"
set logscale y
set boxwidth 0.072
stats in using ($14 == 1 ? $3 : NaN) nooutput prefix "X"
set xrange [-0.6:X_max + 0.6]
set xtics ("load" 0, "a" 1, "b" 2, "c" 3, "d" 4, "f" 5, "search" 6, "search-miss" 7, "insert" 8, "update" 9, "delete" 10)
set key outside below horizontal maxrows 4 font ",9"
# A panel without rows of its kind is a note: gnuplot would stop on it.
stats in using (strcol(1) eq "mix" && $14 == 1 ? 1 : 0) nooutput prefix "MX"
stats in using (strcol(1) eq "sweep" && $14 == 1 ? 1 : 0) nooutput prefix "SW"
if (MX_sum == 0) { eval plot_or_note("", 'no workload at the default batch in the report', '[0:1] [1:2]') } else {
plot in using (mix("gpm", -0.36)):7 with boxes lc rgb '#ee6677' title 'GPHash gpm (mirror)', \
     in using (mix("gpm-pm", -0.288)):7 with boxes lc rgb '#aa3377' title 'GPHash gpm, lookups from PM (BktCache)', \
     in using (mix2("gpm-k8", "gpm-pm-k8", -0.216)):7 with boxes lc rgb '#cc99bb' title 'GPHash gpm, 8-byte keys, values', \
     in using (mix("none", -0.144)):7 with boxes lc rgb '#bbbbbb' title 'GPHash none', \
     in using (mix("cap-delta", -0.072)):7 with boxes lc rgb '#ee7733' title 'GPHash cap-delta', \
     in using (mix("cpu", 0)):7 with boxes lc rgb '#4477aa' title 'GPHash CPU counterpart', \
     in using (mix("kvs-gpm", 0.072)):7 with boxes lc rgb '#228833' title 'gpKVS gpm', \
     in using (mix("kvs-cap-delta", 0.144)):7 with boxes lc rgb '#66ccee' title 'gpKVS cap-delta', \
     in using (mix("kvs-cpu", 0.216)):7 with boxes lc rgb '#ccbb44' title 'gpKVS-CPU', \
     in using (mix("pmemobj", 0.288)):7 with boxes lc rgb '#994455' title 'libpmemobj', \
     in using (mix("rocksdb", 0.36)):7 with boxes lc rgb '#222255' title 'RocksDB'
}
unset logscale y
set title "gpm over batch sizes (sweep)"
set xlabel "batch p99 latency (us, log scale)"
set ylabel "Mops"
set logscale x
set autoscale x
set xtics autofreq
# GPHash's sweep is of gpm, or where a workload has only rows from before
# the mirror, of gpm-pm (the report gives one of the two).
sweep(y, v) = (strcol(1) eq "sweep" && strcol(2) eq y && (strcol(5) eq v || strcol(5) eq v . "-pm") && $14 == 1) ? $10 : NaN
if (SW_sum == 0) { eval plot_or_note("", 'no batch-size sweep in the report', '[1:2] [0:1]') } else {
plot for [y in "load a b c d f"] in using (sweep(y, "gpm")):7 with linespoints pt 7 title ("GPHash, YCSB " . y), \
     for [y in "load a b c d f"] in using (sweep(y, "kvs-gpm")):7 with linespoints pt 6 dt 2 title ("gpKVS, YCSB " . y)
}
unset multiplot
