#!/bin/sh
# Table 5: restoration latency as a percentage of the operation time. Per
# workload: a normal GPM run that keeps its PM file (op=run), then a
# --recover run on that file (op=recover; its median_s is the time to
# restore from PM), both appended to $RESULTS_DIR/table_5.tsv.
# Transactional workloads (those with --kill commit:N) restore the
# paper's way: a run killed just before its first commit, then --recover
# (its median_s: the undo of the whole batch and the reload of what the GPU
# holds; undo_s in its params: the undo alone).
# Report: scripts/report/table_5.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, WORKLOADS, REPS (default 5),
# GPM_PM_DIR.
set -u
name=table_5
. "$(dirname "$0")/lib.sh"
out=$RESULTS_DIR/$name.tsv
for w in $(workloads); do
    have_program "$w" || continue
    tx=0
    runs_transactions "$w" && tx=1
    for op in $(ops "$w"); do
        if [ "$tx" -eq 1 ]; then
            # Transactional: the paper's way, the undo of a batch killed just
            # before its commit (the worst case), after a normal run's time.
            # shellcheck disable=SC2046 # op_flag gives no word or two
            run_mode "$w" gpm "${REPS:-5}" "$out" $(op_flag "$op") || continue
            echo "$name: $w --mode gpm --kill commit:1 ($op)"
            # shellcheck disable=SC2046
            "$GPM_BIN/$w" --mode gpm --scale "$SCALE" --reps 1 --keep --kill commit:1 \
                ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} $(op_flag "$op") >/dev/null 2>&1
            if [ $? -ne 137 ]; then
                echo "$name: FAILED: $w ($op) was not killed before its first commit" >&2
                failed="$failed $w/$op"
                continue
            fi
        else
            # The run keeps its PM file for the recovery; a failed run has none.
            # shellcheck disable=SC2046
            run_mode "$w" gpm "${REPS:-5}" "$out" --keep $(op_flag "$op") || continue
        fi
        # shellcheck disable=SC2046
        run_mode "$w" gpm 1 "$out" --recover $(op_flag "$op")
    done
done
finish "rows in $out"
