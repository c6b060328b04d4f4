#!/bin/sh
# Figure 1b: GPM against the CPU counterpart of every workload of WORKLOADS
# that has one (--mode cpu: OpenMP threads persisting the same data through
# libpmem; BFS, SRAD and PS), rows appended to $RESULTS_DIR/figure_1b.tsv
# (report: scripts/report/figure_1b.py). GPM is also Figure 9's mode: its
# verified row in $RESULTS_DIR/figure_9.tsv of this SCALE and revision is
# reused rather than run again. Workloads without a CPU counterpart are
# named and skipped (the paper's Figure 1b has only the native ones).
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (comma list, any case), REPS (default 5), GPM_PM_DIR (optional).
set -u
name=figure_1b
. "$(dirname "$0")/lib.sh"
ran=0
for w in $(workloads); do
    have_program "$w" || continue
    case " $(workload_modes "$GPM_BIN" "$w") " in
        *" cpu "*) ;;
        *) echo "$name: $w has no CPU counterpart (--mode cpu): skipped"; continue ;;
    esac
    ran=$((ran + 1))
    for op in $(ops "$w"); do
        # shellcheck disable=SC2046 # op_flag gives no word or two
        run_mode "$w" cpu "${REPS:-5}" "$RESULTS_DIR/$name.tsv" $(op_flag "$op")
        if have_row "$RESULTS_DIR/figure_9.tsv" "$w" gpm "$op"; then
            echo "$name: $w --mode gpm ($op): reusing the verified row of figure_9.tsv (scale $SCALE, this revision)"
        else
            # shellcheck disable=SC2046
            run_mode "$w" gpm "${REPS:-5}" "$RESULTS_DIR/$name.tsv" $(op_flag "$op")
        fi
    done
done
some_ran "$ran" "has a CPU counterpart"
finish "all runs verified; rows in $RESULTS_DIR/$name.tsv"
