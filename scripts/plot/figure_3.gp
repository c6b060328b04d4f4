# Paper Figure 3: persistence scaling. (a) CAP-mm speedup against CPU flush
# threads, (b) GPM (a persist after every 8-byte store) and the same writes
# unpersisted (the ceiling) against GPU threads; speedups are over
# single-threaded CAP-mm, the paper's numbers are the dashed lines.
#   gnuplot -e "in='reports/figure_3.tsv'; out='reports/figure_3.png'" figure_3.gp
if (!exists("in")) in = 'reports/figure_3.tsv'
if (!exists("out")) out = 'reports/figure_3.png'

set terminal pngcairo size 1200,480 font ",10"
set output out
set datafile separator "\t"
set datafile columnheaders
set datafile missing "nan"

# The paper's two numbers travel in rows of series paper-* (column 5).
stats in using (strcol(1) eq "paper-cap-mm-plateau" ? $5 : NaN) nooutput prefix "PP"
paper_plateau = PP_max
stats in using (strcol(1) eq "paper-gpm-best" ? $5 : NaN) nooutput prefix "PG"
paper_gpm = PG_max
stats in using (strcol(1) eq "gpm-nopersist" ? $5 : (strcol(1) eq "gpm" ? $5 : NaN)) nooutput prefix "GG"
stats in using (strcol(1) eq "cap-mm" ? $5 : NaN) nooutput prefix "CC"

is(s) = (strcol(1) eq s)
set grid ytics lc rgb "#dddddd"
set key bottom right
set ylabel "speedup over 1-thread CAP-mm"
set logscale x 2
set multiplot layout 1,2 title "Persistence scaling (Figure 3): 8-byte writes persisted to PM"

set title "(a) CAP-mm: cudaMemcpy + CPU threads flushing"
set xlabel "CPU threads"
set yrange [0:(CC_max > paper_plateau ? CC_max : paper_plateau) * 1.3]
set format x "%g"
plot in using (is("cap-mm") ? $2 : NaN):5 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "CAP-mm (measured)", \
     paper_plateau with lines dt 2 lw 2 lc rgb "#7f7f7f" title sprintf("paper plateau %.2fx", paper_plateau)

set title "(b) GPM: GPU threads, persist after every store"
set xlabel "GPU threads"
set yrange [0:(GG_max > paper_gpm ? GG_max : paper_gpm) * 1.15]
set format x "2^{%L}"
plot in using (is("gpm") ? $2 : NaN):5 with linespoints lw 2 pt 7 lc rgb "#d62728" title "GPM (measured)", \
     in using (is("gpm-nopersist") ? $2 : NaN):5 with linespoints lw 2 pt 6 dt 3 lc rgb "#2ca02c" title "no persist: link ceiling (measured)", \
     CC_max with lines dt 4 lw 1 lc rgb "#1f77b4" title sprintf("CAP-mm best (measured) %.2fx", CC_max), \
     paper_gpm with lines dt 2 lw 2 lc rgb "#7f7f7f" title sprintf("paper GPM best %.0fx", paper_gpm)

unset multiplot
