#!/bin/sh
# Table 4: write amplification, bytes persisted by CAP-mm and CAP-fs over
# bytes persisted by GPM. Reuses verified rows of $RESULTS_DIR/figure_9.tsv
# for this SCALE where present; runs only the missing modes, appending to
# $RESULTS_DIR/table_4.tsv (bytes per repetition do not depend on REPS,
# default 1 here). Report: scripts/report/table_4.py.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, WORKLOADS, REPS, GPM_PM_DIR.
set -u
name=table_4
: "${GPM_BIN:?$name: set GPM_BIN to the programs folder (make $name sets it)}"
RESULTS_DIR=${RESULTS_DIR:-results/local}
SCALE=${SCALE:-small}
out=$RESULTS_DIR/$name.tsv
mkdir -p "$RESULTS_DIR"

# have_row FILE WORKLOAD MODE: a verified run row of this scale is in FILE.
have_row() {
    [ -f "$1" ] || return 1
    awk -F'\t' -v w="$2" -v m="$3" -v s="$SCALE" '
        /^#/ { next }
        !hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
        $c["workload"] == w && $c["mode"] == m && $c["scale"] == s &&
        $c["op"] == "run" && $c["verified"] == "ok" { found = 1 }
        END { exit !found }' "$1"
}

failed=""
for w in $(echo "${WORKLOADS:-ps,blk}" | tr 'A-Z,' 'a-z '); do
    if [ ! -x "$GPM_BIN/$w" ]; then
        echo "$name: FAILED: no workload program $GPM_BIN/$w (check WORKLOADS=${WORKLOADS:-})" >&2
        failed="$failed $w"
        continue
    fi
    for m in gpm cap-mm cap-fs; do
        if have_row "$RESULTS_DIR/figure_9.tsv" "$w" "$m"; then
            echo "$name: $w --mode $m: reusing the verified row of figure_9.tsv (scale $SCALE)"
            continue
        fi
        echo "$name: $w --mode $m --scale $SCALE"
        "$GPM_BIN/$w" --mode "$m" --scale "$SCALE" --reps "${REPS:-1}" \
            --cpu-threads best ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} --out "$out"
        rc=$?
        if [ "$rc" -ne 0 ]; then
            echo "$name: FAILED: $w --mode $m exited with status $rc" >&2
            failed="$failed $w/$m"
        fi
    done
done
if [ -n "$failed" ]; then
    echo "$name: FAILED runs:$failed" >&2
    exit 1
fi
echo "$name: rows in $RESULTS_DIR/figure_9.tsv and $out"
