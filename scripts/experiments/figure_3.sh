#!/bin/sh
# Paper Figure 3: persisting with more CPU threads (CAP-mm) against more GPU
# threads (GPM, a persist after every 8-byte store), with the same GPU writes
# unpersisted as the link's ceiling. Rows go to $RESULTS_DIR/figure_3.tsv.
# Set by scripts/experiment.sh: GPM_BIN, RESULTS_DIR, SCALE (tiny: 64 MiB so
# that a test runs it in seconds; small and paper: the paper's 1 GiB).
# FIGURE_3_ARGS adds options of gpm-persist-scaling (e.g. "--block 512").
set -eu
case "${SCALE:-small}" in
tiny) size=64M ;;
small | paper) size=1G ;;
*)
    echo "figure_3: SCALE=$SCALE is not one of tiny, small, paper" >&2
    exit 2
    ;;
esac
mkdir -p "$RESULTS_DIR"
# shellcheck disable=SC2086 # FIGURE_3_ARGS is a list of options
exec "$GPM_BIN/gpm-persist-scaling" --size "$size" --scale "${SCALE:-small}" \
    --file "figure_3-$$.pm" --out "$RESULTS_DIR/figure_3.tsv" ${FIGURE_3_ARGS:-}
