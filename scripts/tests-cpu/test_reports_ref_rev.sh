#!/bin/sh
# make reports calls a folder a reference only where its rows are one
# revision's: rows of two (fixtures/timing: rev-a's Figure 9 on 2026-01-01,
# rev-b's on 2026-01-02) are refused in one line, REF_REV=rev-a reports
# rev-a's rows alone under a first line naming it and its day, and
# REF_REV=any reports them as a history that names every revision held.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-ref-rev-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
res=$tmp/two-revs
cp -r "$here/fixtures/timing" "$res"

# reports REF_REV NAME: reports.sh on the two revisions' rows into $tmp/NAME.
reports() {
    REF_REV=$1 RESULTS_DIR=$res REPORTS_DIR=$tmp/$2 "$root/scripts/reports.sh" >"$tmp/$2.log" 2>&1
}
has() { # NAME FILE PATTERN
    if grep -q -- "$3" "$2" 2>/dev/null; then echo "ok - $1"; else echo "not ok - $1: no '$3' in $2: $(head -c 300 "$2" 2>&1)"; fi
}

reports "" none
rc=$?
if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/none.log")" -eq 1 ] && [ ! -e "$tmp/none/summary.md" ]; then
    echo "ok - rows of two revisions are refused in one line, exit $rc, no summary"
else
    echo "not ok - rows of two revisions: exit $rc: $(cat "$tmp/none.log")"
fi
has "the refusal names the revisions and both ways on" "$tmp/none.log" \
    "two-revs: rows from 2 revisions (rev-a rev-b): not one revision's reference; pass REF_REV=<rev> to report that revision's rows alone, or REF_REV=any to report them all as a history$"

reports rev-a a
first=$(head -n 1 "$tmp/a/summary.md" 2>/dev/null)
if [ "$first" = "# Reference of revision rev-a (2026-01-01), two-revs" ]; then
    echo "ok - REF_REV=rev-a: summary's first line names the revision, its day and the folder"
else
    echo "not ok - REF_REV=rev-a: summary's first line '$first': $(tail -n 3 "$tmp/a.log")"
fi
has "Figure 9 of rev-a's rows alone" "$tmp/a/figure_9.tsv" "^# revision: rev-a$"
if grep -q rev-b "$tmp/a/figure_9.tsv" "$tmp/a/timing.tsv" "$tmp/a/summary.md"; then
    echo "not ok - rev-b's rows in rev-a's reports: $(grep -l rev-b "$tmp/a"/*)"
else
    echo "ok - no row of rev-b in rev-a's reports, its wall time included"
fi

if reports any any; then echo "ok - REF_REV=any reports"; else echo "not ok - REF_REV=any: $(cat "$tmp/any.log")"; fi
has "REF_REV=any: the summary is a history" "$tmp/any/summary.md" "^# History of .*, two-revs$"
# Figure 9 shows rev-b's newer rows alone: the summary still names every
# revision the folder holds.
has "REF_REV=any: the summary names the folder's revisions, those not shown too" \
    "$tmp/any/summary.md" "^The results folder holds rows of 2 revisions: rev-a, rev-b; the reports show the newest rows of each experiment, from the 1 above"

reports nosuch nosuch
rc=$?
if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/nosuch.log")" -eq 1 ]; then
    has "a REF_REV of no rows is one line naming the revisions there" "$tmp/nosuch.log" \
        "two-revs: no rows of revision nosuch: name one of rev-a rev-b$"
else
    echo "not ok - REF_REV=nosuch: exit $rc: $(cat "$tmp/nosuch.log")"
fi

# One revision's folder needs no REF_REV.
mkdir -p "$tmp/one"
awk -F'\t' 'NR == 1 || $15 == "rev-b"' "$res/figure_9.tsv" >"$tmp/one/figure_9.tsv"
if RESULTS_DIR=$tmp/one REPORTS_DIR=$tmp/one-rep "$root/scripts/reports.sh" >"$tmp/one.log" 2>&1; then
    has "one revision's rows need no REF_REV" "$tmp/one-rep/summary.md" \
        "^# Reference of revision rev-b (date unknown), one$"
else
    echo "not ok - one revision's rows: $(cat "$tmp/one.log")"
fi

# make reports passes REF_REV through.
if [ -f "$root/Makefile" ]; then
    RESULTS_DIR=$res REPORTS_DIR=$tmp/mk make -s -C "$root" reports REF_REV=rev-a >"$tmp/mk.log" 2>&1
    has "make reports REF_REV=rev-a" "$tmp/mk/summary.md" "^# Reference of revision rev-a "
else
    echo "skip - make reports REF_REV: no Makefile (a bundle)"
fi
