# The persistence roofline: per workload operation, on a log scale, the
# volatile baseline V, GPM's bound, and GPM, CAP-mm and CAP-fs as measured.
# Columns of in (scripts/report/roofline.py): 1 workload, 2 scale, 3 v_s,
# 4 gpm_s, 10 bound_s, 14 capmm_s, 17 capfs_s.
set terminal pngcairo size 1100,600 font ",11"
load system("dirname '" . ARG0 . "'") . "/common.gpi"
set title ("Persistence roofline: time against the physical bound") . (exists("sub") && strlen(sub) > 0 ? "\n" . sub : "") noenhanced
set ylabel "seconds (log scale)"
set logscale y
set style fill solid 0.85 border -1
bw = 0.16
set boxwidth bw
set xtics rotate by -30 nomirror
set key outside below center horizontal
set xrange [-0.6:*]
plot in using 0:3:xtic(tic(stringcolumn(1), stringcolumn(2))) with points lt nodraw notitle, \
     in using ($0 - 2*bw):3 with boxes lc rgb '#bbbbbb' title 'V (mode none)', \
     in using ($0 - bw):10 with boxes lc rgb '#222222' title "GPM's bound", \
     in using ($0):4 with boxes lc rgb '#ee6677' title 'GPM', \
     in using ($0 + bw):14 with boxes lc rgb '#4477aa' title 'CAP-mm', \
     in using ($0 + 2*bw):17 with boxes lc rgb '#228833' title 'CAP-fs'
