#!/bin/sh
# Paper Figure 11b: undo-log insert latency against the number of concurrent
# logging threads, HCL against conventional partitioned logging. Rows go to
# $RESULTS_DIR/figure_11b.tsv (workload=log-scaling, op=hcl|conv, the
# partition count in params). Conventional logging is swept over partition
# counts 1,4,...,65536 (those up to the thread count) so that the report can
# take it at its best count per thread count.
# Set by scripts/experiment.sh: GPM_BIN, RESULTS_DIR, SCALE (tiny: up to 2K
# threads, small: up to 128K, paper: up to 512K).
# Time: one kernel per point and repetition (5 + a warm-up); the slowest is
# one partition, whose appends all take turns under one lock: about 1 s a
# kernel at 128K threads if an append holds the lock for ~8 us (as the
# 64-partition rows of results/h200-dram suggest), so SCALE=small takes
# about 10 s of kernels (plus ~50 log files made and removed), SCALE=paper
# (512K threads) about a minute.
# FIGURE_11B_ARGS adds options of gpm-log-scaling (e.g. "--partitions
# 16,256,4096" for a shorter sweep).
set -eu
case "${SCALE:-small}" in
tiny | small | paper) ;;
*)
    echo "figure_11b: SCALE=$SCALE is not one of tiny, small, paper" >&2
    exit 2
    ;;
esac
mkdir -p "$RESULTS_DIR"
# shellcheck disable=SC2086 # FIGURE_11B_ARGS is a list of options
exec "$GPM_BIN/gpm-log-scaling" --scale "${SCALE:-small}" \
    --out "$RESULTS_DIR/figure_11b.tsv" ${FIGURE_11B_ARGS:-}
