#!/bin/sh
# Table 4: write amplification, bytes persisted by CAP-mm and CAP-fs over
# bytes persisted by GPM. Reuses verified rows of $RESULTS_DIR/figure_9.tsv
# of this SCALE and revision where present; runs only the missing modes, appending to
# $RESULTS_DIR/table_4.tsv (bytes per repetition do not depend on REPS,
# default 1 here). Report: scripts/report/table_4.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, WORKLOADS, REPS, GPM_PM_DIR.
# A workload without cap-fs, the baseline here, is skipped, and one line
# says so.
set -u
name=table_4
. "$(dirname "$0")/lib.sh"
out=$RESULTS_DIR/$name.tsv

ran=0
for w in $(workloads); do
    have_program "$w" && skip_without_mode "$w" cap-fs || continue
    ran=$((ran + 1))
    for op in $(ops "$w"); do
        for m in gpm cap-mm cap-fs; do
            if have_row "$RESULTS_DIR/figure_9.tsv" "$w" "$m" "$op"; then
                echo "$name: $w --mode $m ($op): reusing the verified row of figure_9.tsv (scale $SCALE, this revision)"
                continue
            fi
            # shellcheck disable=SC2046 # op_flag gives no word or two
            run_mode "$w" "$m" "${REPS:-1}" "$out" --cpu-threads best $(op_flag "$op")
        done
    done
done
some_ran "$ran" "has the mode cap-fs"
finish "rows in $RESULTS_DIR/figure_9.tsv and $out"
