#!/bin/sh
# gpm-crash-log without a GPU: its options (--help on stdout with exit 0,
# one line on stderr and exit 2 for bad flags and values), then real crash
# trials of its --cpu variant, which runs the transaction protocol of
# gpm/tx.h on the CPU (the same record layout and recovery steps as the
# kernels): SIGKILL at a random moment, then --recover must leave the
# array exactly as after the committed transactions. With DRAM as PM a
# SIGKILL tests recovery logic and ordering, not flush completeness.
# Environment: GPM_BIN, GPM_PM_DIR (from run-tests.sh); CPU_TRIALS (per
# kind and mode, default 6).
set -u
bin=${GPM_BIN:-build/bin}/gpm-crash-log
dir=${GPM_PM_DIR:?GPM_PM_DIR not set}
trials=${CPU_TRIALS:-6}
fail=0
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1: $2"; fail=1; }

out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

if "$bin" --help >"$out" 2>"$err" && grep -q '^usage: gpm-crash-log' "$out" && [ ! -s "$err" ]
then ok crash_log_help_on_stdout
else bad crash_log_help_on_stdout "exit or output wrong: $(head -c 200 "$out" "$err")"; fi

# Each bad invocation: exit 2, exactly one line on stderr naming the flag.
check_usage() { # name expected-substring args...
    name=$1 want=$2
    shift 2
    "$bin" "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -q -- "$want" "$err" &&
       [ ! -s "$out" ]; then ok "$name"
    else bad "$name" "exit $rc, stderr: $(head -c 300 "$err")"; fi
}
check_usage crash_log_unknown_flag "unknown flag --bogus" --bogus
check_usage crash_log_bad_kind "--log: unknown value 'redo'" --log redo --file x
check_usage crash_log_odd_elements "--elements: 3 is odd" --file x --elements 3
check_usage crash_log_elements_not_a_number "--elements: expects an integer" --file x --elements 12k
check_usage crash_log_bad_window "--kill-after-us: expects MIN:MAX" --file x --kill-after-us 5
check_usage crash_log_window_backwards "--kill-after-us: MAX 5 is below MIN 9" --file x --kill-after-us 9:5
check_usage crash_log_missing_value "--seed: needs a value" --file x --seed
check_usage crash_log_missing_file "--file: missing" --log hcl
check_usage crash_log_recover_takes_no_run_flags "--ndp: not used by --recover" --recover --file x --ndp
check_usage crash_log_positional "unexpected argument 'extra'" --file x extra

# A run without a kill, then a recovery that finds nothing to undo.
f=$dir/crash-cpu-plain
if "$bin" --cpu --log conv --file "$f" --elements 2048 --partitions 5 --max-tx 4 >"$out" 2>&1 &&
   "$bin" --cpu --recover --file "$f" >"$out" 2>&1 &&
   grep -q 'committed 4 active 0 undone 0 ' "$out" && grep -q '^recovered$' "$out"
then ok crash_log_cpu_completed_run_recovers_unchanged
else bad crash_log_cpu_completed_run_recovers_unchanged "$(tr '\n' ' ' <"$out" | head -c 300)"; fi
rm -f "$f.data" "$f.log"

# Killed trials, every kind and mode.
for case in hcl conv hcl-ndp conv-ndp; do
    kind=${case%-ndp} ndp=
    [ "$case" != "$kind" ] && ndp=--ndp
    killed=0 recovered=0 midtx=0 i=0 why=
    while [ "$i" -lt "$trials" ]; do
        i=$((i + 1))
        f=$dir/crash-cpu-$case-$i
        rm -f "$f.data" "$f.log"
        timeout 60 "$bin" --cpu --log "$kind" $ndp --file "$f" --elements 8192 \
            --kill-after-us 5000:120000 --seed "$((i * 31 + 7))" >"$out" 2>&1
        [ $? -eq 137 ] && killed=$((killed + 1))
        if timeout 60 "$bin" --cpu --recover --file "$f" >"$out" 2>&1; then
            recovered=$((recovered + 1))
            grep -q ' active 1 ' "$out" && midtx=$((midtx + 1))
        else
            why="$why trial $i: $(tr '\n' ' ' <"$out" | head -c 200)"
        fi
        rm -f "$f.data" "$f.log"
    done
    summary="trials $trials, killed $killed, recovered $recovered, killed mid-transaction $midtx"
    name=crash_log_cpu_$(echo "$case" | tr - _)
    if [ "$recovered" -eq "$trials" ] && [ "$killed" -eq "$trials" ]; then ok "$name: $summary"
    else bad "$name" "$summary;$why"; fi
done
exit $fail
