#!/bin/sh
# Table 5: restoration latency as a percentage of the operation time. Per
# workload: a normal GPM run that keeps its PM file (op=run), then a
# --recover run on that file (op=recover; its median_s is the time to
# restore from PM), both appended to $RESULTS_DIR/table_5.tsv.
# Report: scripts/report/table_5.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, WORKLOADS, REPS (default 5),
# GPM_PM_DIR.
set -u
name=table_5
. "$(dirname "$0")/lib.sh"
out=$RESULTS_DIR/$name.tsv
for w in $(workloads); do
    have_program "$w" || continue
    for op in $(ops "$w"); do
        # The run keeps its PM file for the recovery; a failed run has none.
        # shellcheck disable=SC2046 # op_flag gives no word or two
        run_mode "$w" gpm "${REPS:-5}" "$out" --keep $(op_flag "$op") || continue
        # shellcheck disable=SC2046
        run_mode "$w" gpm 1 "$out" --recover $(op_flag "$op")
    done
done
finish "rows in $out"
