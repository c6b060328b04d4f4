#!/bin/sh
# One argument convention for every program build/bin/gpm-* (found by glob,
# so a program added later is covered): --help prints the usage to stdout,
# nothing to stderr, and exits 0; an unknown flag, a bad value or a missing
# one is one stderr line naming the flag, exit 2. Then the defects this
# convention fixed. Nothing here needs a GPU: every case stops before any.
set -u
bin=${GPM_BIN:?GPM_BIN not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-args-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
unset GPM_DDIO # its warning, where it applies, is not the programs' to test here
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

# run PROG ARGS...: runs in $tmp/cwd; sets rc, and $tmp/out, $tmp/err.
run() {
    _p=$1
    shift
    rm -rf "$tmp/cwd" && mkdir "$tmp/cwd"
    (cd "$tmp/cwd" && "$bin/$_p" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
lines() { wc -l <"$1" | tr -d ' '; }
shown() { head -c 300 "$1" | tr '\n' '|'; }

# verdict NAME PROG WHY: ok when WHY is empty, else not ok.
verdict() {
    if [ -z "$3" ]; then
        ok "$1"
    else
        notok "$1" "$3"
    fi
}

# usage_error NAME PROG FLAG ARGS...: PROG ARGS exits 2 with nothing on
# stdout and one stderr line naming FLAG.
usage_error() {
    _n=$1 _p=$2 _f=$3
    shift 3
    run "$_p" "$@"
    why=""
    if [ "$rc" -ne 2 ]; then why="exit $rc, want 2"
    elif [ -s "$tmp/out" ]; then why="stdout: $(shown "$tmp/out")"
    elif [ "$(lines "$tmp/err")" -ne 1 ]; then why="$(lines "$tmp/err") stderr lines: $(shown "$tmp/err")"
    elif ! grep -q -e "$_f" "$tmp/err"; then why="stderr does not name $_f: $(shown "$tmp/err")"
    fi
    verdict "$_n" "$_p" "$why"
}

n=0
for path in "$bin"/gpm-*; do
    [ -f "$path" ] && [ -x "$path" ] || continue
    p=$(basename "$path")
    n=$((n + 1))
    run "$p" --help
    why=""
    if [ "$rc" -ne 0 ]; then why="exit $rc, want 0; stderr: $(shown "$tmp/err")"
    elif ! grep -qi '^usage' "$tmp/out"; then why="no usage on stdout: $(shown "$tmp/out")"
    elif [ -s "$tmp/err" ]; then why="stderr: $(shown "$tmp/err")"
    elif [ -n "$(ls -A "$tmp/cwd")" ]; then why="left files: $(ls -A "$tmp/cwd")"
    fi
    verdict "${p}_help_is_usage_on_stdout_exit_0" "$p" "$why"
    long=$(awk 'length > 80' "$tmp/out" | head -n 1)
    verdict "${p}_help_lines_fit_80_columns" "$p" "${long:+a longer line: $long}"
    usage_error "${p}_unknown_flag_is_one_line_exit_2" "$p" "--no-such-flag" --no-such-flag
done
if [ "$n" -ge 6 ]; then ok "programs_found ($n)"; else notok programs_found "only $n programs gpm-* in $bin"; fi

# Bad and missing values name the flag (each stops before any GPU work).
# --persistency sbrp: only the workloads whose kernels have an SBRP variant.
usage_error bfs_has_no_sbrp_variant bfs "--persistency: bfs's kernels have no SBRP variant" \
    --mode gpm --persistency sbrp
usage_error log_scaling_bad_reps gpm-log-scaling --reps --reps x
usage_error log_scaling_missing_value gpm-log-scaling "--partitions: needs a value" --partitions
usage_error log_scaling_bad_partitions gpm-log-scaling --partitions --partitions 4,0
usage_error log_scaling_bad_scale gpm-log-scaling --scale --scale huge
usage_error log_scaling_positional gpm-log-scaling "unexpected argument 'extra'" extra
usage_error persist_scaling_bad_size gpm-persist-scaling --size --size 12x
usage_error persist_scaling_bad_variant gpm-persist-scaling --variants --variants gpm,fast
usage_error persist_scaling_bad_block gpm-persist-scaling --block --block 48
usage_error cap_tune_bad_threads gpm-cap-tune --threads --threads 1,0
usage_error cap_tune_bad_size gpm-cap-tune --size --size 12
usage_error roofs_unknown_probe gpm-roofs "--probes: 'write-scatterx' names no probe" \
    --probes write-scatter,write-scatterx
usage_error info_dump_needs_ddio_port gpm-info --dump --dump x.dump
usage_error info_flag_takes_no_value gpm-info --check-gpu --check-gpu=yes
usage_error inspect_needs_a_file gpm-inspect "no FILE"
usage_error inspect_takes_one_file gpm-inspect "unexpected argument 'b'" a b
usage_error row_bad_number gpm-row "threads" rows.tsv workload=x op=y threads=abc
usage_error row_unknown_key gpm-row "bogus=1" rows.tsv workload=x op=y bogus=1

# The flag table: a flag without a value given one, a list of words, a
# MIN:MAX window, a flag's beginning (unambiguous: the flag; ambiguous:
# unknown), the positional arguments a program takes, a callback's value.
usage_error persist_scaling_set_flag_takes_no_value gpm-persist-scaling "--keep: takes no value" \
    --keep=yes
usage_error persist_scaling_variants_end_with_comma gpm-persist-scaling \
    "--variants: 'gpm,' ends with a comma" --variants gpm,
usage_error crash_cp_window_out_of_range gpm-crash-cp "--kill-after-us: -1 is out of range" \
    --file x --kill-after-us -1:5
usage_error log_scaling_flag_beginning_is_the_flag gpm-log-scaling "--reps: expects an integer" \
    --rep x
usage_error check_ambiguous_beginning_is_unknown gpm-check "unknown flag --i" --i 5 prog
usage_error check_needs_a_program gpm-check "no PROGRAM given" --images 5
usage_error check_model_is_checked gpm-check "--model: no model 'weak'" --model weak prog
run gpm-roofs -h
if [ "$rc" -eq 0 ] && grep -q '^usage' "$tmp/out" &&
   grep -q -- "--reps N .*1\.\.32 (default 5)" "$tmp/out"; then
    ok roofs_h_is_help_with_ranges_and_defaults
else
    notok roofs_h_is_help_with_ranges_and_defaults "exit $rc: $(shown "$tmp/out")"
fi

# gpm-log-scaling --help was taken for a flag that needs a value.
run gpm-log-scaling --help
if [ "$rc" -eq 0 ] && ! grep -q "needs a value" "$tmp/out" "$tmp/err"; then
    ok log_scaling_help_is_not_a_flag_missing_its_value
else
    notok log_scaling_help_is_not_a_flag_missing_its_value "exit $rc: $(shown "$tmp/err")"
fi

# gpm-row --help KEY=VALUE... made a rows file named --help.
run gpm-row --help workload=x op=y
if [ "$rc" -eq 0 ] && [ ! -e "$tmp/cwd/--help" ] && [ -z "$(ls -A "$tmp/cwd")" ]; then
    ok row_help_creates_no_file
else
    notok row_help_creates_no_file "exit $rc, files: $(ls -A "$tmp/cwd")"
fi
# A FILE starting with '-' (passed after --) is refused, not created.
usage_error row_dash_file_is_refused gpm-row "'-rows.tsv' starts with '-'" -- -rows.tsv workload=x op=y
if [ -z "$(ls -A "$tmp/cwd")" ]; then ok row_dash_file_not_created
else notok row_dash_file_not_created "files: $(ls -A "$tmp/cwd")"; fi
# A forgotten FILE: the first KEY=VALUE is not taken for one.
usage_error row_key_value_is_not_a_file gpm-row "looks like KEY=VALUE" workload=x op=y
if [ -z "$(ls -A "$tmp/cwd")" ]; then ok row_key_value_file_not_created
else notok row_key_value_file_not_created "files: $(ls -A "$tmp/cwd")"; fi

# gpm-persist-scaling --gpu-threads 33 blamed the block size: the message
# names the flag that is wrong and what it must be.
run gpm-persist-scaling --gpu-threads 33
if [ "$rc" -eq 2 ] && grep -q -- "--gpu-threads: 33 is not a multiple of 32" "$tmp/err" &&
   ! grep -qi "block" "$tmp/err"; then
    ok persist_scaling_gpu_threads_33_names_gpu_threads
else
    notok persist_scaling_gpu_threads_33_names_gpu_threads "exit $rc: $(shown "$tmp/err")"
fi
# A count that is a multiple of 32 but not of --block names --block.
usage_error persist_scaling_threads_not_multiple_of_block gpm-persist-scaling \
    "--gpu-threads: 544 is not a multiple of --block 512" --gpu-threads 544
