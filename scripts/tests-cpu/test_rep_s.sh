#!/bin/sh
# Each repetition in the row: a run of PS's CPU counterpart with --reps 5
# writes five times in rep_s, whose median, min and max are the row's
# median_s, min_s and max_s, and make compare tests two such rows on all
# five (a p, never the "three of five kept" of rows without rep_s).
set -u
bin=${GPM_BIN:?GPM_BIN not set}
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
if [ ! -x "$bin/ps" ]; then
    echo "skip - repetitions in the row: no $bin/ps"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-rep-s-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# summary FILE: the last row's reps, median_s, min_s and max_s, then the
# count, median, min and max of its rep_s (sorted by value), one line.
summary() {
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { row = $0 }
        END {
            split(row, f, "\t")
            n = split(f[c["rep_s"]], v, ",")
            for (i = 2; i <= n; i++)  # insertion sort, by value
                for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
                    t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
                }
            print f[c["reps"]], f[c["median_s"]], f[c["min_s"]], f[c["max_s"]], "|", n,
                  (n % 2 ? v[(n + 1) / 2] : "even"), v[1], v[n]
        }' "$1"
}

for side in a b; do
    mkdir -p "$tmp/$side"
    if ! "$bin/ps" --mode cpu --scale tiny --reps 5 --out "$tmp/$side/figure_9.tsv" \
        >/dev/null 2>"$tmp/err"; then
        echo "not ok - ps --mode cpu --reps 5 ($side) ran: $(head -c 400 "$tmp/err")"
        exit 0
    fi
done
got=$(summary "$tmp/a/figure_9.tsv")
# shellcheck disable=SC2086 # its words are the fields
set -- $got
if [ "$#" -eq 9 ] && [ "$1" = 5 ] && [ "$6" = 5 ]; then
    echo "ok - --reps 5 writes five times in rep_s"
else
    echo "not ok - --reps 5 writes five times in rep_s: reps, median, min, max | rep_s: $got"
fi
if [ "$#" -eq 9 ] && [ "$7" = "$2" ] && [ "$8" = "$3" ] && [ "$9" = "$4" ]; then
    echo "ok - rep_s's median, min and max are median_s, min_s and max_s"
else
    echo "not ok - rep_s's median, min and max are median_s, min_s and max_s: $got"
fi

# val OUT WORKLOAD MODE COLUMN: a value of a comparison by name.
val() {
    awk -F'\t' -v w="$2" -v m="$3" -v col="$4" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        $1 == w && $3 == m { print (col in c) ? $c[col] : "NO-COLUMN"; exit }' "$1"
}
if ! REPORTS_DIR=$tmp/rep "$root/scripts/compare.sh" "$tmp/a" "$tmp/b" >"$tmp/log" 2>&1; then
    echo "not ok - compare of two such rows: $(cat "$tmp/log")"
    exit 0
fi
out=$tmp/rep/compare/a-vs-b.tsv
p=$(val "$out" ps cpu p) reps="$(val "$out" ps cpu a_reps) $(val "$out" ps cpu b_reps)"
v=$(val "$out" ps cpu verdict)
if [ "$reps" = "5 5" ] && awk -v p="$p" 'BEGIN { exit !(p == p + 0 && p > 0 && p <= 1) }'; then
    echo "ok - compare tests the five repetitions of each row: a p ($p), verdict $v"
else
    echo "not ok - compare tests the five repetitions of each row: reps '$reps', p '$p', verdict '$v'"
fi
# Against itself: every repetition tied, p = 1, the same.
REPORTS_DIR=$tmp/rep "$root/scripts/compare.sh" "$tmp/a" "$tmp/a" >"$tmp/log" 2>&1
out=$tmp/rep/compare/a-vs-a.tsv
if [ "$(val "$out" ps cpu verdict) $(val "$out" ps cpu p)" = "same 1" ]; then
    echo "ok - a row against itself: p 1, the same"
else
    echo "not ok - a row against itself: $(val "$out" ps cpu verdict) $(val "$out" ps cpu p): $(cat "$tmp/log")"
fi
