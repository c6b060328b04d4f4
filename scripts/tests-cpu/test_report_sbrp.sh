#!/bin/sh
# The SBRP report (scripts/report/sbrp.py) from fixture rows
# (fixtures/sbrp): a litmus test that saw a forbidden state fails, the
# newest run of each variant is the one set against the other, the
# unmutated check and each mutant get their verdicts, and the summary line
# counts them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-sbrp-report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/sbrp.tsv

# row KIND ITEM: the report's row of that kind whose item starts so.
row() {
    awk -F'\t' -v k="$1" -v i="$2" '!/^#/ && $1 == k && index($4, i) == 1' "$out"
}
# expect NAME KIND ITEM PATTERN: that row matches PATTERN.
expect() {
    if row "$2" "$3" | grep -q -- "$4"; then echo "ok - $1"; else
        echo "not ok - $1: $2 '$3' is '$(row "$2" "$3")', expected '$4'"; fi
}

if python3 "$root/scripts/report/sbrp.py" "$here/fixtures/sbrp" "$out" 2>"$tmp/err"; then
    echo "ok - the report builds"
else
    echo "not ok - the report builds: $(cat "$tmp/err")"
fi
expect "a litmus test as SBRP's rules, nothing forbidden seen: ok" litmus "P: x oFence y" "	ok$"
expect "a litmus test whose CPU saw a forbidden state: FAILED" litmus "P: x dFence y" "	FAILED$"
expect "the newest SBRP run against the newest epoch run" speed "sbrp over epoch" "	0.02325	0.06838	0.34	"
expect "the paper's simulated speedup beside ours" speed "sbrp over epoch" "1.06-1.07 (scan"
expect "the unmutated program: every image recovered" check original "	200	0	.*every image recovered$"
expect "a mutant with an image not recovered: flagged" mutant "workloads/ps/ps_kernels.cu:193 (prel)" "	200	1	.*flagged$"
expect "a mutant whose images all recovered: not flagged" mutant "workloads/ps/ps_kernels.cu:204 (dfence)" "not flagged"
mkdir -p "$tmp/res" && cp "$here/fixtures/sbrp/sbrp.tsv" "$tmp/res/"
if RESULTS_DIR="$tmp/res" REPORTS_DIR="$tmp/rep" "$root/scripts/reports.sh" >/dev/null 2>&1 &&
    grep -q "1 of 2 litmus tests as SBRP's rules say.*1 of 1 unmutated programs clean.*1 of 2 mutants flagged.*ps 0.34x" "$tmp/rep/summary.md"; then
    echo "ok - the summary counts litmus tests, checks and mutants"
else
    echo "not ok - the summary counts litmus tests, checks and mutants: $(grep -i sbrp "$tmp/rep/summary.md" 2>/dev/null | head -c 400)"
fi
