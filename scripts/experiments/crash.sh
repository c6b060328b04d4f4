#!/bin/sh
# Crash campaign: for each workload of WORKLOADS (each of its operations),
# first one uninterrupted repetition of a process measures when its units of
# progress become durable (measure_work: the repetition that a kill hits);
# then TRIALS
#   W --mode M --reps 1 --kill after-progress:T@K --keep --seed I
#   W --mode M --recover --seed I --out crash-trials.tsv  (must verify)
# with T drawn uniformly from the measured timeline of durable progress, the
# first unit to the last, and K = U-1 (U the measured units) as the latest
# kill: a kill lands after the first unit is durable and before the last,
# however fast the trial runs. Each recovery row says what the kill hit
# (trial=mid-work|before-progress|finished-first) and, where progress was
# durable, how much it found and reused (durable=D/T,redone=R: the harness
# fails a recovery that redid durable work). Only kills inside the work
# count as crash trials.
# Transactional workloads (those with --kill commit:N) also get
# COMMIT_TRIALS (default 10) runs killed just before their 1st, 2nd or 3rd
# commit, every update and undo record of that batch durable. A campaign
# fails if any trial was not recovered or if fewer than 90% of its random
# trials were killed mid-work.
# (CRASH_MODE=cpu crashes the CPU counterpart instead, which needs no GPU;
# a workload without CRASH_MODE is skipped with one line.)
# Appends a campaign row (op=crash-campaign) to $RESULTS_DIR/crash.tsv;
# report: scripts/report/crash.py. SIGKILL with DRAM as PM tests recovery
# logic and the order of what the program makes visible, not flush
# completeness or a power cut.
# JOBS (default 1) trials run at once, each in a PM directory of its own
# under GPM_PM_DIR: the GPU and the cores are shared, so their work runs
# slower than the measurement and kills drawn from it land earlier in it,
# still after its first durable unit (the classification of each trial
# says where). A trial's PM directory is
# removed once it recovered; a failed one is kept and named.
# Environment: GPM_BIN, RESULTS_DIR, SCALE, WORKLOADS, TRIALS (default 50),
# JOBS, OMP_NUM_THREADS (default with JOBS > 1: the cores over JOBS),
# GPM_PM_DIR, CRASH_SEED (first seed - 1, default 0), TRIAL_TIMEOUT
# (seconds one program may run before it counts as hung, default 900),
# CRASH_MODE (default gpm), CRASH_ARGS (more flags for every run, e.g. sizes).
set -u
name=crash
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/crash-trial.sh"
TRIALS=${TRIALS:-50}
JOBS=${JOBS:-1}
# A recovery that checks its output against an OpenMP CPU reference runs it
# on every core: JOBS of them at once would oversubscribe the cores (CFD's
# check took minutes so), so unless told otherwise each gets its share.
if [ "$JOBS" -gt 1 ] && [ -z "${OMP_NUM_THREADS:-}" ]; then
    share=$(( $(nproc) / JOBS ))
    export OMP_NUM_THREADS=$(( share > 0 ? share : 1 ))
    echo "$name: $JOBS trials at once: OMP_NUM_THREADS=$OMP_NUM_THREADS each (set it to choose)"
fi
mode=${CRASH_MODE:-gpm}
trials_out=$RESULTS_DIR/crash-trials.tsv
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-crash.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pm_base=${GPM_PM_DIR:-/dev/shm/gpm-$(id -u)}
mkdir -p "$pm_base" || exit 1
bad=0

# tally STATUS WHAT: counts the trial that crash_trial just ran (STATUS its
# exit status), says how it ended, and keeps its recovery row (with its
# platform columns).
tally() {
    if [ "$1" -eq 0 ]; then
        recovered=$((recovered + 1))
        echo "$name: $lbl trial $2: $TRIAL, recovered" \
            "($(echo "$TRIAL_PARAMS" | sed -n 's/.*\(durable=[^,]*,redone=[0-9]*\).*/\1/p'))"
    else
        unrecovered=$((unrecovered + 1))
        echo "$name: $lbl trial $2: NOT RECOVERED: $TRIAL; log:" >&2
        tail -n 20 "$TRIAL_LOG" | sed 's/^/    /' >&2
    fi
    if [ -s "$TRIAL_ROWS" ]; then
        if [ -s "$trials_out" ]; then tail -n +2 "$TRIAL_ROWS" >>"$trials_out"
        else cat "$TRIAL_ROWS" >>"$trials_out"; fi
    fi
}

# start_trial K SEED AT: trial K (crash_trial with kill moment AT) in the
# background, in folders of its own; its outcome in $tmp/tK.
start_trial() {
    _d=$tmp/t$1
    rm -rf "$_d" && mkdir -p "$_d" || return 1
    _pm=$(mktemp -d "$pm_base/crash-trial.XXXXXX") || return 1
    echo "$_pm" >"$_d/pm"
    (
        GPM_PM_DIR=$_pm
        # shellcheck disable=SC2086 # args is a list of flags
        crash_trial "$w" "$mode" "$SCALE" "$2" "$3" "$_d" $args
        echo "$?" >"$_d/rc"
        printf '%s\n%s\n%s\n' "$TRIAL" "$TRIAL_S" "$TRIAL_PARAMS" >"$_d/outcome"
    ) &
}

