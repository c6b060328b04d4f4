# Paper Figure 3: persistence scaling. (a) CAP-mm speedup against CPU flush
# threads, (b) GPM (a persist after every 8-byte store) and the same writes
# unpersisted (the ceiling) against GPU threads; speedups are over
# single-threaded CAP-mm, the paper's numbers (from paper, the file
# reports/paper/figure_3.tsv, where given) are the dashed lines.
#   gnuplot -e "in='reports/P/figure_3.tsv'; out='reports/P/figure_3.png'; paper='reports/paper/figure_3.tsv'" figure_3.gp
if (!exists("in")) in = 'reports/local/figure_3.tsv'
if (!exists("out")) out = 'reports/local/figure_3.png'

set terminal pngcairo size 1200,480 font ",10"
load system("dirname '" . ARG0 . "'") . "/common.gpi"

is(s) = (strcol(1) eq s)
# Per series: how many rows have a speedup (column 5), and the largest
# (a series without one is left out: gnuplot would warn, or stop).
stats in using (is("cap-mm") && valid(5) ? 1 : 0) nooutput prefix "NC"
stats in using (is("cap-mm") && valid(5) ? $5 : 0) nooutput prefix "CC"
stats in using (is("gpm") && valid(5) ? 1 : 0) nooutput prefix "NG"
stats in using (is("gpm-nopersist") && valid(5) ? 1 : 0) nooutput prefix "NN"
stats in using ((is("gpm") || is("gpm-nopersist")) && valid(5) ? $5 : 0) nooutput prefix "GG"
# Where no row has a number (a report of nan speedups) stats defines nothing.
do for [v in "NC_sum CC_max NG_sum NN_sum GG_max"] { if (!exists(v)) { eval v . " = 0" } }
# The paper's two numbers, by their metric's name, where the file is given.
paper_plateau = 0
paper_gpm = 0
if (exists("paper") && strlen(paper) > 0) {
    stats paper using (strcol(1) eq "cap_mm_plateau" ? $2 : 0) nooutput prefix "PP"
    stats paper using (strcol(1) eq "gpm_best_over_cap_mm_1" ? $2 : 0) nooutput prefix "PG"
    paper_plateau = PP_max
    paper_gpm = PG_max
}

set grid ytics lc rgb "#dddddd"
set key bottom right
set ylabel "speedup over 1-thread CAP-mm"
set logscale x 2
set multiplot layout 1,2 title ("Persistence scaling (Figure 3): 8-byte writes persisted to PM") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced

set title "(a) CAP-mm: cudaMemcpy + CPU threads flushing"
set xlabel "CPU threads"
top = CC_max > paper_plateau ? CC_max : paper_plateau
set yrange [0:(top > 0 ? top : 1) * 1.3]
set format x "%g"
cmd = ""
if (NC_sum > 0) cmd = cmd . ", in using (is('cap-mm') ? $2 : NaN):5 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'CAP-mm (measured)'"
if (paper_plateau > 0) cmd = cmd . sprintf(", %g with lines dt 2 lw 2 lc rgb '#7f7f7f' title 'paper plateau %.2fx'", paper_plateau, paper_plateau)
eval plot_or_note(cmd, 'no measured speedup in the report', '[1:2] [0:1]')

set title "(b) GPM: GPU threads, persist after every store"
set xlabel "GPU threads"
top = GG_max > paper_gpm ? GG_max : paper_gpm
set yrange [0:(top > 0 ? top : 1) * 1.15]
set format x "2^{%L}"
cmd = ""
if (NG_sum > 0) cmd = cmd . ", in using (is('gpm') ? $2 : NaN):5 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'GPM (measured)'"
if (NN_sum > 0) cmd = cmd . ", in using (is('gpm-nopersist') ? $2 : NaN):5 with linespoints lw 2 pt 6 dt 3 lc rgb '#2ca02c' title 'no persist: write ceiling (measured)'"
if (NC_sum > 0) cmd = cmd . sprintf(", %g with lines dt 4 lw 1 lc rgb '#1f77b4' title 'CAP-mm best (measured) %.2fx'", CC_max, CC_max)
if (paper_gpm > 0) cmd = cmd . sprintf(", %g with lines dt 2 lw 2 lc rgb '#7f7f7f' title 'paper GPM best %.0fx'", paper_gpm, paper_gpm)
eval plot_or_note(cmd, 'no measured speedup in the report', '[1:2] [0:1]')

unset multiplot
