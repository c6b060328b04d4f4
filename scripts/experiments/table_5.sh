#!/bin/sh
# Table 5: restoration latency as a percentage of the operation time. Per
# workload: a normal GPM run that keeps its PM file (op=run), then a
# --recover run on that file (op=recover; its median_s is the time to
# restore from PM), both appended to $RESULTS_DIR/table_5.tsv.
# Report: scripts/report/table_5.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, WORKLOADS, REPS (default 5),
# GPM_PM_DIR.
set -u
name=table_5
: "${GPM_BIN:?$name: set GPM_BIN to the programs folder (make $name sets it)}"
RESULTS_DIR=${RESULTS_DIR:-results/local}
SCALE=${SCALE:-small}
out=$RESULTS_DIR/$name.tsv
mkdir -p "$RESULTS_DIR"
failed=""
for w in $(echo "${WORKLOADS:-ps,blk}" | tr 'A-Z,' 'a-z '); do
    if [ ! -x "$GPM_BIN/$w" ]; then
        echo "$name: FAILED: no workload program $GPM_BIN/$w (check WORKLOADS=${WORKLOADS:-})" >&2
        failed="$failed $w"
        continue
    fi
    echo "$name: $w --mode gpm --scale $SCALE --keep"
    if ! "$GPM_BIN/$w" --mode gpm --scale "$SCALE" --reps "${REPS:-5}" --keep \
            ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} --out "$out"; then
        echo "$name: FAILED: $w --mode gpm (the run before recovery) failed; recovery not measured" >&2
        failed="$failed $w/run"
        continue
    fi
    echo "$name: $w --mode gpm --scale $SCALE --recover"
    if ! "$GPM_BIN/$w" --mode gpm --scale "$SCALE" --reps "${REPS:-5}" --recover \
            ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} --out "$out"; then
        echo "$name: FAILED: $w --mode gpm --recover failed or did not verify" >&2
        failed="$failed $w/recover"
    fi
done
if [ -n "$failed" ]; then
    echo "$name: FAILED runs:$failed" >&2
    exit 1
fi
echo "$name: rows in $out"
