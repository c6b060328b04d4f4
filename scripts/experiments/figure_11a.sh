#!/bin/sh
# Figure 11a: the transactional workloads (those with --crash-before-commit)
# in GPM mode with HCL and with the conventional log, swept over its
# partition count (PARTITIONS, default "1 4 16 64 256": the grid has 256
# blocks, and a block logs into partition block % P), each operation; rows
# appended to $RESULTS_DIR/figure_11a.tsv (report: scripts/report/
# figure_11a.py, which sets HCL against the conventional log at its best
# count, and says which).
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
        for p in ${PARTITIONS:-1 4 16 64 256}; do
            # shellcheck disable=SC2046
            run_mode "$w" gpm "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --log conv --partitions "$p" \
                $(op_flag "$op")
        done
    done
done
some_ran "$ran" "runs transactions"
finish "all runs verified; rows in $RESULTS_DIR/$name.tsv"
