#!/bin/sh
# make nvc through scripts/experiment.sh, on PS's and SRAD's CPU
# counterparts: crash images with no persist honoured but the run
# identity's (gpm-check --model none --honour .id), each restarted with
# --recover; PS restarts to wrong sums in some (a block's done marker
# reached PM, its sums did not), which is a finding, not a failure; rows
# and the report say so; nothing is left behind. The model itself:
# libgpm/tests/cpu/test_persistency.c.
set -u
. "$(dirname "$0")/checker-checks.sh"
checker_setup nvc

# One CPU thread (CHECK_ARGS): one trace, so the same images every time.
env -u MODES -u OPS RESULTS_DIR="$tmp/res" REPORTS_DIR="$tmp/rep" WORKLOADS=ps,srad SCALE=tiny \
    IMAGES=40 CHECK_ARGS="--cpu-threads 1" "$scripts/experiment.sh" nvc "$GPM_BIN" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] &&
    grep -q "^nvc: ps (cpu, tiny): 40 images, no persist honoured but the identity's: [0-9]* correct.*, [1-9][0-9]* wrong output, [0-9]* failed restarts" "$tmp/out" &&
    grep -q "^nvc: srad (cpu, tiny): 40 images" "$tmp/out"; then
    ok "nvc: PS and SRAD restarted from 40 images each; PS restarts to wrong sums in some, and the experiment passes"
else
    notok "nvc on ps and srad" "exit $rc: $(head -c 900 "$tmp/out")"
fi
if grep -q "model=none,.*honour=\.id" "$tmp/res/nvc.tsv" &&
    row_of "$tmp/rep/nvc.tsv" "ps	run	cpu	tiny" | grep -qx "verdict=silently wrong" &&
    row_of "$tmp/rep/nvc.tsv" "ps	run	cpu	tiny" |
    grep -qx "summary=its persists cannot be dropped: [1-9][0-9]* of 40 restarts gave a wrong result" &&
    row_of "$tmp/rep/nvc.tsv" "srad	run	cpu	tiny" | grep -qx "images=40"; then
    ok "nvc: the rows name the model, and the report calls PS silently wrong: its persists cannot be dropped"
else
    notok "nvc rows and report" "$(cat "$tmp/rep/nvc.tsv" 2>&1 | tail -n 3)"
fi
no_folder_left "nvc leaves no folder behind" gpm-check

# --honour belongs to model none alone.
"$GPM_BIN/gpm-check" --honour .id "$GPM_BIN/ps" --mode cpu --scale tiny >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "^gpm-check: --honour .id: only with --model none" "$tmp/out"; then
    ok "gpm-check: --honour without --model none is refused, naming the fix"
else
    notok "gpm-check --honour alone" "exit $rc: $(head -c 300 "$tmp/out")"
fi
