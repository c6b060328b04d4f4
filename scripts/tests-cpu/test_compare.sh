#!/bin/sh
# make compare: two platforms' rows (fixtures/compare: made-up, see its
# README) side by side, B's speedup over A with the verdict of the stated
# rule (a Mann-Whitney U test: each verdict, and p by hand), rows of the
# schema before rsd_pct read too, the paper's ratios
# beside both, a plot, and one-line errors for a folder that is missing,
# holds no rows, or shares none with the other.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
fix=$here/fixtures/compare
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-compare-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# val WORKLOAD MODE COLUMN: a value of the comparison by name.
val() {
    awk -F'\t' -v w="$1" -v m="$2" -v col="$3" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        $1 == w && $3 == m { print (col in c) ? $c[col] : "NO-COLUMN"; exit }' "$out"
}
check() { # NAME WORKLOAD MODE COLUMN WANT
    got=$(val "$2" "$3" "$4")
    if [ "$got" = "$5" ]; then echo "ok - $1"; else echo "not ok - $1: $2 $3 $4 is '$got', want '$5'"; fi
}
has() {
    if grep -q -- "$3" "$2"; then echo "ok - $1"; else echo "not ok - $1: no '$3' in $2"; fi
}

REPORTS_DIR=$tmp/rep "$root/scripts/compare.sh" "$fix/a" "$fix/b" >"$tmp/log" 2>"$tmp/err"
rc=$?
out=$tmp/rep/compare/a-vs-b.tsv
if [ "$rc" -eq 0 ] && [ -s "$out" ] && [ ! -s "$tmp/err" ]; then
    echo "ok - compare writes reports/compare/A-vs-B.tsv and says nothing on stderr"
else
    echo "not ok - compare: exit $rc: $(cat "$tmp/log" "$tmp/err")"
    exit 1
fi
check "faster: p < 0.05, every B repetition below every A one" ps cap-fs verdict faster
check "5 against 5 apart: exact two-sided p = 2/252" ps cap-fs p 0.007937
check "B's speedup over A: A's median over B's" ps cap-fs b_speedup 2
check "same: p >= 0.05 and the medians within 5%" ps gpm verdict same
check "slower: p < 0.05, every B repetition above every A one" blk gpm verdict slower
check "B's speedup below 1 where it is slower" blk gpm b_speedup 0.5
check "ambiguous: one repetition on a side" blk cap-fs verdict ambiguous
check "ambiguous: medians 10% apart, not significant" cfd cpu verdict ambiguous
check "ambiguous: 3 against 3, however far apart" dnn cpu verdict ambiguous
check "3 against 3 apart: p = 2/20, the smallest there is" dnn cpu p 0.1
check "ambiguous: 5 repetitions of which the row keeps 3" ps gpm-ndp verdict ambiguous
check "no p where the repetitions are not kept" ps gpm-ndp p nan
check "rows written before rsd_pct: their spread is unknown (nan)" ps gpm-ndp b_rsd_pct nan
check "the spread of rows with rsd_pct carried" ps gpm b_rsd_pct 12
check "a spread above 5% flagged" ps gpm noisy "B 12.0%"
check "each platform's speedup over its CAP-fs (A)" blk gpm a_over_capfs 20
check "each platform's speedup over its CAP-fs (B)" blk gpm b_over_capfs 10
check "the paper's stated range beside both" blk gpm paper_over_capfs 11-18
check "the paper's range as numbers for the plot" ps gpm paper_hi 85
if grep -v '^#' "$out" | grep -q -e '^hs	' -e '^srad	'; then
    echo "not ok - a workload of one platform, or of other inputs, was compared: $(grep -v '^#' "$out")"
else
    echo "ok - only workloads, modes and scales of both platforms, run with the same inputs"
fi
has "rows of other inputs named, with their inputs" "$out" \
    "^# not compared: srad small, run with other inputs (A: rows=64; B: rows=128)"
