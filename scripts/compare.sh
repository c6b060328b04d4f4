#!/bin/sh
# Two platforms' results side by side (scripts/report/compare.py): B's
# speedup over A per workload, mode and scale, with the verdict of a
# Mann-Whitney U test on their repetitions (faster, slower, same or
# ambiguous), beside the paper's ratios.
#   scripts/compare.sh A B      (make compare A=results/h100-dram B=results/h200-dram)
# A and B: results folders, or platform names (h100-dram: results/h100-dram).
# Writes reports/compare/<A>-vs-<B>.tsv (or under REPORTS_DIR) and, with
# gnuplot, its .png; git keeps only the reference platforms' comparison.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
if [ -z "${1:-}" ] || [ -z "${2:-}" ]; then
    echo "compare: name two results folders: make compare A=results/h100-dram B=results/h200-dram" >&2
    exit 2
fi
# resolve NAME WHICH: the folder NAME names (itself, or results/NAME).
resolve() {
    if [ -d "$1" ]; then
        (cd "$1" && pwd)
    elif [ -d "$root/results/$1" ]; then
        echo "$root/results/$1"
    else
        have=$(cd "$root/results" 2>/dev/null && ls -d */ 2>/dev/null | tr -d / | paste -s -d ' ')
        echo "compare: $2=$1: no such folder: name a results folder or one of the platforms: ${have:-none}" >&2
        return 1
    fi
}
a=$(resolve "$1" A) || exit 1
b=$(resolve "$2" B) || exit 1
out=${REPORTS_DIR:-$root/reports}/compare/$(basename "$a")-vs-$(basename "$b")
mkdir -p "$(dirname "$out")"
python3 "$here/report/compare.py" "$a" "$b" "$out.tsv"
echo "compare: $out.tsv"
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "compare: gnuplot not installed, $out.png not drawn"
    exit 0
fi
# The subtitle: which GPU and revision each side is.
sub=$(awk '/^# [AB]: / { side = substr($0, 3, 1); path = $3
               g = $0; sub(/.*gpu=/, "", g); sub(/,.*/, "", g)
               r = $0; sub(/.*revision: /, "", r); sub(/\).*/, "", r)
               s = s (s ? "; " : "") sprintf("%s = %s: %s, revision %s", side, path, g, r) }
           END { print s }' "$out.tsv" | tr -d "'\\\\")
# One scale: said once, in the subtitle, not on every tic label.
scale=$(awk -F'\t' '/^#/ { next } !h { h = 1; next } !($2 in s) { s[$2] = 1; n++; v = $2 }
                     END { if (n == 1) print v }' "$out.tsv")
one=0
[ -z "$scale" ] || { one=1; sub="$sub; scale $scale"; }
gnuplot -e "in='$out.tsv'; out='$out.png'; one_scale=$one; sub='$sub'" "$here/plot/compare.gp"
echo "plot: $out.png"
