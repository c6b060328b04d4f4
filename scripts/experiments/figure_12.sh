#!/bin/sh
# Figure 12: write bandwidth to PM under GPM per workload (each of its
# operations): bytes persisted over the operation time, beside the GPU's
# PCIe transmit throughput that the harness samples through NVML during the
# run (pcie_tx_gbps in the row, where the driver offers it). GPM is Figure
# 9's mode: its verified rows in $RESULTS_DIR/figure_9.tsv of this SCALE and
# revision are reused; otherwise the runs are appended to
# $RESULTS_DIR/figure_12.tsv. The link's ceiling comes from Figure 3's rows
# (make figure_3). Report: scripts/report/figure_12.py.
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (comma list, any case), REPS (default 5), GPM_PM_DIR (optional).
set -u
name=figure_12
. "$(dirname "$0")/lib.sh"
for w in $(workloads); do
    have_program "$w" || continue
    for op in $(ops "$w"); do
        if have_row "$RESULTS_DIR/figure_9.tsv" "$w" gpm "$op"; then
            echo "$name: $w --mode gpm ($op): reusing the verified row of figure_9.tsv (scale $SCALE, this revision)"
            continue
        fi
        # shellcheck disable=SC2046 # op_flag gives no word or two
        run_mode "$w" gpm "${REPS:-5}" "$RESULTS_DIR/$name.tsv" $(op_flag "$op")
    done
done
finish "all runs verified; rows in $RESULTS_DIR/figure_9.tsv and $RESULTS_DIR/$name.tsv"
