#!/bin/sh
# Paper Figure 11b: undo-log insert latency against the number of concurrent
# logging threads, HCL against conventional partitioned logging. Rows go to
# $RESULTS_DIR/figure_11b.tsv (workload=log-scaling, op=hcl|conv).
# Set by scripts/experiment.sh: GPM_BIN, RESULTS_DIR, SCALE (tiny: up to 2K
# threads, small: up to 128K, paper: up to 512K).
# FIGURE_11B_ARGS adds options of gpm-log-scaling (e.g. "--partitions 128").
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
