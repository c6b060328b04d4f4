#!/bin/sh
# The experiments' Make variables are checked before anything runs: a bad
# value gets exactly one line naming the variable and the fix, exit 2, and
# no rows (make TARGET runs scripts/experiment.sh TARGET, and make
# reproduce scripts/reproduce.sh, as here). Good values pass the check.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
if [ ! -x "${GPM_BIN:-}/ps" ] || [ ! -x "${GPM_BIN:-}/blk" ]; then
    echo "skip - Make variables checked up front: no ${GPM_BIN:-GPM_BIN}/ps or blk"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-check-vars.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# refused TARGET 'VAR=VALUE ...' PATTERN: one line matching PATTERN, exit 2,
# no results folder.
refused() {
    _t=$1 _vars=$2 _pat=$3
    rm -rf "$tmp/res"
    # shellcheck disable=SC2086 # _vars is a list of assignments
    env -u WORKLOADS -u TRIALS -u SCALE -u PLATFORM RESULTS_DIR="$tmp/res" $_vars \
        "$root/scripts/experiment.sh" "$_t" "$GPM_BIN" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q -- "^$_t: $_pat" "$tmp/out" &&
        [ ! -e "$tmp/res" ]; then
        echo "ok - $_t with $_vars: refused in one line"
    else
        echo "not ok - $_t with $_vars: exit $rc: $(head -c 400 "$tmp/out")"
    fi
}

refused crash TRIALS=abc "TRIALS=abc: not a whole number: pass a whole number of 1 or more, e.g. TRIALS=50"
refused crash TRIALS=0 "TRIALS=0: out of range: pass a whole number from 1"
refused crash CRASH_MODE=foo "CRASH_MODE=foo: not a mode of any workload: pass one of gpm, .*cpu"
refused crash "CRASH_MODE=cpu WORKLOADS=blk" "CRASH_MODE=cpu: none of WORKLOADS (blk) has it: the workloads with it are .*ps"
refused figure_9 SCALE=huge "SCALE=huge: not a scale: pass tiny, small or paper"
refused figure_9 WORKLOADS=ps,nosuch "WORKLOADS=ps,nosuch: no workload 'nosuch' in .*: pass some of .*ps"
refused figure_9 OPS=sett "OPS=sett: no operation 'sett': pass some of .*set(kvs)"
refused crash JOBS=two "JOBS=two: not a whole number"
refused crash CRASH_TRIALS=-3 "CRASH_TRIALS=-3: not a whole number"
refused figure_9 REPS=0 "REPS=0: out of range"
refused figure_1a THREADS=1,2 "THREADS=1,2: '1,2' is not a thread count: .*THREADS=\"1 2 4\""
refused figure_1a STORES=kvs,lmdb "STORES=kvs,lmdb: no store 'lmdb'"
refused figure_9 PLATFORM=../elsewhere "PLATFORM=../elsewhere: not a folder name"
refused figure_9 "PLATFORM=a:b" "PLATFORM=a:b: not a folder name"
refused figure_11a STOP_RATIO=x "STOP_RATIO=x: not a number"
refused figure_11a PARTITIONS=256,64 "PARTITIONS=256,64: '256,64' is not a partition count"
refused figure_1a SWEEP_REPS=x "SWEEP_REPS=x: not a whole number"
refused crash COMMIT_TRIALS=x "COMMIT_TRIALS=x: not a whole number"
refused check-persistency MODES=cpu,gpmm "MODES=cpu,gpmm: no mode 'gpmm': pass some of gpm, .*cpu.* (comma-separated)"
refused check-persistency IMAGES=0 "IMAGES=0: out of range: pass a whole number from 1 to 100000, e.g. IMAGES=100"
refused check-persistency IMAGES=200000 "IMAGES=200000: out of range: pass a whole number from 1 to 100000"
refused check-persistency NESTED=101 "NESTED=101: out of range: pass a whole number from 0 to 100, e.g. NESTED=2"
refused mutants KILLS=some "KILLS=some: not a whole number: pass a whole number of 0 or more, e.g. KILLS=3"
refused mutants MODES=nosuch "MODES=nosuch: no mode 'nosuch'"

# Two bad variables: a line each.
env -u WORKLOADS RESULTS_DIR="$tmp/res" TRIALS=0 SCALE=x "$root/scripts/experiment.sh" crash "$GPM_BIN" \
    >"$tmp/out" 2>&1
if [ "$(wc -l <"$tmp/out")" -eq 2 ] && grep -q "^crash: TRIALS=0" "$tmp/out" && grep -q "^crash: SCALE=x" "$tmp/out"; then
    echo "ok - every bad variable gets its own line"
else
    echo "not ok - two bad variables: $(head -c 400 "$tmp/out")"
fi

# make reproduce checks them before its GPU check and estimate.
env -u WORKLOADS RESULTS_DIR="$tmp/res" CRASH_TRIALS=none "$root/scripts/reproduce.sh" "$GPM_BIN" \
    >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    grep -q "^reproduce: CRASH_TRIALS=none: not a whole number" "$tmp/out"; then
    echo "ok - reproduce refuses a bad variable in one line, before anything else"
else
    echo "not ok - reproduce with CRASH_TRIALS=none: exit $rc: $(head -c 400 "$tmp/out")"
fi

# Good values, and the defaults, pass.
for vars in "" "TRIALS=3 JOBS=2 CRASH_MODE=cpu WORKLOADS=PS,blk SCALE=tiny PLATFORM=h100-dram" \
    "OPS=set,update THREADS=1 STORES=kvs,rocksdb STOP_RATIO=0 CRASH_SEED=0 COMMIT_TRIALS=0 CRASH_SCALE=small" \
    "MODES=cpu,gpm,cap-delta IMAGES=100000 KILLS=0"; do
    # shellcheck disable=SC2086 # vars is a list of assignments
    if out=$(env -u WORKLOADS $vars "$root/scripts/lib/check-vars.sh" t "$GPM_BIN" 2>&1); then
        echo "ok - passes: ${vars:-the defaults}"
    else
        echo "not ok - ${vars:-the defaults} refused: $out"
    fi
done
