#!/bin/sh
# Figure 1a: gpKVS's batched SETs under GPM against three CPU key-value
# stores on the same PM directory, fed the same keys, values and batches:
# gpKVS's own CPU counterpart (libpmem, undo logging), a PMDK libpmemobj
# hash table and RocksDB (kvs --mode cpu --store kvs|pmemobj|rocksdb). Each
# store is swept over CPU thread counts (THREADS, default 1, 2, 4, ... up to
# the cores), each count run SWEEP_REPS times (default 1), and then its
# fastest count runs again with REPS repetitions: at paper scale a RocksDB
# repetition takes minutes, and REPS at every count would take hours. The
# report takes each store's rows with the most repetitions. Rows appended to
# $RESULTS_DIR/figure_1a.tsv (report: scripts/report/figure_1a.py); GPM's
# verified row in figure_9.tsv of this SCALE and revision is reused.
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (others than kvs are named and skipped), REPS (default 5),
# SWEEP_REPS, THREADS, STORES (default "kvs pmemobj rocksdb": a paper-scale
# sweep of all three takes longer than some sittings), GPM_PM_DIR (optional).
set -u
name=figure_1a
. "$(dirname "$0")/lib.sh"
threads=${THREADS:-$(n=$(nproc) t=1; while [ "$t" -le "$n" ]; do printf '%s ' "$t"; t=$((t * 2)); done)}
stores=$(echo "${STORES:-kvs pmemobj rocksdb}" | tr ',' ' ')
for store in $stores; do
    case $store in kvs | pmemobj | rocksdb) ;;
        *) echo "$name: STORES: no store '$store'; the stores are kvs, pmemobj and rocksdb" >&2
           exit 2 ;;
    esac
done
ran=0
for w in $(workloads); do
    have_program "$w" || continue
    [ "$w" = kvs ] || { echo "$name: $w skipped: Figure 1a is gpKVS's (kvs)"; continue; }
    ran=1
    for store in $stores; do
        best="" best_s=""
        for t in $threads; do
            run_mode kvs cpu "${SWEEP_REPS:-1}" "$RESULTS_DIR/$name.tsv" --op set \
                --store "$store" --cpu-threads "$t" || continue
            s=$(last_field "$RESULTS_DIR/$name.tsv" median_s)
            if [ -z "$best" ] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
                best=$t best_s=$s
            fi
        done
        if [ -n "$best" ] && [ "${REPS:-5}" -gt "${SWEEP_REPS:-1}" ]; then
            echo "$name: $store is fastest at $best threads ($best_s s): ${REPS:-5} repetitions there"
            run_mode kvs cpu "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --op set --store "$store" \
                --cpu-threads "$best"
        fi
    done
    if have_row "$RESULTS_DIR/figure_9.tsv" kvs gpm set; then
        echo "$name: kvs --mode gpm (set): reusing the verified row of figure_9.tsv (scale $SCALE, this revision)"
    else
        run_mode kvs gpm "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --op set
    fi
done
some_ran "$ran" "is gpKVS (kvs)"
finish "all runs verified; rows in $RESULTS_DIR/$name.tsv"
