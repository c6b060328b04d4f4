#!/bin/sh
# The NVC report (scripts/report/nvc.py) from fixture rows (fixtures/nvc):
# the newest run of each workload is the one reported, how wrong the wrong
# restarts were comes from gpm-check's params (the median and largest
# share of the workload's units wrong, the largest error where there is
# one, how many said), a row from before the measure says it was not
# measured, the summary names how wrong each silently wrong one was, and
# what dropping the persists would save pairs GPM and none of one run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-nvc-report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/nvc.tsv

# field WORKLOAD OP COLUMN: that column of the report's row.
field() {
    awk -F'\t' -v w="$1" -v o="$2" -v col="$3" '
        /^#/ { next }
        !hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
        $1 == w && $2 == o { if (col in c) print $c[col]; else print "NO-COLUMN"; exit }' "$out"
}
# expect NAME WORKLOAD OP COLUMN VALUE
expect() {
    got=$(field "$2" "$3" "$4")
    if [ "$got" = "$5" ]; then echo "ok - $1"; else
        echo "not ok - $1: $2 $3 $4 is '$got', expected '$5'"; fi
}

if python3 "$root/scripts/report/nvc.py" "$here/fixtures/nvc" "$out" 2>"$tmp/err"; then
    echo "ok - the report builds"
else
    echo "not ok - the report builds: $(cat "$tmp/err")"
fi
expect "the newest PS run: the median share of its sums wrong" ps run wrong_units_median 0.1257
expect "the newest PS run: the largest share" ps run wrong_units_max 0.2542
expect "the unit the workload measures in" ps run units sums
expect "how many wrong restarts said how wrong" ps run wrong_measured 41
expect "no largest error where the output is integers" ps run wrong_max_err nan
expect "PS's sentence says how wrong its wrong restarts were" ps run summary \
    "its persists cannot be dropped: 41 of 60 restarts gave a wrong result, a median 12.6% of their sums wrong (at most 25.4%)"
expect "a floating-point output's largest error" srad run wrong_max_err 312
expect "and how it is measured" srad run wrong_err abs
expect "SRAD's sentence: the measured ones, their pixels and the largest error" srad run summary \
    "its persists cannot be dropped: 5 of 60 restarts gave a wrong result, the 4 measured a median 2% of their pixels wrong (at most 50%; the largest error 312, absolute)"
expect "a key-value workload's share of keys wrong" kvs set wrong_units_median 0.2893
expect "none wrong: nothing measured" bfs run wrong_units_median nan
expect "a row from before the measure: none measured" db update wrong_measured 0
expect "a row from before the measure says so" db update summary \
    "its persists cannot be dropped: 3 of 60 restarts gave a wrong result (how wrong was not measured)"
# roofline.tsv: a newer gpm row of other inputs, with no none row beside
# it, must not be set against the older run's none row.
expect "GPM's paper-scale time, of the run that has a none row of its inputs" kvs set gpm_paper_s 2
expect "and that none row's" kvs set none_paper_s 1.5
mkdir -p "$tmp/res" && cp "$here/fixtures/nvc/nvc.tsv" "$tmp/res/"
if RESULTS_DIR="$tmp/res" REPORTS_DIR="$tmp/rep" "$root/scripts/reports.sh" >/dev/null 2>&1 &&
    grep -q "silently wrong in some images: db(update) cpu, kvs(set) cpu (a median 28.9% of its keys wrong), ps cpu (a median 12.6% of its sums wrong), srad cpu (a median 2% of its pixels wrong)" "$tmp/rep/summary.md"; then
    echo "ok - the summary says how wrong each silently wrong workload was"
else
    echo "not ok - the summary says how wrong each silently wrong workload was: $(grep -i "silently" "$tmp/rep/summary.md" 2>/dev/null | head -c 600)"
fi
