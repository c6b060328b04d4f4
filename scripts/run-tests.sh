#!/bin/sh
# Runs the test programs and scripts of one kind (cpu or gpu) and ends with
# the line "N passed, N failed".
#   scripts/run-tests.sh cpu|gpu BUILD_DIR
# TESTS (optional): a space-separated list of shell patterns; only the test
# programs and scripts whose names match one run (TESTS='test_cp dnn_*').
# Every test prints "ok - NAME", "not ok - NAME: why" or "skip - NAME: why".
# A test program that exits non-zero (or dies) without reporting a failure
# counts as one failure of its own.
set -u
kind=$1
build=${2:-build}
here=$(cd "$(dirname "$0")" && pwd)
export GPM_BIN="${GPM_BIN:-$(cd "$build" && pwd)/bin}"
export GPM_ROOT="${GPM_ROOT:-$(cd "$here/.." && pwd)}"
# GPU tests need a GPU: without one they fail, once and plainly, rather
# than pass by skipping everything.
if [ "$kind" = gpu ] && ! why=$("$GPM_BIN/gpm-info" --check-gpu 2>&1); then
    echo "test-gpu: ${why#gpm-info: }: run it on a machine with an NVIDIA GPU (make test runs the CPU tests)" >&2
    exit 1
fi
# Tests make their PM files in a private directory that is removed afterwards.
GPM_PM_DIR=$(mktemp -d "${TMPDIR:-/dev/shm}/gpm-test.XXXXXX") || exit 1
export GPM_PM_DIR
trap 'rm -rf "$GPM_PM_DIR"' EXIT

passed=0 failed=0 skipped=0
log=$(mktemp)
for t in "$build/tests/$kind"/* "$here/tests-$kind"/test_*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    name=$(basename "$t")
    if [ -n "${TESTS:-}" ]; then
        wanted=0
        set -f # the patterns match test names, not files here
        for p in $TESTS; do
            # shellcheck disable=SC2254 # the pattern is the point
            case $name in $p) wanted=1 ;; esac
        done
        set +f
        [ "$wanted" -eq 1 ] || continue
    fi
    echo "# $name"
    t0=$(date +%s)
    timeout "${GPM_TEST_TIMEOUT:-900}" "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    echo "# $name: $(($(date +%s) - t0)) s" # where a long run's time goes
    p=$(grep -c '^ok - ' "$log")
    f=$(grep -c '^not ok - ' "$log")
    s=$(grep -c '^skip - ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $name: exited with status $rc"
        f=1
    fi
    if [ "$rc" -eq 0 ] && [ $((p + f + s)) -eq 0 ]; then
        echo "not ok - $name: reported no test cases"
        f=1
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
rm -f "$log"
[ "$skipped" -gt 0 ] && echo "# $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
