#!/bin/sh
# YCSB on GPHash (GPHash's Figures 5, 6 and 9) and on gpKVS, the same
# stream: YCSB's core workloads (YCSB, default load a b c d f) on GPHash in
# gpm (lookups from its mirror in GPU memory), with lookups from PM
# (--mirror 0) with BktCache and without it (--cache 0), with 8-byte keys and values
# as gpKVS holds them (gpm-k8), in none (the table in GPU memory, nothing
# persisted: what the index costs without PM), in cap-delta (each batch's
# changed words made durable by the CPU through a redo log) and on its CPU
# counterpart;
# on gpKVS (--op ycsb) in each of KVS_MODES (default gpm cap-delta cpu) and
# in Figure 1a's CPU stores (STORES, default pmemobj rocksdb); then the
# throughput-latency curve of GPHash's gpm over batch sizes (BATCHES,
# default 2^10 to 2^20, by 4) for the workloads of SWEEP_YCSB (default a
# c). Rows appended to $RESULTS_DIR/figure_ycsb.tsv (report:
# scripts/report/figure_ycsb.py).
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (it runs those of gphash and kvs they include), REPS (default
# 5), YCSB, KVS_MODES, STORES, SWEEP_YCSB, BATCHES, GPM_PM_DIR (optional).
set -u
name=figure_ycsb
. "$(dirname "$0")/lib.sh"
out=$RESULTS_DIR/$name.tsv
reps=${REPS:-5}
ran=0
ycsb=$(echo "${YCSB:-load a b c d f}" | tr "," " ")
for w in $(workloads); do
    case $w in gphash|kvs) have_program "$w" || continue ;; *) continue ;; esac
    ran=1
    for y in $ycsb; do
        if [ "$w" = kvs ]; then
            for m in ${KVS_MODES:-gpm cap-delta cpu}; do
                run_mode kvs "$m" "$reps" "$out" --op ycsb --workload "$y"
            done
            for s in ${STORES:-pmemobj rocksdb}; do
                run_mode kvs cpu "$reps" "$out" --op ycsb --workload "$y" --store "$s"
            done
            continue
        fi
        run_mode gphash gpm "$reps" "$out" --workload "$y"
        run_mode gphash gpm "$reps" "$out" --workload "$y" --mirror 0
        run_mode gphash gpm "$reps" "$out" --workload "$y" --mirror 0 --cache 0
        run_mode gphash gpm "$reps" "$out" --workload "$y" --key-bytes 8 --value-bytes 8
        run_mode gphash none "$reps" "$out" --workload "$y"
        run_mode gphash cap-delta "$reps" "$out" --workload "$y"
        run_mode gphash cpu "$reps" "$out" --workload "$y"
    done
    [ "$w" = gphash ] || continue
    for y in $(echo "${SWEEP_YCSB:-a c}" | tr "," " "); do
        for b in ${BATCHES:-1024 4096 16384 65536 262144 1048576}; do
            run_mode gphash gpm "$reps" "$out" --workload "$y" --batch "$b"
        done
    done
done
some_ran "$ran" "is gphash or kvs"
finish "all runs verified; rows in $out"
