# Sourced: one crash trial of a workload program, shared by the crash
# campaign (scripts/experiments/crash.sh) and the GPU tests
# (scripts/tests-gpu/test_workloads.sh). Needs GPM_BIN; uses GPM_PM_DIR.
#
#   measure_work W MODE SCALE TMPDIR [FLAG...]
#       one uninterrupted repetition; prints its units of progress and when
#       the first and the last became durable: "UNITS FIRST_S LAST_S"
#   kill_at UNITS FIRST_S LAST_S SEED
#       a campaign's kill: "after-progress:T@K", T drawn uniformly from the
#       measured timeline of durable progress, LAST_S - FIRST_S, and
#       K = UNITS - 1 the latest: a trial that runs faster than the
#       measurement is still killed before its last unit
#   crash_trial W MODE SCALE SEED AT TMPDIR [FLAG...]
#       W killed with SIGKILL as AT says (W --kill AT), then W --recover.
#       AT is one of W --help's forms of --kill: progress:K (where tests
#       kill, whatever the speed), after-progress:T[@K] (campaigns),
#       commit:N, time:T or random.
#       Sets TRIAL (mid-work | before-progress | finished-first, or
#       unrecovered), TRIAL_PARAMS (the recovery row's params), TRIAL_S (its
#       median_s), TRIAL_ROWS (the recovery row file), TRIAL_LOG (both
#       programs' output).
# Recovered means: the run was killed (137) or finished first (0, and the
# recovery agrees), and the recovery exited 0 with a verified row that says
# what the kill hit.

. "$(dirname "$0")/../lib/tsv.sh"

kill_at() {
    awk -v u="$1" -v f="$2" -v l="$3" -v s="$4" '
        BEGIN { x = (s * 2654435761) % 4294967296 / 4294967296;
                d = l - f; if (d < 0) d = 0;
                printf "after-progress:%.6f@%d", d * x, u - 1 }'
}

# One repetition of a process of its own: the kills cover a process's
# first repetition, which may differ from the others either way (it loads
# its kernels; cap-delta's ran in half the median on an H100), so the
# timeline is that of one.
measure_work() {
    _w=$1 _m=$2 _s=$3 _t=$4
    shift 4
    rm -f "$_t/measure.tsv"
    "$GPM_BIN/$_w" --mode "$_m" --scale "$_s" --reps 1 --progress-times \
        ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} "$@" --out "$_t/measure.tsv" >"$_t/measure.log" 2>&1 || {
        echo "cannot measure $_w --mode $_m --scale $_s: $(tail -n 1 "$_t/measure.log")" >&2
        return 1
    }
    last_field "$_t/measure.tsv" params |
        sed -n 's/.*progress_units=\([0-9]*\),progress_first_s=\([-0-9.e]*\),progress_last_s=\([-0-9.e]*\).*/\1 \2 \3/p'
}

crash_trial() {
    _w=$1 _m=$2 _s=$3 _seed=$4 _at=$5 _t=$6
    shift 6
    TRIAL_LOG=$_t/trial.log
    TRIAL_ROWS=$_t/recover.tsv
    : >"$TRIAL_ROWS"
    _start=$(date +%s)
    timeout -k 30 "${TRIAL_TIMEOUT:-900}" "$GPM_BIN/$_w" --mode "$_m" --scale "$_s" \
        --seed "$_seed" --reps 1 --keep --kill "$_at" \
        ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} "$@" >"$TRIAL_LOG" 2>&1
    _rc=$?
    # timeout -k ends a hung program with SIGKILL too (status 137).
    [ "$_rc" -eq 137 ] && [ $(($(date +%s) - _start)) -ge "${TRIAL_TIMEOUT:-900}" ] && _rc=124
    timeout -k 30 "${TRIAL_TIMEOUT:-900}" "$GPM_BIN/$_w" --mode "$_m" --scale "$_s" \
        --seed "$_seed" --recover ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} "$@" \
        --out "$TRIAL_ROWS" >>"$TRIAL_LOG" 2>&1
    _rrc=$?
    TRIAL_PARAMS=$(last_field "$TRIAL_ROWS" params)
    TRIAL_S=$(last_field "$TRIAL_ROWS" median_s)
    TRIAL=$(echo "$TRIAL_PARAMS" | sed -n 's/.*trial=\([a-z-]*\).*/\1/p')
    if [ "$_rrc" -ne 0 ] || [ "$(last_field "$TRIAL_ROWS" verified)" != ok ] ||
        [ -z "$TRIAL" ] || { [ "$_rc" -ne 137 ] && { [ "$_rc" -ne 0 ] ||
        [ "$TRIAL" != finished-first ]; }; }; then
        TRIAL="unrecovered (run exit $_rc, recover exit $_rrc)"
        return 1
    fi
    return 0
}
