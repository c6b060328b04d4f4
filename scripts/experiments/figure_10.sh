#!/bin/sh
# Figure 10: every workload of WORKLOADS in CAP-fs, GPM-NDP, GPM, GPM-eADR,
# CAP-eADR and, where libcufile loads, CAP-gds, rows appended to
# $RESULTS_DIR/figure_10.tsv (report: scripts/report/figure_10.py). CAP-fs,
# GPM and CAP-gds are Figure 9's modes too: their
# verified rows in $RESULTS_DIR/figure_9.tsv of this SCALE and revision are
# reused rather than run again.
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (comma list, any case), REPS (default 5), GPM_PM_DIR (optional).
# A run that fails or does not verify is reported and the others still run;
# the script then exits 1.
# A workload without cap-fs, the baseline here, is skipped, and one line
# says so.
set -u
name=figure_10
. "$(dirname "$0")/lib.sh"
ran=0
for w in $(workloads); do
    have_program "$w" && skip_without_mode "$w" cap-fs || continue
    ran=$((ran + 1))
    for op in $(ops "$w"); do
        for m in cap-fs gpm-ndp gpm gpm-eadr cap-eadr $(gds_mode "$w"); do
            case $m in cap-fs | gpm | cap-gds)
                if have_row "$RESULTS_DIR/figure_9.tsv" "$w" "$m" "$op"; then
                    echo "$name: $w --mode $m ($op): reusing the verified row of figure_9.tsv (scale $SCALE, this revision)"
                    continue
                fi ;;
            esac
            # shellcheck disable=SC2046 # op_flag gives no word or two
            run_mode "$w" "$m" "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --cpu-threads best $(op_flag "$op")
        done
    done
done
some_ran "$ran" "has the mode cap-fs"
finish "all runs verified; rows in $RESULTS_DIR/$name.tsv"
