#!/bin/sh
# make mutants through scripts/experiment.sh, on PS's CPU counterpart (no
# GPU needed): the original passes the checker and the SIGKILL trials; the
# mutant without the persist of a block's sums (ps_ref.c:49) is flagged by
# the checker and by no SIGKILL trial, its traced run having no persist
# point left at the site; the report has a row per site with
# both verdicts; a site only a recovery reaches (gpDB's undo) is mutated
# too and flagged by crashing recoveries, and its undo tail's persist is
# argued benign with its test; a setting beside the default run
# (--check-settings) is checked too; nothing is left behind. Bad variables: test_check_vars.sh.
set -u
. "$(dirname "$0")/checker-checks.sh"
checker_setup mutants

# PS's mutants: the persist of a block's sums removed is flagged by the
# checker, and by no SIGKILL trial; the original passes both.
env -u MODES -u OPS RESULTS_DIR="$tmp/mres" REPORTS_DIR="$tmp/mrep" WORKLOADS=ps SCALE=tiny \
    IMAGES=20 KILLS=2 "$scripts/experiment.sh" mutants "$GPM_BIN" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] &&
    grep -q "^mutants: ps (cpu, tiny): the original: 20 images: 20 recovered, .* SIGKILL: 2 of 2 trials recovered" "$tmp/out" &&
    grep -q "^mutants: ps (cpu) without workloads/ps/ps_ref.c:49 (persist x[0-9]*; persist points [0-9]* -> [0-9]*): checker flagged: [1-9][0-9]* of 20 images failed .*; SIGKILL: 0 of 2 trials flagged$" "$tmp/out" &&
    grep -q "mutant=workloads/ps/ps_ref.c:49,mutant_left=0," "$tmp/mres/mutants.tsv" && ! grep -q "NOT removed" "$tmp/out"; then
    ok "mutants: ps_ref.c:49 removed (none left at the site) and flagged by the checker, not by SIGKILL; the original passes"
else
    notok "mutants on ps" "exit $rc: $(head -c 900 "$tmp/out")"
fi
r=$(row_of "$tmp/mrep/mutants.tsv" "ps	run	cpu	tiny	workloads/ps/ps_ref.c:49")
o=$(row_of "$tmp/mrep/mutants.tsv" "ps	run	cpu	tiny	(original)")
if echo "$r" | grep -qx "checker=flagged" && echo "$r" | grep -qx "sigkill=not flagged (2 of 2 recovered)" &&
    echo "$o" | grep -qx "checker=passes" && [ "$(grep -c "^ps	" "$tmp/mrep/mutants.tsv")" -ge 4 ]; then
    ok "mutants: the report has the original and a row per site, with both verdicts"
else
    notok "mutants report" "$(cat "$tmp/mrep/mutants.tsv" 2>&1 | tail -n 5)"
fi
# A block's marker persisted no more (ps_ref.c:58): its removal holds the
# marker back, every image there recovers (the block is redone), and the
# report says it is argued benign, by its test.
m=$(row_of "$tmp/mrep/mutants.tsv" "ps	run	cpu	tiny	workloads/ps/ps_ref.c:58")
if echo "$m" | grep -qx "checker=argued benign (workloads/ps/tests/cpu/test_ps_ref.c: a_lost_marker_costs_only_its_blocks_redo)" &&
    grep "mutant=workloads/ps/ps_ref.c:58," "$tmp/mres/mutants.tsv" | head -n 1 |
    grep -q ",removed=256,held_stores=256,held_points=[1-9]"; then
    ok "mutants: a marker's removed persist holds its 256 markers back, and the images there recover"
else
    notok "mutants: ps_ref.c:58's verdict" "$m"
fi
no_folder_left "mutants leave no folder behind" gpm-check mutant-trial


# A site only a recovery reaches: gpDB update's CPU undo persists the
# bytes it restores (libgpm/src/tx.c), mutated with crashes of its
# recoveries checked too; flagged there, and by no SIGKILL trial.
# One CPU thread (CHECK_ARGS): one trace, so the same images every time.
env -u MODES RESULTS_DIR="$tmp/rres" REPORTS_DIR="$tmp/rrep" WORKLOADS=db OPS=update SCALE=tiny \
    IMAGES=20 KILLS=1 CHECK_ARGS="--cpu-threads 1" "$scripts/experiment.sh" mutants "$GPM_BIN" \
    >"$tmp/rout" 2>&1
