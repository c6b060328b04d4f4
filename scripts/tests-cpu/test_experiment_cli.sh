#!/bin/sh
# The experiment dispatcher and the experiment scripts of Figures 9/10,
# Tables 4/5 and the crash campaign: an unknown target, a missing workload
# program (any case in WORKLOADS) and a missing GPM_BIN each give a clear
# error and a non-zero exit, and nothing runs silently.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
scripts=$root/scripts
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-exp-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/results"

# expect NAME STATUS PATTERN COMMAND...: COMMAND exits with STATUS (or any
# non-zero status for "nz") and prints PATTERN.
expect() {
    name=$1 want=$2 pat=$3
    shift 3
    "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$want" = nz ] && [ "$rc" -eq 0 ]; then
        echo "not ok - $name: exited 0"
    elif [ "$want" != nz ] && [ "$rc" -ne "$want" ]; then
        echo "not ok - $name: exited $rc, expected $want: $(head -c 300 "$tmp/out")"
    elif ! grep -q -- "$pat" "$tmp/out"; then
        echo "not ok - $name: no '$pat' in: $(head -c 300 "$tmp/out")"
    else
        echo "ok - $name"
    fi
}

expect "dispatcher: unknown target" 2 "no experiment named nosuch" \
    env RESULTS_DIR="$tmp/results" "$scripts/experiment.sh" nosuch "$tmp/bin"
for t in figure_1a figure_1b figure_9 figure_10 figure_11a figure_12 table_4 table_5 crash roofline; do
    if [ -x "$scripts/experiments/$t.sh" ] && [ -f "$scripts/report/$t.py" ]; then
        echo "ok - $t has an experiment script and a report script"
    else
        echo "not ok - $t: scripts/experiments/$t.sh or scripts/report/$t.py missing"
    fi
    expect "$t: missing workload program is an error naming it" 1 "FAILED: no workload program $tmp/bin/nosuchwl" \
        env GPM_BIN="$tmp/bin" RESULTS_DIR="$tmp/results" WORKLOADS=NoSuchWL SCALE=tiny TRIALS=1 \
        "$scripts/experiments/$t.sh"
    expect "$t: without GPM_BIN" nz "set GPM_BIN" \
        env -u GPM_BIN RESULTS_DIR="$tmp/results" WORKLOADS=ps "$scripts/experiments/$t.sh"
done
# Every listed workload is tried: the second one is reported even when the first fails.
expect "figure_9: every workload of WORKLOADS is tried" 1 "FAILED runs: alpha beta" \
    env GPM_BIN="$tmp/bin" RESULTS_DIR="$tmp/results" WORKLOADS=ALPHA,beta "$scripts/experiments/figure_9.sh"
if [ -z "$(ls "$tmp/results")" ]; then
    echo "ok - failed experiments write no rows"
else
    echo "not ok - failed experiments wrote: $(ls "$tmp/results")"
fi

# A failed experiment adds no line to timing.tsv: its wall time is not that
# of the work (the CPU crash campaign needs no GPU; a missing program fails it).
if [ -x "${GPM_BIN:-}/gpm-info" ]; then
    mkdir -p "$tmp/ftime"
    printf 'target\tscale\tworkloads\tops\tstarted\twall_s\texit\tgit_rev\thost\n' >"$tmp/ftime/timing.tsv"
    env RESULTS_DIR="$tmp/ftime" REPORTS_DIR="$tmp/ftime-reports" WORKLOADS=nosuchwl SCALE=tiny \
        CRASH_MODE=cpu "$scripts/experiment.sh" crash "$GPM_BIN" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/ftime/timing.tsv")" -eq 1 ]; then
        echo "ok - a failed experiment adds no timing row"
    else
        echo "not ok - a failed experiment (exit $rc) left timing.tsv: $(cat "$tmp/ftime/timing.tsv")"
    fi
else
    echo "skip - a failed experiment adds no timing row: no ${GPM_BIN:-GPM_BIN}/gpm-info"
fi

