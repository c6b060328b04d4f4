#!/bin/sh
# The Make variables of the experiments, checked before anything runs: each
# bad one gets one line that names it and the fix, then exit 2. Without
# this, TRIALS=abc reached a shell test ("Illegal number"), TRIALS=0 a
# median of nothing ("nan"), and CRASH_MODE=foo the GPU check.
#   scripts/lib/check-vars.sh NAME BIN_DIR
# NAME starts each line (the target); BIN_DIR holds the workload programs,
# whose --help says which modes and operations there are. Unset or empty
# variables take their defaults and are not checked. STEPS is checked by
# scripts/reproduce.sh, which has the list; flags passed through (CRASH_ARGS,
# CHECK_ARGS, FIGURE_3_ARGS, FIGURE_11B_ARGS), GPM_PM_DIR and GPM_DDIO by the
# programs.
set -u
name=$1
bin=$2
. "$(dirname "$0")/workloads.sh"
bad=0

say() {
    echo "$name: $*" >&2
    bad=1
}

# count VAR MIN EXAMPLE [MAX]: VAR, if set, is a whole number of at least
# MIN (and at most MAX, default 999999999).
count() {
    eval "_v=\${$1:-}"
    [ -n "$_v" ] || return 0
    case $_v in
        *[!0-9]*) say "$1=$_v: not a whole number: pass a whole number of $2 or more, e.g. $1=$3" ;;
        *) if [ "${#_v}" -gt 9 ] || [ "$_v" -lt "$2" ] || [ "$_v" -gt "${4:-999999999}" ]; then
               say "$1=$_v: out of range: pass a whole number from $2 to ${4:-999999999}, e.g. $1=$3"
           fi ;;
    esac
}

# scale VAR: VAR, if set, is a scale.
scale() {
    eval "_v=\${$1:-}"
    case $_v in
        "" | tiny | small | paper) ;;
        *) say "$1=$_v: not a scale: pass tiny, small or paper" ;;
    esac
}

# join WORDS...: the words separated by ", ".
join() {
    echo "$*" | sed 's/ /, /g'
}

count TRIALS 1 50
count CRASH_TRIALS 1 100
count REPS 1 5
count SWEEP_REPS 1 1
count JOBS 1 4
count TRIAL_TIMEOUT 1 900
count COMMIT_TRIALS 0 10
count CRASH_SEED 0 100
count IMAGES 1 100 100000 # gpm-check makes at most 100000 crash images a check
count KILLS 0 3
count NESTED 0 2 100 # gpm-check --nested
count RERUN 0 1 1     # make mutants: benign mutants again over old files
scale SCALE
scale CRASH_SCALE
scale CHECK_SCALE # make sbrp: its checks' scale

stop=${STOP_RATIO:-}
if [ -n "$stop" ] && ! awk -v r="$stop" 'BEGIN { exit !(r ~ /^[0-9]+(\.[0-9]+)?$/) }'; then
    say "STOP_RATIO=$stop: not a number: pass a ratio such as 4 (0: sweep every partition count)"
fi
for t in ${THREADS:-}; do
    case $t in
        *[!0-9]* | 0*) say "THREADS=${THREADS}: '$t' is not a thread count: pass counts of 1 or more separated by spaces, e.g. THREADS=\"1 2 4\""
            break ;;
    esac
done
for p in ${PARTITIONS:-}; do
    case $p in
        *[!0-9]* | 0*) say "PARTITIONS=${PARTITIONS}: '$p' is not a partition count: pass counts of 1 or more separated by spaces, e.g. PARTITIONS=\"256 64\""
            break ;;
    esac
done
for s in $(echo "${STORES:-}" | tr ',' ' '); do
    case $s in
        kvs | pmemobj | rocksdb) ;;
        *) say "STORES=${STORES}: no store '$s': pass some of kvs, pmemobj and rocksdb, e.g. STORES=kvs,rocksdb" ;;
    esac
done
for v in YCSB SWEEP_YCSB; do
    eval "_v=\${$v:-}"
    for y in $(echo "$_v" | tr ',' ' '); do
        case $y in
            load | a | b | c | d | f | search | search-miss | insert | update | delete) ;;
            *) say "$v=$_v: no YCSB workload '$y': pass some of load, a, b, c, d, f, search, search-miss, insert, update, delete, e.g. $v=\"a c\""
               break ;;
        esac
    done
done
for b in ${BATCHES:-}; do
    case $b in
        *[!0-9]* | 0*) say "BATCHES=${BATCHES}: '$b' is not a batch size: pass sizes of 32 or more separated by spaces, e.g. BATCHES=\"1024 4096\""
            break ;;
    esac
done
plat=${PLATFORM:-}
case $plat in
    "" ) ;;
    . | .. | *[!A-Za-z0-9._-]* | -*)
        say "PLATFORM=$plat: not a folder name (rows go to results/PLATFORM/): use letters, digits, '.', '_' and '-', e.g. PLATFORM=h100-dram" ;;
esac

# What the programs offer: every workload program, its modes and operations.
all=$(WORKLOADS='' && workload_list "$bin" | tr '\n' ' ')
chosen=""
for w in $(workload_list "$bin"); do
    case " $all " in
        *" $w "*) chosen="$chosen $w" ;;
        *) say "WORKLOADS=${WORKLOADS}: no workload '$w' in $bin: pass some of $(join $all) (comma-separated), or leave it unset for all" ;;
    esac
done
if [ -n "${OPS:-}" ]; then
    known=""
    for w in $all; do
        for o in $(workload_ops "$bin" "$w"); do
            [ "$o" = run ] || known="$known $o($w)"
        done
    done
    for o in $(echo "$OPS" | tr ',' ' '); do
        case "$known " in
            *" $o("*) ;;
            *) say "OPS=$OPS: no operation '$o': pass some of $(join $known) (comma-separated)" ;;
        esac
    done
fi
if [ -n "${MODES:-}" ]; then
    modes=""
    for w in $all; do
        for m in $(workload_modes "$bin" "$w"); do
            case " $modes " in *" $m "*) ;; *) modes="$modes $m" ;; esac
        done
    done
    for m in $(echo "$MODES" | tr ',' ' '); do
        case " $modes " in
            *" $m "*) ;;
            *) say "MODES=$MODES: no mode '$m': pass some of $(join $modes) (comma-separated), or leave it unset for the modes whose stores are traced"
               break ;;
        esac
    done
fi
if [ -n "${CRASH_MODE:-}" ]; then
    modes="" with=""
    for w in $all; do
        for m in $(workload_modes "$bin" "$w"); do
            case " $modes " in *" $m "*) ;; *) modes="$modes $m" ;; esac
            [ "$m" = "$CRASH_MODE" ] && with="$with $w"
        done
    done
    some=""
    for w in $chosen; do
        case " $with " in *" $w "*) some="$some $w" ;; esac
    done
    if [ -z "$modes" ]; then
        say "CRASH_MODE=$CRASH_MODE: no workload program in $bin to check it against: run make first"
    elif [ -z "$with" ]; then
        say "CRASH_MODE=$CRASH_MODE: not a mode of any workload: pass one of $(join $modes)"
    elif [ -z "$some" ] && [ -n "$chosen" ]; then
        say "CRASH_MODE=$CRASH_MODE: none of WORKLOADS ($(join $chosen)) has it: the workloads with it are $(join $with)"
    fi
fi
exit "$bad"
