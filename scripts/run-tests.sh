#!/bin/sh
# Runs the test programs and scripts of one kind (cpu or gpu) and ends with
# the line "N passed, N failed".
#   scripts/run-tests.sh cpu|gpu BUILD_DIR
# TESTS (optional): a space-separated list of shell patterns; only the test
# programs and scripts whose names match one run (TESTS='test_cp dnn_*').
# JOBS (optional, default 1): test programs run at once.
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
out=$(mktemp -d)
list=$out/list
: >"$list"
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
    echo "$t" >>"$list"
done

# One test program: its output, exit status and seconds in OUT/NAME.*.
run_one() {
    _n=$(basename "$1")
    _t0=$(date +%s)
    # A PM directory of its own: tests that run at once never see each
    # other's files.
    mkdir -p "$GPM_PM_DIR/$_n"
    GPM_PM_DIR="$GPM_PM_DIR/$_n" timeout "${GPM_TEST_TIMEOUT:-900}" "$1" >"$out/$_n.log" 2>&1
    _rc=$?
    echo "$(($(date +%s) - _t0))" >"$out/$_n.s"
    echo "$_rc" >"$out/$_n.rc" # last: it says the test is done
}

# The counts of one test program that has run, its output passed on.
tally() {
    name=$(basename "$1")
    echo "# $name"
    cat "$out/$name.log"
    echo "# $name: $(cat "$out/$name.s") s" # where a long run's time goes
    rc=$(cat "$out/$name.rc")
    p=$(grep -c '^ok - ' "$out/$name.log")
    f=$(grep -c '^not ok - ' "$out/$name.log")
    s=$(grep -c '^skip - ' "$out/$name.log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $name: exited with status $rc"
        f=1
    fi
    if [ "$rc" -eq 0 ] && [ $((p + f + s)) -eq 0 ]; then
        echo "not ok - $name: reported no test cases"
        f=1
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# The tests that have run, in the usual order, up to the first still
# running: each output is shown whole as soon as those before it are, so a
# run cut short still shows what it did.
shown=1
show_done() {
    while _t=$(sed -n "${shown}p" "$list") && [ -n "$_t" ] &&
        [ -f "$out/$(basename "$_t").rc" ]; do
        tally "$_t"
        shown=$((shown + 1))
    done
}

# JOBS (default 1) test programs at once. GPU tests may share the GPU: none
# depends on when something lands.
jobs=${JOBS:-1}
case $jobs in '' | *[!0-9]* | 0) echo "run-tests: JOBS=$jobs: pass a count of 1 or more" >&2; exit 2 ;; esac
if [ "$jobs" -gt 1 ]; then
    started=0
    while read -r t; do
        # at most JOBS running: those started less those finished
        while [ $((started - $(find "$out" -name '*.rc' | wc -l))) -ge "$jobs" ]; do
            show_done
            sleep 1
        done
        started=$((started + 1))
        run_one "$t" </dev/null &
    done <"$list"
    while [ "$(find "$out" -name '*.rc' | wc -l)" -lt "$started" ]; do
        show_done
        sleep 1
    done
    wait
    show_done
else
    while read -r t; do
        run_one "$t" </dev/null
        tally "$t"
    done <"$list"
fi
rm -rf "$out"
[ "$skipped" -gt 0 ] && echo "# $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