# Without a GPU, a GPU experiment and the GPU tests each stop at once with
# one line that says so (and make no rows).
if [ ! -x "${GPM_BIN:-}/gpm-info" ]; then
    echo "skip - no-GPU checks: no ${GPM_BIN:-GPM_BIN}/gpm-info"
elif "$GPM_BIN/gpm-info" --check-gpu 2>/dev/null; then
    echo "skip - no-GPU checks: a GPU is visible"
else
    for what in "figure_9 $scripts/experiment.sh figure_9 $GPM_BIN" \
        "test-gpu $scripts/run-tests.sh gpu $GPM_BIN/.."; do
        set -- $what
        label=$1
        shift
        env RESULTS_DIR="$tmp/nogpu" "$@" >"$tmp/out" 2>&1
        rc=$?
        if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
            grep -q "^$label: no NVIDIA driver or GPU visible .*: run it on a machine with an NVIDIA GPU" "$tmp/out" &&
            [ ! -e "$tmp/nogpu" ]; then
            echo "ok - $label without a GPU: one line, exit $rc, nothing run"
        else
            echo "not ok - $label without a GPU: exit $rc: $(head -c 300 "$tmp/out")"
        fi
    done
fi

# Figure 10 reuses Figure 9's CAP-fs and GPM rows of the same scale and
# revision, and runs them again for rows of another revision. A fake
# workload records the modes it was run in; a fake gpm-info names the
# revision.
mkdir -p "$tmp/rbin" "$tmp/rres"
printf '#!/bin/sh\n[ "$1" = --help ] && echo "usage: fakewl --mode cap-fs|cap-mm|gpm|gpm-ndp|gpm-eadr|cap-eadr" && exit 0\necho "$2" >>"%s/calls"\n' "$tmp" >"$tmp/rbin/fakewl"
chmod +x "$tmp/rbin/fakewl"
printf 'git_rev\tworkload\top\tmode\tscale\tverified\n' >"$tmp/rres/figure_9.tsv"
for m in cap-fs gpm; do printf 'rev1\tfakewl\trun\t%s\ttiny\tok\n' "$m" >>"$tmp/rres/figure_9.tsv"; done
for rev in rev1 rev2; do
    printf '#!/bin/sh\nprintf "key\\tvalue\\ngit_rev\\t%s\\n"\n' "$rev" >"$tmp/rbin/gpm-info"
    chmod +x "$tmp/rbin/gpm-info"
    : >"$tmp/calls"
    env GPM_BIN="$tmp/rbin" RESULTS_DIR="$tmp/rres" WORKLOADS=fakewl SCALE=tiny \
        "$scripts/experiments/figure_10.sh" >/dev/null 2>&1
    got=$(tr '\n' ' ' <"$tmp/calls")
    case $rev in
        rev1) want="gpm-ndp gpm-eadr cap-eadr " ;;
        *) want="cap-fs gpm-ndp gpm gpm-eadr cap-eadr " ;;
    esac
    if [ "$got" = "$want" ]; then
        echo "ok - figure_10 with figure_9 rows of $rev: runs ${want% }"
    else
        echo "not ok - figure_10 with figure_9 rows of $rev: ran '$got', expected '$want'"
    fi
done

# A workload with operations: every experiment runs each of them (--op), and
# reuses rows of the same operation only.
cat >"$tmp/rbin/fakeops" <<EOF
#!/bin/sh
if [ "\$1" = --help ]; then
    echo "usage: fakeops --mode cap-fs|cap-mm|gpm|cpu [--op set|get-set] [--scale tiny|small|paper]"
    exit 0
