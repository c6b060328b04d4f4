#!/bin/sh
# YCSB on GPHash (GPHash's Figures 5, 6 and 9): its core workloads (YCSB,
# default load a b c d f) in gpm with BktCache and without it (--cache 0),
# in none (the table in GPU memory, nothing persisted: what the index costs
# without PM) and on its CPU counterpart; then the throughput-latency curve
# of gpm over batch sizes (BATCHES, default 2^10 to 2^20, by 4) for the
# workloads of SWEEP_YCSB (default a c). Rows appended to
# $RESULTS_DIR/figure_ycsb.tsv (report: scripts/report/figure_ycsb.py).
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (it runs where they include gphash), REPS (default 5), YCSB,
# SWEEP_YCSB, BATCHES, GPM_PM_DIR (optional).
set -u
name=figure_ycsb
. "$(dirname "$0")/lib.sh"
out=$RESULTS_DIR/$name.tsv
reps=${REPS:-5}
ran=0
for w in $(workloads); do
    [ "$w" = gphash ] && have_program gphash || continue
    ran=1
    for y in $(echo "${YCSB:-load a b c d f}" | tr "," " "); do
        run_mode gphash gpm "$reps" "$out" --workload "$y"
        run_mode gphash gpm "$reps" "$out" --workload "$y" --cache 0
        run_mode gphash none "$reps" "$out" --workload "$y"
        run_mode gphash cpu "$reps" "$out" --workload "$y"
    done
    for y in $(echo "${SWEEP_YCSB:-a c}" | tr "," " "); do
        for b in ${BATCHES:-1024 4096 16384 65536 262144 1048576}; do
            run_mode gphash gpm "$reps" "$out" --workload "$y" --batch "$b"
        done
    done
done
some_ran "$ran" "is gphash"
finish "all runs verified; rows in $out"
