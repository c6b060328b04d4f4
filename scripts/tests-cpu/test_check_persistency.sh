#!/bin/sh
# make check-persistency through scripts/experiment.sh, on PS's CPU
# counterpart (no GPU needed): the check's row, report and wall time; a
# workload without the mode skipped with one line; an incomplete trace of a
# GPU mode (a fake gpm-check that finds stores the trace did not see)
# reported with the gap it names and failing the experiment; NESTED (the
# crashes of recoveries); the default modes with a GPU, which include
# those whose kernels store into PM. Bad variables: test_check_vars.sh.
set -u
. "$(dirname "$0")/checker-checks.sh"
checker_setup check-persistency
gpu=0
"$GPM_BIN/gpm-info" --check-gpu >/dev/null 2>&1 && gpu=1

# 1. The check of PS's cpu mode, and BLK (no cpu mode) skipped.
env -u MODES -u OPS RESULTS_DIR="$tmp/res" REPORTS_DIR="$tmp/rep" WORKLOADS=ps,blk SCALE=tiny \
    IMAGES=12 MODES=cpu "$scripts/experiment.sh" check-persistency "$GPM_BIN" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] &&
    grep -q "^check-persistency: ps (cpu, tiny): 12 images: 12 recovered, 0 wrong output, 0 recovery crashed, 0 refused; [0-9.]* images/s; trace overhead [0-9.]*x wall, [0-9.]*x work: ok$" "$tmp/out"; then
    ok "check-persistency: PS's cpu mode checked, every image recovered"
else
    notok "check-persistency on ps" "exit $rc: $(head -c 600 "$tmp/out")"
fi
if [ "$(grep -c "^check-persistency: blk has no mode 'cpu': skipped$" "$tmp/out")" = 1 ]; then
    ok "check-persistency: a workload without the mode is skipped with one line"
else
    notok "check-persistency: blk not skipped with one line" "$(head -c 600 "$tmp/out")"
fi
# NESTED: so many recoveries of each check crashed and recovered again.
env -u MODES -u OPS RESULTS_DIR="$tmp/res-nested" WORKLOADS=ps SCALE=tiny IMAGES=8 NESTED=2 \
    MODES=cpu "$scripts/experiment.sh" check-persistency "$GPM_BIN" >"$tmp/out-nested" 2>&1
rc=$?
if [ "$rc" -eq 0 ] &&
    grep -q "^check-persistency: ps (cpu, tiny): 8 images: 8 recovered, .*; crashes in 2 recoveries: \([0-9]*\) images, \1 recovered; .*: ok$" "$tmp/out-nested"
then ok "check-persistency NESTED=2: the crashes of 2 recoveries of PS's check recovered too"
else notok "check-persistency NESTED=2" "exit $rc: $(head -c 600 "$tmp/out-nested")"; fi
# A results file of an older schema takes no row: the check fails, saying
# why (gpm-row's line), not as if images had failed. (Its own PM folder:
# a failed check's folder stays for inspection.)
mkdir -p "$tmp/res-old" "$tmp/pm-old"
head -n 1 "$tmp/res/persistency.tsv" | sed 's/\trep_s$//' >"$tmp/res-old/persistency.tsv"
env -u MODES -u OPS GPM_PM_DIR="$tmp/pm-old" RESULTS_DIR="$tmp/res-old" WORKLOADS=ps SCALE=tiny \
    IMAGES=4 MODES=cpu "$scripts/experiment.sh" check-persistency "$GPM_BIN" >"$tmp/out-old" 2>&1
rc=$?
if [ "$rc" -ne 0 ] &&
    grep -q "^check-persistency: ps (cpu, tiny): FAILED: .*was written before the rep_s column" "$tmp/out-old"
then ok "check-persistency into an older schema's file: FAILED, naming the column"
else notok "check-persistency into an older file" "exit $rc: $(head -c 600 "$tmp/out-old")"; fi
if [ "$gpu" -eq 1 ]; then
    echo "skip - check-persistency without a GPU: a GPU is visible"
elif [ "$(grep -c "the GPU modes need a GPU" "$tmp/out")" = 1 ]; then
    ok "check-persistency without a GPU runs the cpu modes, saying in one line that GPU modes need a GPU"
else
    notok "check-persistency without a GPU" "no one line on GPU modes: $(head -c 400 "$tmp/out")"
fi
r=$(row_of "$tmp/rep/persistency.tsv" "ps	run	cpu	tiny")
if echo "$r" | grep -qx "images=12" && echo "$r" | grep -qx "recovered=12" &&
    echo "$r" | grep -qx "complete=yes" && echo "$r" | grep -qx "verdict=ok" &&
    echo "$r" | grep -q "^images_per_s=[0-9]" && echo "$r" | grep -q "^trace_overhead=[0-9]" &&
    echo "$r" | grep -q "^work_overhead=[0-9]"; then
    ok "check-persistency: the report's row (images, recovered, complete, images/s, overheads, ok)"
else
    notok "check-persistency report" "$(cat "$tmp/rep/persistency.tsv" 2>&1 | tail -n 3)"