fi
op=none
while [ \$# -gt 0 ]; do [ "\$1" = --op ] && op=\$2; shift; done
echo "\$op" >>"$tmp/calls"
EOF
chmod +x "$tmp/rbin/fakeops"
# ops_run NAME EXPERIMENT WANT: EXPERIMENT on the fake ran it with these
# operations, counted ("get-set:3 set:3").
ops_run() {
    : >"$tmp/calls"
    env GPM_BIN="$tmp/rbin" RESULTS_DIR="$tmp/rres" WORKLOADS=fakeops SCALE=tiny \
        "$scripts/experiments/$2.sh" >/dev/null 2>&1
    got=$(sort "$tmp/calls" | uniq -c | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }')
    if [ "$got" = "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: ran '$got', expected '$3'"
    fi
}
ops_run "figure_9 runs each operation in each mode" figure_9 "get-set:3 set:3"
printf 'rev2\tfakeops\tset\tgpm\ttiny\tok\n' >>"$tmp/rres/figure_9.tsv"
ops_run "figure_1b reuses the GPM row of the same operation only" figure_1b "get-set:2 set:1"

# Figure 11a sweeps the conventional log from the most partitions down and
# stops at the first count over STOP_RATIO times the best: a fake whose
# P partitions take 256/P s runs 256, 64 (4x: on) and 16 (16x: the last).
cat >"$tmp/rbin/fakelog" <<EOF
#!/bin/sh
if [ "\$1" = --help ]; then
    echo "usage: fakelog --mode gpm [--scale tiny|small|paper] [--log S] [--partitions N]"
    echo "       [--kill time:S|random|progress:K|after-progress:S[@K]|commit:N]"
    exit 0
fi
log=hcl p=0 out=/dev/null
while [ \$# -gt 0 ]; do
    case \$1 in --log) log=\$2 ;; --partitions) p=\$2 ;; --out) out=\$2 ;; esac
    shift
done
echo "\$log:\$p" >>"$tmp/calls"
[ -s "\$out" ] || printf 'workload\tmedian_s\n' >"\$out"
awk -v p="\$p" 'BEGIN { printf "fakelog\t%g\n", (p > 256 ? 1.5 : p ? 256 / p : 1) }' >>"\$out"
EOF
chmod +x "$tmp/rbin/fakelog"
: >"$tmp/calls"
mkdir -p "$tmp/f11"
env GPM_BIN="$tmp/rbin" RESULTS_DIR="$tmp/f11" WORKLOADS=fakelog SCALE=tiny \
    "$scripts/experiments/figure_11a.sh" >"$tmp/f11.log" 2>&1
got=$(tr '\n' ' ' <"$tmp/calls")
if [ "$got" = "hcl:0 conv:2048 conv:256 conv:64 conv:16 " ] &&
    grep -q "not run with 4 1 partitions" "$tmp/f11.log"; then
    echo "ok - figure_11a stops its partition sweep where fewer partitions only contend more"
else
    echo "not ok - figure_11a sweep ran '$got': $(tail -n 2 "$tmp/f11.log")"
fi

# Figure 1b runs only workloads with a CPU counterpart; fakewl lists none.
expect "figure_1b names a workload without a CPU counterpart and runs nothing" 1 \
    "fakewl has no CPU counterpart (--mode cpu): skipped" \
    env GPM_BIN="$tmp/rbin" RESULTS_DIR="$tmp/rres" WORKLOADS=fakewl SCALE=tiny \
    "$scripts/experiments/figure_1b.sh"