# finish_trial K WHAT: after the wait, takes trial K's outcome (rc, TRIAL,
# TRIAL_S, TRIAL_PARAMS, TRIAL_ROWS, TRIAL_LOG) and tallies it.
finish_trial() {
    _d=$tmp/t$1
    rc=$(cat "$_d/rc" 2>/dev/null || echo 1)
    TRIAL="unrecovered (no outcome)" TRIAL_S="" TRIAL_PARAMS=""
    [ -f "$_d/outcome" ] && { read -r TRIAL; read -r TRIAL_S; read -r TRIAL_PARAMS; } <"$_d/outcome"
    TRIAL_ROWS=$_d/recover.tsv TRIAL_LOG=$_d/trial.log
    tally "$rc" "$2"
    if [ "$rc" -eq 0 ]; then
        rm -rf "$(cat "$_d/pm")"
    else
        echo "$name: $lbl trial $2: its PM files stay in $(cat "$_d/pm")" >&2
    fi
}

ran=0
for w in $(workloads); do
    have_program "$w" || { bad=1; continue; }
    skip_without_mode "$w" "$mode" || continue
    ran=$((ran + 1))
    # Each operation is a campaign of its own; CRASH_ARGS and the op flag
    # go to every run.
    for op in $(ops "$w"); do
        args="${CRASH_ARGS:-} $(op_flag "$op")"
        op_param="" lbl=$w
        [ "$op" = run ] || { op_param="op=$op,"; lbl="$w($op)"; }
        # shellcheck disable=SC2086 # args is a list of flags
        timeline=$(measure_work "$w" "$mode" "$SCALE" "$tmp" $args) || { bad=1; continue; }
        # shellcheck disable=SC2086 # three words
        set -- $timeline
        units=${1:-0} first=${2:--1} last=${3:--1}
        if [ "$units" -lt 2 ]; then
            echo "$name: $lbl ($mode, $SCALE): the work makes $units unit(s) of progress durable: nothing to kill between" >&2
            bad=1
            continue
        fi
        echo "$name: $lbl ($mode, $SCALE): $units units of progress durable from $first s to $last s; kills 0-$(awk -v f="$first" -v l="$last" 'BEGIN { printf "%.6f", l - f }') s after the first"
        mid=0 before=0 finished=0 recovered=0 unrecovered=0
        : >"$tmp/times"
        # Waves of JOBS trials, tallied in order.
        i=1
        while [ "$i" -le "$TRIALS" ]; do
            j=$i
            while [ "$j" -le "$TRIALS" ] && [ "$j" -lt $((i + JOBS)) ]; do
                seed=$((${CRASH_SEED:-0} + j))
                kill_at "$units" "$first" "$last" "$seed" >"$tmp/at$j"
                start_trial "$j" "$seed" "$(cat "$tmp/at$j")"
                j=$((j + 1))
            done
            wait
            while [ "$i" -lt "$j" ]; do
                finish_trial "$i" "$i/$TRIALS (seed $((${CRASH_SEED:-0} + i)), kill $(cat "$tmp/at$i"))"
                if [ "$rc" -eq 0 ]; then
                    echo "$TRIAL_S" >>"$tmp/times"
                    case $TRIAL in
                        mid-work) mid=$((mid + 1)) ;;
                        before-progress) before=$((before + 1)) ;;
                        *) finished=$((finished + 1)) ;;
                    esac
                fi
                i=$((i + 1))
            done
        done
        # Transactional workloads: also killed just before a commit, every
        # update and undo record of the batch durable (the worst case).
        commits=0
        if runs_transactions "$w"; then
            i=1
            while [ "$i" -le "${COMMIT_TRIALS:-10}" ]; do
                j=$i
                while [ "$j" -le "${COMMIT_TRIALS:-10}" ] && [ "$j" -lt $((i + JOBS)) ]; do
                    start_trial "$j" "$((${CRASH_SEED:-0} + j))" "commit:$((1 + (j - 1) % 3))"
                    j=$((j + 1))
                done
                wait
                while [ "$i" -lt "$j" ]; do
                    finish_trial "$i" "before commit $((1 + (i - 1) % 3))"
                    commits=$((commits + 1))
                    i=$((i + 1))
                done
            done
        fi
        verdict=ok
        [ "$unrecovered" -eq 0 ] && [ $((10 * mid)) -ge $((9 * TRIALS)) ] || verdict=fail
        med=$(sort -g "$tmp/times" | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "nan" }')
        echo "$name: $lbl ($mode, $SCALE): trials $TRIALS, killed mid-work $mid, killed before any durable progress $before, finished first $finished; counted as crash trials $((mid + before)); killed before a commit $commits; recovered $recovered, unrecovered $unrecovered: $verdict"
        [ $((10 * mid)) -ge $((9 * TRIALS)) ] ||
            echo "$name: $lbl: fewer than 90% of the trials were killed mid-work: the campaign tests too little" >&2
        "$GPM_BIN/gpm-row" "$RESULTS_DIR/crash.tsv" workload="$w" op=crash-campaign mode="$mode" \
            scale="$SCALE" reps="$TRIALS" median_s="$med" verified="$verdict" \
            params="${op_param}trials=$TRIALS,mid_work=$mid,before_progress=$before,finished_first=$finished,before_commit=$commits,recovered=$recovered,unrecovered=$unrecovered,work_s=$last,progress_units=$units,progress_first_s=$first" ||
            bad=1
        [ "$verdict" = ok ] || bad=1
    done
done
some_ran "$ran" "has mode '$mode'"
exit $bad
