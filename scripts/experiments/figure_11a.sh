#!/bin/sh
# Figure 11a: the transactional workloads (those with --kill commit:N)
# in GPM mode with HCL and with the conventional log, swept over its
# partition count (PARTITIONS, default "2048 256 64 16 4 1", most first: the
# grid has 256 blocks of 8 warps; a block logs into partition block % P, or,
# with more partitions than blocks, a warp into global warp % P, so 2048 is
# a partition a warp and 256 one a block), each
# operation; rows appended to $RESULTS_DIR/figure_11a.tsv (report:
# scripts/report/figure_11a.py, which sets HCL against the conventional log
# at its best count, and says which).
# The sweep of an operation stops at the first count slower than STOP_RATIO
# (default 4) times the best so far: the counts after it, with fewer
# partitions, only contend more, and at paper scale one partition takes
# minutes a run. STOP_RATIO=0 runs every count.
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (comma list, any case), REPS (default 5), GPM_PM_DIR (optional).
set -u
name=figure_11a
. "$(dirname "$0")/lib.sh"
ran=0
for w in $(workloads); do
    have_program "$w" || continue
    if ! runs_transactions "$w"; then
        echo "$name: $w runs no transactions: skipped"
        continue
    fi
    ran=$((ran + 1))
    for op in $(ops "$w"); do
        # shellcheck disable=SC2046 # op_flag gives no word or two
        run_mode "$w" gpm "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --log hcl $(op_flag "$op")
        best="" stop=0 skipped=""
        for p in ${PARTITIONS:-2048 256 64 16 4 1}; do
            if [ "$stop" -eq 1 ]; then
                skipped="$skipped $p"
                continue
            fi
            # shellcheck disable=SC2046
            run_mode "$w" gpm "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --log conv --partitions "$p" \
                $(op_flag "$op") || continue
            t=$(last_field "$RESULTS_DIR/$name.tsv" median_s)
            if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
                best=$t
            elif awk -v t="$t" -v b="$best" -v r="${STOP_RATIO:-4}" 'BEGIN { exit !(r > 0 && t > r * b) }'; then
                stop=1
                echo "$name: $w ($op): $p partitions took $t s, over ${STOP_RATIO:-4}x the best ($best s)"
            fi
        done
        [ -z "$skipped" ] || echo "$name: $w ($op): not run with$skipped partitions (fewer: only more contention)"
    done
done
some_ran "$ran" "runs transactions"
finish "all runs verified; rows in $RESULTS_DIR/$name.tsv"
