#!/bin/sh
# Each platform's reports stay apart: results/P/ gives reports/P/, a platform
# without rows is one line and no report, and only the reference
# platforms' reports are kept in git (a local run leaves it clean).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-platforms-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# A copy of the scripts in a tree of its own, so that the default folders
# (results/P, reports/P) are the copy's, not this tree's.
mkdir -p "$tmp/tree/results/p1" "$tmp/tree/results/empty" "$tmp/tree/reports"
cp -r "$root/scripts" "$tmp/tree/scripts"
cp -r "$root/reports/paper" "$tmp/tree/reports/paper"
cp "$here/fixtures/figure_9/figure_9.tsv" "$tmp/tree/results/p1/"

# REF_REV=any: the fixture's rows are of two revisions.
REF_REV=any PLATFORM=p1 "$tmp/tree/scripts/reports.sh" >"$tmp/log" 2>&1
if [ -s "$tmp/tree/reports/p1/figure_9.tsv" ] && [ -s "$tmp/tree/reports/p1/summary.md" ] &&
    [ ! -e "$tmp/tree/reports/figure_9.tsv" ]; then
    echo "ok - results/P's reports go to reports/P, not over another platform's"
else
    echo "not ok - PLATFORM=p1 wrote: $(cd "$tmp/tree/reports" && find . -type f | tr '\n' ' '): $(tail -n 3 "$tmp/log")"
fi
RESULTS_DIR="$tmp/tree/results/p1" "$tmp/tree/scripts/reports.sh" figure_9 >"$tmp/log" 2>&1
if [ -s "$tmp/tree/reports/p1/figure_9.tsv" ] && grep -q "reports/p1/figure_9.tsv" "$tmp/log"; then
    echo "ok - a RESULTS_DIR without PLATFORM gets the reports folder of its name"
else
    echo "not ok - RESULTS_DIR=results/p1: $(cat "$tmp/log")"
fi

# A platform without a results folder: one line naming it and the fix.
PLATFORM=nosuch "$tmp/tree/scripts/reports.sh" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    grep -q "^reports: no folder results/nosuch: run an experiment with PLATFORM=nosuch first, or name a platform that has rows: empty p1$" "$tmp/out" &&
    [ ! -e "$tmp/tree/reports/nosuch" ]; then
    echo "ok - a platform without results is one line, exit $rc, and no reports"
else
    echo "not ok - PLATFORM=nosuch: exit $rc: $(cat "$tmp/out")"
fi
# A folder without a row any report can use: an error, not a summary of
# nothing.
PLATFORM=empty "$tmp/tree/scripts/reports.sh" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "^reports: no report could be built from the rows in results/empty" "$tmp/out" &&
    [ ! -e "$tmp/tree/reports/empty/summary.md" ]; then
    echo "ok - a platform whose rows make no report fails and writes no summary"
else
    echo "not ok - PLATFORM=empty: exit $rc: $(tail -n 2 "$tmp/out")"
fi

# make reports PLATFORM=nosuch: the script's one line, and make fails.
if [ -f "$root/Makefile" ]; then
    make -s -C "$root" reports PLATFORM=nosuch >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$(grep -vc '^make' "$tmp/out")" -eq 1 ] &&
        grep -q "^reports: no folder results/nosuch" "$tmp/out" && [ ! -e "$root/reports/nosuch" ]; then
        echo "ok - make reports PLATFORM=nosuch fails with one line"
    else
        echo "not ok - make reports PLATFORM=nosuch: exit $rc: $(cat "$tmp/out")"
    fi
else
    echo "skip - make reports PLATFORM=nosuch: no Makefile (a bundle)"
fi

# Git keeps the reference platforms' reports and the paper's numbers, and
# ignores every other platform's (reports/local/ above all) and local
# comparisons.
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    for p in reports/local/crash.tsv reports/local/summary.md reports/mybox/figure_9.png \
        reports/compare/local-vs-h100-dram.tsv results/local/crash.tsv; do
        if git -C "$root" check-ignore -q --no-index "$p"; then
            echo "ok - git ignores $p"
        else
            echo "not ok - git would track $p"
        fi
    done
    for p in reports/h100-dram/summary.md reports/h200-dram/figure_9.tsv reports/paper/figure_9.tsv \
        reports/compare/h100-dram-vs-h200-dram.tsv; do
        if git -C "$root" check-ignore -q --no-index "$p"; then
            echo "not ok - git ignores the reference $p"
        else
            echo "ok - git keeps the reference $p"
        fi
    done
else
    echo "skip - git ignores local reports: not a git checkout"
fi