has "the rule stated in the output" "$out" \
    "^# verdict: a two-sided Mann-Whitney U test (alpha 0.05) on the repetitions"
has "the rule stated in the script's header" "$root/scripts/report/compare.py" \
    "The verdict's rule: a two-sided Mann-Whitney U test"
# Beyond 20 a side the normal approximation: 25 against 25 apart gives
# z = (312.5 - 0.5) / sqrt(25 * 25 * 51 / 12) = 6.054, p = erfc(z / sqrt 2).
got=$(cd "$root/scripts/report" && python3 -c 'import compare as C
print("%.3g" % C.mann_whitney(list(range(25)), list(range(25, 50)))[0])')
if [ "$got" = 1.42e-09 ]; then echo "ok - 25 against 25: the normal approximation's p"; else echo "not ok - 25 against 25: p $got, want 1.42e-09"; fi
has "the verdicts counted" "$out" "faster 1, slower 1, same 1, ambiguous 4"
has "each side's platform named" "$out" "^# B: .*gpu=FIXTURE GPU B (not measured)"
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "skip - compare plot: gnuplot not installed"
elif [ "$(head -c 4 "$tmp/rep/compare/a-vs-b.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ]; then
    echo "ok - compare plot drawn"
else
    echo "not ok - compare plot missing: $(cat "$tmp/log")"
fi

# Errors: one line each, naming the folder and the fix, and no report.
expect_error() { # NAME PATTERN A B
    REPORTS_DIR=$tmp/err-rep "$root/scripts/compare.sh" "$3" "$4" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q -- "$2" "$tmp/out" &&
        [ -z "$(find "$tmp/err-rep" -name '*.tsv' 2>/dev/null)" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: exit $rc: $(cat "$tmp/out")"
    fi
}
mkdir -p "$tmp/empty" "$tmp/other"
cp "$fix/a/figure_10.tsv" "$tmp/other/figure_9.tsv"
sed -i 's/	ps	run	gpm-ndp	small	/	ps	run	gpm-ndp	tiny	/' "$tmp/other/figure_9.tsv"
expect_error "a missing folder is one line naming it" "compare: B=$tmp/nosuch: no such folder" \
    "$fix/a" "$tmp/nosuch"
expect_error "a folder without rows is one line naming it" \
    "compare: A=.*empty has no verified run rows in figure_9.tsv, figure_10.tsv, figure_1b.tsv" \
    "$tmp/empty" "$fix/b"
expect_error "no rows in common is one line naming what each has" \
    "compare: A and B have no workload, mode and scale run with the same inputs in common (A: ps tiny; B: blk small, cfd small, dnn small, ps small, srad small)" \
    "$tmp/other" "$fix/b"
expect_error "two folders are needed" "compare: name two results folders" "$fix/a" ""

# make compare: A and B from the command line; B names results, not the
# build folder, so nothing is made in it.
if [ -f "$root/Makefile" ]; then
    cp -r "$fix/b" "$tmp/bcopy"
    REPORTS_DIR=$tmp/mk make -s -C "$root" compare A="$fix/a" B="$tmp/bcopy" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && [ -s "$tmp/mk/compare/a-vs-bcopy.tsv" ] && [ ! -e "$tmp/bcopy/git-rev" ]; then
        echo "ok - make compare A=... B=... compares, and makes nothing in B"
    else
        echo "not ok - make compare: exit $rc, B holds: $(ls "$tmp/bcopy"): $(cat "$tmp/out")"
    fi
    make -s -C "$root" compare A="$fix/a" >"$tmp/out" 2>&1
    if [ $? -ne 0 ] && grep -q "^compare: name two results folders" "$tmp/out"; then
        echo "ok - make compare without B names the fix (the build folder is no B)"
    else
        echo "not ok - make compare without B: $(cat "$tmp/out")"
    fi
else
    echo "skip - make compare: no Makefile (a bundle)"
fi