rc=$?
site=$(sed -n 's|^mutants: db(update) (cpu) without \(libgpm/src/tx\.c:[0-9]*\) (persist x[0-9]*; recovery only): checker flagged: [1-9][0-9]* of 50 images failed (30 of them of crashed recoveries); SIGKILL: 0 of 1 trials flagged$|\1|p' "$tmp/rout" | head -n 1)
if [ "$rc" -eq 0 ] && [ -n "$site" ] &&
    row_of "$tmp/rrep/mutants.tsv" "db	update	cpu	tiny	$site" | grep -qx "site_kind=persist (recovery)"
then
    ok "mutants: a recovery's own persist (tx.c's undo) mutated and flagged by crashing recoveries, not by SIGKILL"
else
    notok "mutants of a recovery's site" "exit $rc: $(grep -v '^    ' "$tmp/rout" | grep 'recovery only' | head -c 900)"
fi
# The undo's tail persist (tx.c:191) is progress only: no image flags it,
# and the report says so with the test that shows its loss harmless
# (scripts/report/mutants.py's ARGUED, each entry still at its line).
a=$(row_of "$tmp/rrep/mutants.tsv" "db	update	cpu	tiny	libgpm/src/tx.c:191")
if echo "$a" | grep -qx "checker=argued benign (libgpm/tests/cpu/test_tx.c: recovery_that_lost_its_tail_stores_ends_exactly_right)" &&
    { [ ! -f "$scripts/../libgpm/src/tx.c" ] || # a bundle has no sources
        python3 "$scripts/report/mutants.py" --check-argued "$scripts/.." 2>"$tmp/argued"; }; then
    ok "mutants: the undo's tail persist is argued benign, with its test, and every argued site is still at its line"
else
    notok "mutants argued benign" "$(echo "$a" | grep '^checker=') $(cat "$tmp/argued")"
fi

# A setting beside the default run (--check-settings): GPHash's header,
# persisted by reset(), matters only where the load is the run; its
# mutant is checked in both cases, flagged in the load's, and the report
# counts it flagged by site.
# (The header's is the one site of gphash.c that persists once.)
site=$("$GPM_BIN/gpm-check" --sites "$GPM_BIN/gphash" --mode cpu --scale tiny --workload load |
    awk -F'\t' '$1 ~ /gphash\.c:/ && $3 == 1 { print $1 }')
env -u MODES -u OPS RESULTS_DIR="$tmp/sres" REPORTS_DIR="$tmp/srep" WORKLOADS=gphash SCALE=tiny \
    SITES="$site" IMAGES=20 KILLS=1 RERUN=0 \
    "$scripts/experiment.sh" mutants "$GPM_BIN" >"$tmp/sout" 2>&1
rc=$?
l=$(row_of "$tmp/srep/mutants.tsv" "gphash	run [load]	cpu	tiny	$site")
if [ "$rc" -eq 0 ] && [ -n "$site" ] && echo "$l" | grep -qx "checker=flagged" &&
    grep -q "^mutants: gphash(load) (cpu) without $site .*checker flagged" "$tmp/sout" &&
    row_of "$tmp/srep/mutants.tsv" "gphash	run	cpu	tiny	$site" | grep -q "^checker=" &&
    grep -q "by site, over the operations and settings each was checked in: of 1, 1 flagged in some case" "$tmp/srep/mutants.tsv"; then
    ok "mutants: GPHash's header persist checked in the default run and its load setting, flagged in the load's"
else
    notok "mutants in a setting" "exit $rc: $(grep -v '^    ' "$tmp/sout" | tail -n 6 | head -c 900) | $l"
fi

# A missing program is an error naming it.
mkdir -p "$tmp/fbin"
env GPM_BIN="$tmp/fbin" RESULTS_DIR="$tmp/nres" WORKLOADS=nosuchwl SCALE=tiny \
    "$scripts/experiments/mutants.sh" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "FAILED: no workload program $tmp/fbin/nosuchwl" "$tmp/out"; then
    ok "mutants: a missing workload program is an error naming it"
else
    notok "mutants with a missing program" "exit $rc: $(head -c 300 "$tmp/out")"
fi