# Figure 1a on the real gpKVS: every CPU store at every thread count of
# THREADS, verified rows; GPM's run needs a GPU (named as failed without).
if [ -x "${GPM_BIN:-}/kvs" ]; then
    mkdir -p "$tmp/f1a"
    env RESULTS_DIR="$tmp/f1a" WORKLOADS=kvs SCALE=tiny REPS=1 THREADS="1 2" \
        "$scripts/experiments/figure_1a.sh" >"$tmp/f1a.log" 2>&1
    rows=$(grep -c "	kvs	set	cpu	tiny	.*	ok	.*,store=" "$tmp/f1a/figure_1a.tsv" 2>/dev/null)
    threads=$(awk -F'\t' 'NR > 1 { print $21 }' "$tmp/f1a/figure_1a.tsv" 2>/dev/null | sort | uniq -c |
        awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }')
    if [ "$rows" = 6 ] && [ "$threads" = "1:3 2:3" ]; then
        echo "ok - figure_1a sweeps each CPU store over THREADS (6 verified rows)"
    else
        echo "not ok - figure_1a: $rows verified store rows, threads '$threads': $(tail -n 3 "$tmp/f1a.log")"
    fi
    # More repetitions than the sweep's: each count once, then the fastest
    # count of each store again with REPS.
    mkdir -p "$tmp/f1b"
    env RESULTS_DIR="$tmp/f1b" WORKLOADS=kvs SCALE=tiny REPS=2 THREADS="1 2" \
        "$scripts/experiments/figure_1a.sh" >"$tmp/f1a.log" 2>&1
    reps=$(awk -F'\t' 'NR > 1 && $18 == "cpu" && $28 == "ok" { print $22 }' "$tmp/f1b/figure_1a.tsv" 2>/dev/null |
        sort | uniq -c | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }')
    if [ "$reps" = "1:6 2:3" ] && [ "$(grep -c "is fastest at [12] threads" "$tmp/f1a.log")" = 3 ]; then
        echo "ok - figure_1a runs each count once, then each store's fastest with REPS"
    else
        echo "not ok - figure_1a with REPS=2: rows by repetitions '$reps': $(tail -n 3 "$tmp/f1a.log")"
    fi
    # STORES: only the stores named, so a paper-scale sweep can be split.
    mkdir -p "$tmp/f1c"
    env RESULTS_DIR="$tmp/f1c" WORKLOADS=kvs SCALE=tiny REPS=1 THREADS=1 STORES=pmemobj \
        "$scripts/experiments/figure_1a.sh" >"$tmp/f1a.log" 2>&1
    stores=$(awk -F'\t' 'NR > 1 && $18 == "cpu" { sub(/.*,store=/, "", $29); sub(/,.*/, "", $29); print $29 }' \
        "$tmp/f1c/figure_1a.tsv" 2>/dev/null | sort -u | tr '\n' ' ')
    if [ "$stores" = "pmemobj " ]; then
        echo "ok - figure_1a with STORES=pmemobj runs that store only"
    else
        echo "not ok - figure_1a with STORES=pmemobj ran the stores '$stores': $(tail -n 3 "$tmp/f1a.log")"
    fi
else
    echo "skip - figure_1a on the real gpKVS: no $GPM_BIN/kvs"
fi
expect "figure_1a: an unknown store in STORES is refused, naming the stores" 2 \
    "figure_1a: STORES: no store 'lmdb'; the stores are kvs, pmemobj and rocksdb" \
    env GPM_BIN="$tmp/rbin" RESULTS_DIR="$tmp/rres" WORKLOADS=kvs STORES=kvs,lmdb \
    "$scripts/experiments/figure_1a.sh"

# make reproduce: without a GPU, one line; with one (a stub gpm-info here, no
# workload programs), an estimate from earlier rows first, then every step
# in order, the summary, and the failed steps named with exit 1.
if [ -x "${GPM_BIN:-}/gpm-info" ] && ! "$GPM_BIN/gpm-info" --check-gpu 2>/dev/null; then
    expect "reproduce without a GPU: one line" 1 "reproduce: .*run it on a machine with an NVIDIA GPU" \
        env RESULTS_DIR="$tmp/rp" "$scripts/reproduce.sh" "$GPM_BIN"
else
    echo "skip - reproduce without a GPU: a GPU is visible (or no gpm-info)"
