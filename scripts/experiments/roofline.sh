#!/bin/sh
# The persistence roofline: this machine's roofs (gpm-roofs: the link's
# write bandwidth, the rates of coalesced, random and strided fenced
# persists and of scattered unfenced 16-byte writes, the fence latency, the
# batch path's roofs (scattered records with a fence per warp, GPHash's
# update, fences alone, independent and dependent reads of PM, the floor
# of one synchronous batch with stream calls and as a CUDA Graph), and
# CAP's copy, flush and file-write rates),
# measured once per revision, host and size (64 MiB at tiny scale, else
# 1 GiB, and at paper scale the scattered records, GPHash's update, and
# updates beside reads of device memory again over 8 GiB) into
# $RESULTS_DIR/roofs.tsv; then every workload of
# WORKLOADS (each of its operations) in none (the volatile baseline V), gpm,
# cap-mm and cap-fs, rows appended to $RESULTS_DIR/roofline.tsv (report:
# scripts/report/roofline.py holds each against its bound). A verified row
# of $RESULTS_DIR/figure_9.tsv of this SCALE and revision is copied rather
# than run again (make figure_9 runs gpm, cap-mm and cap-fs the same way).
# The key-value stores' YCSB (gphash --workload Y, kvs --op ycsb --workload
# Y, for Y in ROOF_YCSB, default a load) run in none and gpm, a verified
# row of figure_ycsb.tsv (or figure_9.tsv) run with the same flags copied
# instead; the report holds them against the batch path's bound.
# Environment (scripts/experiment.sh sets it): GPM_BIN, RESULTS_DIR, SCALE,
# WORKLOADS, OPS, REPS (default 5), ROOF_YCSB, GPM_PM_DIR (optional),
# ROOFS=again (measure the roofs even where this revision and host have
# them). A workload without cap-fs, the baseline here, is skipped, and one
# line says so, unless it runs YCSB.
set -u
name=roofline
. "$(dirname "$0")/lib.sh"
roofs=$RESULTS_DIR/roofs.tsv
case $SCALE in tiny) size=64M bytes=67108864 ;; *) size=1G bytes=1073741824 ;; esac
# have_roofs: roofs.tsv holds every probe (26 of them, by op) of this
# revision and host at this size (a small file fits caches that a large
# one does not).
have_roofs() {
    [ -f "$roofs" ] || return 1
    _info=$("$GPM_BIN/gpm-info" 2>/dev/null)
    _rev=$(echo "$_info" | awk -F'\t' '$1 == "git_rev" { print $2 }')
    _host=$(echo "$_info" | awk -F'\t' '$1 == "host" { print $2 }')
    awk -F'\t' -v rev="$_rev" -v host="$_host" -v bytes="$bytes" '
        /^#/ { next }
        !hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
        $c["git_rev"] == rev && $c["host"] == host && $c["size_bytes"] == bytes &&
        $c["verified"] == "ok" && !($c["op"] in seen) { seen[$c["op"]] = 1; n++ }
        END { exit n < 26 }' "$roofs"
}
# ycsb_op W: the operation under which W runs YCSB's workloads (gphash's
# one, gpKVS's --op ycsb), or status 1 for a workload without them.
ycsb_op() {
    case $1 in gphash) echo run ;; kvs) echo ycsb ;; *) return 1 ;; esac
}
if [ "${ROOFS:-}" = again ] || ! have_roofs; then
    echo "$name: gpm-roofs --size $size"
    "$GPM_BIN/gpm-roofs" --size "$size" --scale "$SCALE" --file "roofs-$$.pm" --out "$roofs" ||
        failed="$failed gpm-roofs"
    # The key-value stores' tables span more than 1 GiB at paper scale, and
    # a scattered record costs more as the records spread (the GPU
    # translates each page of host memory it writes: 3.6x from 1 to 8 GiB
    # on an H100); the report takes the records' roof over the table's span.
    # Whether a batch's lookups in GPU memory and its persists can overlap
    # there: updates beside device reads, each alone and both at once.
    if [ "$SCALE" = paper ]; then
        probes=write-scatter,update-in,update-half,dev-read128,update-beside
        echo "$name: gpm-roofs --size 8G --probes $probes"
        "$GPM_BIN/gpm-roofs" --size 8G --scale "$SCALE" --probes "$probes" \
            --file "roofs-$$.pm" --out "$roofs" || failed="$failed gpm-roofs-8G"
    fi
else
    echo "$name: roofs of this revision and host kept from $roofs (ROOFS=again measures them anew)"
fi
ran=0
for w in $(workloads); do
    have_program "$w" || continue
    ycsb_op "$w" >/dev/null && ! has_mode "$GPM_BIN" "$w" cap-fs && continue # YCSB's, below
    skip_without_mode "$w" cap-fs || continue
    ran=$((ran + 1))
    for op in $(ops "$w"); do
        modes="none gpm cap-mm cap-fs"
        # YCSB's operation: none and gpm below, for each of ROOF_YCSB
        [ "$op" = "$(ycsb_op "$w")" ] && modes="cap-mm cap-fs"
        for m in $modes; do
            if have_row "$RESULTS_DIR/figure_9.tsv" "$w" "$m" "$op"; then
                echo "$name: $w --mode $m ($op): the verified row of figure_9.tsv (scale $SCALE, this revision) copied"
                copy_row "$RESULTS_DIR/figure_9.tsv" "$RESULTS_DIR/$name.tsv" "$w" "$m" "$op"
                continue
            fi
            # shellcheck disable=SC2046 # op_flag gives no word or two
            run_mode "$w" "$m" "${REPS:-5}" "$RESULTS_DIR/$name.tsv" --cpu-threads best $(op_flag "$op")
        done
    done
done
# YCSB: a row to reuse must hold the workload and, for GPHash, the defaults
# of the flags that figure_ycsb.sh varies (BktCache, batch, key and value,
# and in gpm the mirror: its --mirror 0 rows hold the other defaults).
for w in $(workloads); do
    op=$(ycsb_op "$w") || continue
    [ -x "$GPM_BIN/$w" ] || continue
    case " $(ops "$w") " in *" $op "*) ;; *) continue ;; esac
    ran=$((ran + 1))
    for y in $(echo "${ROOF_YCSB:-a load}" | tr "," " "); do
        want=workload=$y
        [ "$w" = gphash ] &&
            want="$want,batch=4096,cache=20,key-bytes=32,value-bytes=128,cache-loading=concurrent"
        for m in none gpm; do
            mwant=$want
            [ "$w.$m" = gphash.gpm ] && mwant="$want,mirror=1"
            for from in figure_ycsb figure_9; do
                have_row "$RESULTS_DIR/$from.tsv" "$w" "$m" "$op" "$mwant" || continue
                echo "$name: $w --mode $m --workload $y: the verified row of $from.tsv (scale $SCALE, this revision) copied"
                copy_row "$RESULTS_DIR/$from.tsv" "$RESULTS_DIR/$name.tsv" "$w" "$m" "$op" "$mwant"
                continue 2
            done
            # shellcheck disable=SC2046 # op_flag gives no word or two
            run_mode "$w" "$m" "${REPS:-5}" "$RESULTS_DIR/$name.tsv" $(op_flag "$op") --workload "$y"
        done
    done
done
some_ran "$ran" "has the mode cap-fs or runs YCSB"
finish "all runs verified; rows in $RESULTS_DIR/$name.tsv and $roofs"