fi
if awk -F'\t' '$1 == "check-persistency" && $2 == "tiny" && $7 == 0' "$tmp/res/timing.tsv" 2>/dev/null | grep -q .; then
    ok "check-persistency: its wall time noted in timing.tsv, at scale tiny"
else
    notok "check-persistency timing" "$(cat "$tmp/res/timing.tsv" 2>&1)"
fi
no_folder_left "check-persistency leaves no folder behind" gpm-check untraced

# 2. The rule: an incomplete trace fails the experiment and is reported
# with what gpm-check named. A fake workload whose mode gpm has
# kernels_write_pm=1, a fake gpm-check that finds its trace incomplete, and
# a gpm-info that sees a GPU.
mkdir -p "$tmp/fbin"
ln -s "$GPM_BIN/gpm-row" "$tmp/fbin/gpm-row"
printf '#!/bin/sh\n[ "$1" = --check-gpu ] && exit 0\nprintf "key\\tvalue\\n"\n' >"$tmp/fbin/gpm-info"
cat >"$tmp/fbin/fakegpu" <<'EOF'
#!/bin/sh
case $1 in
    --help) echo "usage: fakegpu --mode gpm|cpu [--scale tiny|small|paper]"; exit 0 ;;
    --modes) printf 'gpm\tneeds_gpu=1\tkernels_write_pm=1\tresumes=1\ncpu\tneeds_gpu=0\tkernels_write_pm=0\tresumes=1\n'; exit 0 ;;
esac
out=/dev/null
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
printf 'workload\tmedian_s\nfakegpu\t0.01\n' >"$out"
EOF
cat >"$tmp/fbin/gpm-check" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do [ "\$1" = --out ] && out=\$2; case \$1 in --*) shift 2 ;; *) break ;; esac; done
echo "gpm-check: gpm, model strict: a trace of 10 events, 4 stores, 2 persist points"
echo "gpm-check: INCOMPLETE: fakegpu.data: 64 bytes written by a path the trace does not see, from offset 0 to 63"
"$tmp/fbin/gpm-row" "\$out" workload=fakegpu op=check mode=gpm scale=tiny reps=1 median_s=0.5 verified=fail \
    params=model=strict,images=5,end=1,persist_points=2,exhaustive=0,random=2,recovered=5,wrong=0,crashed=0,refused=0,complete=no,seed=1,run_s=0.02,run_work_s=0.01
exit 1
EOF
chmod +x "$tmp/fbin/gpm-info" "$tmp/fbin/fakegpu" "$tmp/fbin/gpm-check"
env -u OPS GPM_PM_DIR="$tmp/fpm" GPM_BIN="$tmp/fbin" RESULTS_DIR="$tmp/fres" WORKLOADS=fakegpu SCALE=tiny IMAGES=5 \
    MODES=gpm "$scripts/experiments/check-persistency.sh" >"$tmp/out" 2>&1
rc=$?
python3 "$scripts/report/persistency.py" "$tmp/fres" "$tmp/fres.tsv" 2>"$tmp/err"
if [ "$rc" -eq 1 ] &&
    grep -q "^check-persistency: fakegpu (gpm, tiny): 5 images: 5 recovered, .*: incomplete: stores the trace did not see (fakegpu.data: 64 bytes written by a path the trace does not see, from offset 0 to 63)$" "$tmp/out" &&
    row_of "$tmp/fres.tsv" "fakegpu	run	gpm	tiny" | grep -qx "verdict=incomplete: stores the trace did not see"; then
    ok "check-persistency: an incomplete trace fails, reported with the gap gpm-check named"
else
    notok "incomplete trace" "exit $rc: $(head -c 500 "$tmp/out") $(cat "$tmp/err")"
fi
# By default (no MODES), with a GPU, every mode that resumes is checked,
# those whose kernels store into PM too.
env -u OPS -u MODES GPM_PM_DIR="$tmp/fpm" GPM_BIN="$tmp/fbin" RESULTS_DIR="$tmp/fres2" WORKLOADS=fakegpu SCALE=tiny \
    IMAGES=5 "$scripts/experiments/check-persistency.sh" >"$tmp/out" 2>&1
if grep -q "^check-persistency: fakegpu (cpu, tiny)" "$tmp/out" && grep -q "^check-persistency: fakegpu (gpm, tiny)" "$tmp/out"; then
    ok "check-persistency: the default modes with a GPU include those whose kernels store into PM"
else
    notok "check-persistency default modes" "$(head -c 500 "$tmp/out")"
fi

# 3. A missing program is an error naming it.
env GPM_BIN="$tmp/fbin" RESULTS_DIR="$tmp/nres" WORKLOADS=nosuchwl SCALE=tiny \
    "$scripts/experiments/check-persistency.sh" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "FAILED: no workload program $tmp/fbin/nosuchwl" "$tmp/out"; then
    ok "check-persistency: a missing workload program is an error naming it"
else
    notok "check-persistency with a missing program" "exit $rc: $(head -c 300 "$tmp/out")"
fi