fi
mkdir -p "$tmp/rpbin" "$tmp/rp"
# gpm-info names the revision, whose rows alone the summary reports.
printf '#!/bin/sh\nprintf "key\\tvalue\\ngit_rev\\tfixture-rev2\\n"\n' >"$tmp/rpbin/gpm-info"
# A workload program whose every run fails (WORKLOADS must name one).
printf '#!/bin/sh\nexit 1\n' >"$tmp/rpbin/failwl"
chmod +x "$tmp/rpbin/gpm-info" "$tmp/rpbin/failwl"
cp "$here/fixtures/figure_9/figure_9.tsv" "$tmp/rp/"
env RESULTS_DIR="$tmp/rp" REPORTS_DIR="$tmp/rprep" SCALE=small WORKLOADS=failwl \
    "$scripts/reproduce.sh" "$tmp/rpbin" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] &&
    grep -q "^reproduce: estimated time from earlier rows: about 3 min 59 s; no earlier rows for: figure_3 figure_10" "$tmp/out" &&
    grep -q "^reproduce: \[11/16\] roofline" "$tmp/out" &&
    grep -q "^reproduce: \[12/16\] figure_ycsb" "$tmp/out" &&
    grep -q "^reproduce: \[13/16\] crash" "$tmp/out" && grep -q "^reproduce: \[14/16\] check-persistency" "$tmp/out" &&
    grep -q "^reproduce: \[15/16\] nvc" "$tmp/out" && grep -q "^reproduce: \[16/16\] sbrp" "$tmp/out" &&
    grep -q "^reproduce: FAILED steps: figure_3 figure_9 .* roofline figure_ycsb crash check-persistency nvc sbrp$" "$tmp/out" &&
    head -n 1 "$tmp/rprep/summary.md" | grep -q "^# Reference of revision fixture-rev2 "; then
    echo "ok - reproduce: estimate, every step, its revision's summary, the failures named"
else
    echo "not ok - reproduce: exit $rc: $(head -c 600 "$tmp/out")"
fi

# STEPS: only the steps named, in order; a step it does not know is refused.
env RESULTS_DIR="$tmp/rp" REPORTS_DIR="$tmp/rprep" SCALE=small WORKLOADS=failwl STEPS=table_4,figure_12 \
    "$scripts/reproduce.sh" "$tmp/rpbin" >"$tmp/out" 2>&1
if grep -q "^reproduce: \[1/2\] table_4" "$tmp/out" && grep -q "^reproduce: \[2/2\] figure_12" "$tmp/out" &&
    ! grep -q "figure_9 (after" "$tmp/out"; then
    echo "ok - reproduce: STEPS runs only the steps named"
else
    echo "not ok - reproduce: STEPS=table_4,figure_12: $(head -c 600 "$tmp/out")"
fi
# The crash step runs at CRASH_SCALE with CRASH_TRIALS, not at SCALE: a
# fake workload with mode gpm, whose measuring run fails, names the scale it
# was given.
printf '#!/bin/sh\n[ "$1" = --help ] && echo "usage: fakecrash --mode gpm" && exit 0\nexit 1\n' \
    >"$tmp/rpbin/fakecrash"
chmod +x "$tmp/rpbin/fakecrash"
env RESULTS_DIR="$tmp/rp" REPORTS_DIR="$tmp/rprep" SCALE=paper WORKLOADS=fakecrash STEPS=crash \
    CRASH_SCALE=tiny CRASH_TRIALS=7 "$scripts/reproduce.sh" "$tmp/rpbin" >"$tmp/out" 2>&1
if grep -q "^reproduce: crash at scale tiny, 7 trials per workload and operation" "$tmp/out" &&
    grep -q "cannot measure fakecrash --mode gpm --scale tiny" "$tmp/out"; then
    echo "ok - reproduce: the crash step runs at CRASH_SCALE with CRASH_TRIALS"
else
    echo "not ok - reproduce: STEPS=crash CRASH_SCALE=tiny: $(head -c 600 "$tmp/out")"
fi
expect "reproduce: an unknown step in STEPS is refused, naming the steps" 2 \
    "reproduce: STEPS: no step 'figure_99'; the steps are: figure_3 .* crash check-persistency nvc sbrp" \
    env RESULTS_DIR="$tmp/rp" STEPS=figure_99 "$scripts/reproduce.sh" "$tmp/rpbin"

# A real crash campaign through the dispatcher, on the CPU baseline of PS
# (it needs no GPU): each trial SIGKILLs a run, recovers it from the PM file
# and verifies it against the golden output; counts, a campaign row and the
# report follow.
if [ ! -x "${GPM_BIN:-}/ps" ]; then
    echo "skip - crash campaign on the CPU baseline: no ${GPM_BIN:-GPM_BIN}/ps"
