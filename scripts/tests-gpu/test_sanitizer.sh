#!/bin/sh
# compute-sanitizer on a subset: memcheck over libgpm's GPU tests and the
# workloads' GPM kernels (every workload program), racecheck over the same
# (PS's block scan shares memory within a block) and HCL's warp-striped log.
# WORKLOADS (a comma list) narrows the workloads.
set -u
bin=${GPM_BIN:?GPM_BIN not set}
tests=$bin/../tests/gpu
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "skip - sanitizer: no CUDA GPU"
    exit 0
fi
cs=$(command -v compute-sanitizer || true)
for d in "${CUDA_HOME:-/usr/local/cuda}/bin" /usr/local/cuda/bin; do
    [ -n "$cs" ] || { [ -x "$d/compute-sanitizer" ] && cs=$d/compute-sanitizer; }
done
if [ -z "$cs" ]; then
    echo "skip - sanitizer: compute-sanitizer not found (install the CUDA toolkit's sanitizer)"
    exit 0
fi
log=$(mktemp)
check() { # NAME TOOL PROGRAM ARGS...
    name=$1 tool=$2
    shift 2
    # Each check gets its own PM directory: the programs' files outlive them.
    pm=$(mktemp -d "${GPM_PM_DIR:-/dev/shm}/san.XXXXXX")
    t0=$(date +%s)
    # GPM_GDS=off: under memcheck, cuFileDriverOpen itself makes a cuMemFree
    # the driver refuses (invalid argument; libcufile of CUDA 13.0, its own
    # frames only in the backtrace), which is not this suite's to fix.
    if GPM_GDS=off GPM_PM_DIR=$pm "$cs" --tool "$tool" --error-exitcode 9 "$@" >"$log" 2>&1 &&
        grep -Eq "(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)" "$log"; then
        echo "ok - $tool $name ($(($(date +%s) - t0)) s)"
    else
        echo "not ok - $tool $name: $(grep -m1 -E 'ERROR SUMMARY|Error|error' "$log")"
        sed 's/^/#   /' "$log" | tail -20
    fi
    rm -rf "$pm"
}
check test_device_api memcheck "$tests/test_device_api"
check test_cp memcheck "$tests/test_cp"
check test_log memcheck "$tests/test_log"
check test_log racecheck "$tests/test_log"
. "$(dirname "$0")/../lib/workloads.sh"
# WORKLOADS (a comma list) narrows the workloads, so that copies over
# groups of them can run at once: racecheck over DNN alone takes minutes.
# racecheck looks at the suite's own kernels, whose names all end in
# _kernel: cuDNN's, which DNN launches by the hundred, took 517 s under it
# on an H100, and their hazards are not ours to fix (memcheck still sees
# every kernel).
for w in $(workload_list "$bin"); do
    check "$w gpm" memcheck "$bin/$w" --mode gpm --scale tiny --reps 1
    check "$w gpm" racecheck --kernel-name kns=_kernel "$bin/$w" --mode gpm --scale tiny --reps 1
done
rm -f "$log"
