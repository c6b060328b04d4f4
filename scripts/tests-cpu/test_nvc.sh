#!/bin/sh
# make nvc through scripts/experiment.sh, on PS's and SRAD's CPU
# counterparts: crash images with no persist honoured but the run
# identity's (gpm-check --model none --honour .id), each restarted with
# --recover; PS restarts to wrong sums in some (a block's done marker
# reached PM, its sums did not), which is a finding, not a failure; rows
# and the report say so, and how wrong: the share of its sums wrong, which
# each wrong restart's row measured; nothing is left behind. The model
# itself: libgpm/tests/cpu/test_persistency.c.
set -u
. "$(dirname "$0")/checker-checks.sh"
checker_setup nvc

# One CPU thread (CHECK_ARGS): one trace, so the same images every time.
env -u MODES -u OPS RESULTS_DIR="$tmp/res" REPORTS_DIR="$tmp/rep" WORKLOADS=ps,srad SCALE=tiny \
    IMAGES=40 CHECK_ARGS="--cpu-threads 1" "$scripts/experiment.sh" nvc "$GPM_BIN" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] &&
    grep -q "^nvc: ps (cpu, tiny): 40 images, no persist honoured but the identity's: [0-9]* correct.*, [1-9][0-9]* wrong output (a median [0-9.]*% of their sums wrong, at most [0-9.]*%), [0-9]* failed restarts" "$tmp/out" &&
    grep -q "^nvc: srad (cpu, tiny): 40 images" "$tmp/out"; then
    ok "nvc: PS and SRAD restarted from 40 images each; PS restarts to wrong sums in some, and the experiment passes"
else
    notok "nvc on ps and srad" "exit $rc: $(head -c 900 "$tmp/out")"
fi
if grep -q "model=none,.*honour=\.id" "$tmp/res/nvc.tsv" &&
    row_of "$tmp/rep/nvc.tsv" "ps	run	cpu	tiny" | grep -qx "verdict=silently wrong" &&
    row_of "$tmp/rep/nvc.tsv" "ps	run	cpu	tiny" |
    grep -qx "summary=its persists cannot be dropped: [1-9][0-9]* of 40 restarts gave a wrong result, a median [0-9.]*% of their sums wrong (at most [0-9.]*%)" &&
    row_of "$tmp/rep/nvc.tsv" "srad	run	cpu	tiny" | grep -qx "images=40"; then
    ok "nvc: the rows name the model, and the report calls PS silently wrong: its persists cannot be dropped"
else
    notok "nvc rows and report" "$(cat "$tmp/rep/nvc.tsv" 2>&1 | tail -n 3)"
fi
# How wrong: every wrong restart measured, in sums; the shares agree with
# the line and lie in (0, 1], the median at most the largest.
ps=$(row_of "$tmp/rep/nvc.tsv" "ps	run	cpu	tiny")
wrong=$(echo "$ps" | sed -n 's/^wrong=//p')
med=$(echo "$ps" | sed -n 's/^wrong_units_median=//p')
max=$(echo "$ps" | sed -n 's/^wrong_units_max=//p')
line=$(grep "^nvc: ps (cpu, tiny)" "$tmp/out")
if [ -n "$wrong" ] && [ "$wrong" -gt 0 ] &&
    echo "$ps" | grep -qx "wrong_measured=$wrong" && echo "$ps" | grep -qx "units=sums" &&
    echo "$ps" | grep -qx "wrong_max_err=nan" &&
    awk -v a="$med" -v b="$max" 'BEGIN { exit !(a > 0 && a <= b && b <= 1) }' &&
    echo "$line" | grep -qF "$(awk -v a="$med" -v b="$max" 'BEGIN { printf "(a median %.3g%% of their sums wrong, at most %.3g%%)", 100 * a, 100 * b }')" &&
    grep -q ",wrong_measured=$wrong,wrong_marks_images=[0-9]*,wrong_share_median=$med,wrong_share_max=$max,units=sums," "$tmp/res/nvc.tsv"; then
    ok "nvc: each of PS's $wrong wrong restarts measured its sums: a median $med of them wrong, at most $max, in the row, the line and the report"
else
    notok "nvc's measure of PS's wrong restarts" "wrong=$wrong median=$med max=$max; $line; $(grep -o 'wrong_measured=[^	]*' "$tmp/res/nvc.tsv" | head -n 2)"
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