else
    pm=${GPM_PM_DIR:-$tmp/pm}
    mkdir -p "$pm" "$tmp/crash" "$tmp/reports"
    expect "crash campaign: 4 real SIGKILL trials, all recovered" 0 \
        "crash: ps (cpu, tiny): trials 4, killed mid-work [34], .* recovered 4, unrecovered 0: ok" \
        env RESULTS_DIR="$tmp/crash" REPORTS_DIR="$tmp/reports" GPM_PM_DIR="$pm" \
        WORKLOADS=PS SCALE=tiny TRIALS=4 CRASH_MODE=cpu CRASH_ARGS="--n 16M --block 256" \
        "$scripts/experiment.sh" crash "$GPM_BIN"
    if grep -q "	ps	crash-campaign	cpu	tiny	.*	ok	trials=4,mid_work=[34],before_progress=[01],finished_first=[01],before_commit=0,recovered=4,unrecovered=0,work_s=" \
            "$tmp/crash/crash.tsv" 2>/dev/null; then
        echo "ok - crash campaign row saved"
    else
        echo "not ok - crash campaign row: $(tail -n 1 "$tmp/crash/crash.tsv" 2>&1)"
    fi
    n=$(grep -c "	ps	recover	cpu	custom	.*	ok	.*,trial=" "$tmp/crash/crash-trials.tsv" 2>/dev/null)
    if [ "$n" = 4 ]; then echo "ok - one verified, classified recovery row per trial"; else echo "not ok - $n verified recovery rows, expected 4"; fi
    if awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
            $1 == "ps" && $3 == "cpu" && $c["verdict"] == "ok" { f = 1 } END { exit !f }' \
            "$tmp/reports/crash.tsv" 2>/dev/null; then
        echo "ok - crash report built"
    else
        echo "not ok - crash report: $(cat "$tmp/reports/crash.tsv" 2>&1)"
    fi
    if grep -q "^crash	tiny	PS	all	20[0-9-]*T[0-9:]*Z	[0-9.]*	0	[0-9a-f]" "$tmp/crash/timing.tsv" 2>/dev/null &&
        awk -F'\t' '!/^#/ && $1 == "crash" && $2 == "tiny" && $4 == 1 { f = 1 } END { exit !f }' \
            "$tmp/reports/timing.tsv" 2>/dev/null; then
        echo "ok - the campaign's wall time noted in timing.tsv and reported"
    else
        echo "not ok - timing: $(cat "$tmp/crash/timing.tsv" "$tmp/reports/timing.tsv" 2>&1)"
    fi
    if ls "$pm" | grep -q '^ps-'; then
        echo "not ok - crash campaign left PM files: $(ls "$pm")"
    else
        echo "ok - crash campaign leaves no PM file behind"
    fi
    # Trials at once, each in a PM directory of its own, removed once recovered.
    expect "crash campaign with JOBS=3: 3 trials at once, all recovered" 0 \
        "crash: ps (cpu, tiny): trials 3, killed mid-work [23], .* recovered 3, unrecovered 0: ok" \
        env -u OMP_NUM_THREADS RESULTS_DIR="$tmp/crash3" REPORTS_DIR="$tmp/reports3" GPM_PM_DIR="$pm" JOBS=3 \
        WORKLOADS=PS SCALE=tiny TRIALS=3 CRASH_MODE=cpu CRASH_ARGS="--n 16M --block 256" \
        "$scripts/experiment.sh" crash "$GPM_BIN"
    share=$(( $(env -u OMP_NUM_THREADS nproc) / 3 )); [ "$share" -gt 0 ] || share=1
    if grep -q "^crash: 3 trials at once: OMP_NUM_THREADS=$share each" "$tmp/out"; then
        echo "ok - JOBS=3 gives each trial's CPU reference its share of the cores"
    else
        echo "not ok - JOBS=3 did not set OMP_NUM_THREADS to the cores over JOBS: $(head -c 300 "$tmp/out")"
    fi
    if ls "$pm" | grep -q -e '^ps-' -e '^crash-trial'; then
        echo "not ok - concurrent trials left PM files: $(ls "$pm")"
    else
        echo "ok - concurrent trials leave no PM folder behind"
    fi
fi
