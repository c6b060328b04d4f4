#!/bin/sh
# SBRP, scoped buffered release persistency (Pandey et al., ASPLOS'23), on
# today's GPUs (make sbrp). SBRP's hardware (per-warp persist buffers) is
# simulated in its paper; its operations run here under the conservative
# mapping of gpm/sbrp.cuh, and gpm-check's sbrp model checks programs
# against its rules. Four parts, all on the GPU:
#   1. litmus: the litmus kernels of tests/gpu/test_sbrp_litmus, each with
#      the outcomes the model allows from its GPU trace (at the kernel's
#      end and at any crash point) and the states a CPU thread saw in PM
#      while 1024 instances ran 40 times: a row each (workload=litmus,
#      verified=fail where the model disagreed with SBRP's rules or the CPU
#      saw a forbidden state; median_s 0: a litmus row times nothing);
#   2. speed: each ported workload (those whose --help offers
#      --persistency: Reduce, PS, SRAD, gpKVS's SET; OPS, default set) in gpm at
#      SCALE (small from make), REPS (default 5) repetitions, with
#      --persistency epoch (gpm_persist) and sbrp: rows of each;
#   3. the SBRP variant under gpm-check --model sbrp at CHECK_SCALE (default
#      tiny), IMAGES (default 200) crash images: every one must recover;
#   4. its mutants: every SBRP operation of the traced run (gpm-check
#      --sites: ofence, dfence, prel, pacq) weakened in turn with
#      GPM_MUTATE (a fence removed; a pRel or pAcq one scope narrower:
#      device to block, block to none), each checked as in 3: "flagged"
#      where an image did not recover. None is expected to fail on the
#      hardware: the mapping still fences.
# The experiment fails where a litmus test failed, the unmutated check
# failed, a run did not verify, or a mutant did not take (mutant_left).
# Rows: $RESULTS_DIR/sbrp.tsv. Report: scripts/report/sbrp.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, CHECK_SCALE, REPS, IMAGES,
# WORKLOADS, OPS, GPM_PM_DIR.
set -u
name=sbrp
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/check-run.sh"
IMAGES=${IMAGES:-200}
REPS=${REPS:-5}
CHECK_SCALE=${CHECK_SCALE:-tiny}
OPS=${OPS:-set}
out=$RESULTS_DIR/sbrp.tsv
bad=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# 1. The litmus tests.
litmus=$GPM_BIN/../tests/gpu/test_sbrp_litmus
if [ ! -x "$litmus" ]; then
    echo "$name: FAILED: no $litmus (make builds it)" >&2
    bad=1
else
    LITMUS_TSV=$tmp/litmus.tsv "$litmus" >"$tmp/litmus.log" 2>&1
    lrc=$?
    sed -n 's/^# /litmus: /p' "$tmp/litmus.log"
    grep '^not ok' "$tmp/litmus.log" >&2 && bad=1
    [ "$lrc" -eq 0 ] || { echo "$name: FAILED: the litmus tests exited $lrc" >&2; bad=1; }
    k=0
    tail -n +2 "$tmp/litmus.tsv" 2>/dev/null | while IFS="$(printf '\t')" read -r what end any seen forbidden; do
        k=$((k + 1))
        v=ok
        [ "$forbidden" = 0 ] || v=fail
        grep -q "^not ok.*$what" "$tmp/litmus.log" && v=fail
        "$GPM_BIN/gpm-row" "$out" workload=litmus op="$k" mode=gpm scale=tiny reps=40 \
            median_s=0 verified="$v" \
            params="litmus=$(echo "$what" | tr ',' ';'),at_end=$end,anywhere=$any,observed=$seen,forbidden_seen=$forbidden" ||
            exit 1
    done || bad=1
fi

# 2-4 for each ported workload.
ported=0
for w in $(workloads); do
    have_program "$w" || { bad=1; continue; }
    if ! "$GPM_BIN/$w" --help 2>/dev/null | grep -q -- --persistency; then
        echo "$name: $w has no SBRP variant: skipped"
        continue
    fi
    ported=$((ported + 1))
    for op in $(ops "$w"); do
        lbl=$w
        [ "$op" = run ] || lbl="$w($op)"
        # shellcheck disable=SC2046 # op_flag: no word, or --op and its name
        run_mode "$w" gpm "$REPS" "$out" $(op_flag "$op") --persistency epoch || bad=1
        # shellcheck disable=SC2046
        run_mode "$w" gpm "$REPS" "$out" $(op_flag "$op") --persistency sbrp || bad=1
        args="$(op_flag "$op") --persistency sbrp"
        # shellcheck disable=SC2086 # args: a list of flags
        if ! "$GPM_BIN/gpm-check" --sites "$GPM_BIN/$w" --mode gpm --scale "$CHECK_SCALE" $args \
            >"$tmp/sites" 2>"$tmp/sites.err"; then
            echo "$name: $lbl: cannot list its SBRP sites: $(tail -n 1 "$tmp/sites.err")" >&2
            bad=1
            continue
        fi
        for site in "" $(awk -F'\t' '$2 ~ /^(ofence|dfence|prel|pacq)$/ { print $1 }' "$tmp/sites"); do
            d=$(check_dir) || exit 1
            # shellcheck disable=SC2086
            (
                [ -z "$site" ] || export GPM_MUTATE="$site"
                CHECKER_FLAGS="--model sbrp" run_check "$out" "$d" "$IMAGES" \
                    "site=${site:-original},site_kind=$(awk -F'\t' -v s="$site" '$1 == s { print $2 }' "$tmp/sites")" \
                    "$w" gpm "$CHECK_SCALE" $args
                echo "$CHECK_RC|$CHECK_PARAMS|$CHECK_WHY" >"$tmp/check"
            )
            IFS='|' read -r rc p why <"$tmp/check"
            if [ -n "$why" ] || [ -z "$(param "$p" images)" ]; then
                verdict="FAILED: the check could not run: ${why:-gpm-check exited $rc}"
                bad=1
            elif [ -n "$site" ] && [ "$(param "$p" mutant_left)" != 0 ]; then
                verdict="FAILED: the mutant did not take ($(param "$p" mutant_left) left at the site)"
                bad=1
            elif [ "$rc" -ne 0 ]; then
                verdict="$(not_recovered "$p") of $(param "$p" images) images not recovered"
                if [ -n "$site" ]; then
                    verdict="flagged: $verdict"
                else
                    verdict="FAILED: $verdict"
                    bad=1
                fi
            else
                verdict="every image recovered$([ -z "$site" ] || echo ": not flagged")"
            fi
            echo "$name: $lbl --persistency sbrp, model sbrp, ${site:-unmutated}: $verdict"
            case $verdict in
            flagged* | "every image recovered"*) rm -rf "$d" "$d.log" ;;
            *) echo "$name: $lbl: its folder and log stay in $d and $d.log" >&2 ;;
            esac
        done
    done
done
some_ran "$ported" "has an SBRP variant"
[ -z "$failed" ] || bad=1
exit $bad
