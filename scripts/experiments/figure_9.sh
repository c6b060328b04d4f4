#!/bin/sh
# Figure 9: every workload of WORKLOADS (each of its operations) in CAP-fs,
# CAP-mm and GPM, in cap-delta where the workload has it (the CPU-assisted
# transactions beside the paper's CAP), and in cap-gds (GPUDirect Storage)
# where libcufile loads, rows appended to
# $RESULTS_DIR/figure_9.tsv (report: scripts/report/figure_9.py).
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (comma list, any case), REPS (default 5), GPM_PM_DIR (optional).
# A run that fails or does not verify is reported and the others still run;
# the script then exits 1.
# A workload without cap-fs, the baseline here, is skipped, and one line
# says so.
set -u
name=figure_9
. "$(dirname "$0")/lib.sh"
ran=0
for w in $(workloads); do
    have_program "$w" && skip_without_mode "$w" cap-fs || continue
    ran=$((ran + 1))
    for op in $(ops "$w"); do
        extra=""
        has_mode "$GPM_BIN" "$w" cap-delta && extra=cap-delta
        for m in cap-fs cap-mm gpm $extra $(gds_mode "$w"); do
            # shellcheck disable=SC2046 # op_flag gives no word or two
            run_mode "$w" "$m" "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --cpu-threads best $(op_flag "$op")
        done
    done
done
some_ran "$ran" "has the mode cap-fs"
finish "all runs verified; rows in $RESULTS_DIR/$name.tsv"
