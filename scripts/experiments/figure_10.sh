#!/bin/sh
# Figure 10: every workload of WORKLOADS in CAP-fs, GPM-NDP, GPM, GPM-eADR and
# CAP-eADR, rows appended to $RESULTS_DIR/figure_10.tsv (report:
# scripts/report/figure_10.py).
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS (comma list, any case), REPS (default 5), GPM_PM_DIR (optional).
# A run that fails or does not verify is reported and the others still run;
# the script then exits 1.
set -u
name=figure_10
modes="cap-fs gpm-ndp gpm gpm-eadr cap-eadr"
: "${GPM_BIN:?$name: set GPM_BIN to the programs folder (make $name sets it)}"
RESULTS_DIR=${RESULTS_DIR:-results/local}
out=$RESULTS_DIR/$name.tsv
mkdir -p "$RESULTS_DIR"
failed=""
for w in $(echo "${WORKLOADS:-ps,blk}" | tr 'A-Z,' 'a-z '); do
    if [ ! -x "$GPM_BIN/$w" ]; then
        echo "$name: FAILED: no workload program $GPM_BIN/$w (check WORKLOADS=${WORKLOADS:-})" >&2
        failed="$failed $w"
        continue
    fi
    for m in $modes; do
        echo "$name: $w --mode $m --scale ${SCALE:-small}"
        "$GPM_BIN/$w" --mode "$m" --scale "${SCALE:-small}" --reps "${REPS:-5}" \
            --cpu-threads best ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} --out "$out"
        rc=$?
        if [ "$rc" -ne 0 ]; then
            echo "$name: FAILED: $w --mode $m exited with status $rc (unverified or error; its row, if any, says verified=fail)" >&2
            failed="$failed $w/$m"
        fi
    done
done
if [ -n "$failed" ]; then
    echo "$name: FAILED runs:$failed" >&2
    exit 1
fi
echo "$name: all runs verified; rows in $out"
