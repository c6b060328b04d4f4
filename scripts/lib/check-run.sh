# Sourced: one persistency check of a workload program (gpm-check), shared
# by make check-persistency and make mutants (scripts/experiments/). Needs
# GPM_BIN and scripts/lib/tsv.sh; uses GPM_PM_DIR.
#
#   check_dir
#       a new folder for one check under GPM_PM_DIR (default
#       /dev/shm/gpm-UID): gpm-check removes it when every image recovered
#       and keeps it (the run, its trace, the failing images) otherwise
#   run_check OUT DIR IMAGES EXTRA W MODE SCALE [FLAG...]
#       gpm-check --images IMAGES --dir DIR [--nested NESTED] CHECKER_FLAGS
#       W --mode MODE --scale SCALE FLAG...,
#       its output in DIR.log; its row is appended to OUT with
#       trace_points (the traced run's persist points) and EXTRA (k=v,...
#       or empty) after its params. Where gpm-check wrote no row
#       (its traced run failed, the trace could not be read) a row of its
#       own says so: verified=fail, error=... Sets CHECK_RC (gpm-check's
#       exit status), CHECK_PARAMS (the row's params), CHECK_S (the check's
#       wall time), CHECK_LOG, and CHECK_WHY (the last line of a check that
#       wrote no row, or gpm-row's where OUT would not take the row).
#   check_summary PARAMS
#       "N images: R recovered, W wrong output, C recovery crashed, F refused"
#   param PARAMS KEY
#       the value of KEY in a k=v,k=v list
#   not_recovered PARAMS
#       the images that a check's PARAMS did not recover, those of crashed
#       recoveries (--nested) included
#   gpu_or_cpu_only NAME VERB
#       sets gpu=1 where a GPU is visible; else gpu=0, and one line says
#       that the GPU modes need one and that NAME is VERB the cpu modes
#   modes_given W
#       the modes of MODES (a comma list) that W has and that run here
#       (without a GPU, those that need none), one per word; a line on
#       stderr for each W lacks (needs the experiments' lib.sh)
#   modes_that_resume W
#       modes_given where MODES is set; else W's modes whose --recover
#       resumes durable progress (resumes=1) that run here
#   each_check VERB SELECT BODY
#       for each workload of WORKLOADS (lib.sh), each mode SELECT W gives
#       and each operation: BODY W OP MODE LABEL (LABEL: "w" or "w(op)");
#       a workload without such a mode gets one line ("no mode to VERB"),
#       a missing program sets bad=1, and none to run at all is an error
#       (some_ran)

check_dir() {
    _base=${GPM_PM_DIR:-/dev/shm/gpm-$(id -u)}
    mkdir -p "$_base" && mktemp -d "$_base/gpm-check.XXXXXX"
}

param() {
    echo "$1" | tr ',' '\n' | sed -n "s/^$2=//p" | head -n 1
}

not_recovered() {
    _i=$(param "$1" images) _r=$(param "$1" recovered)
    _ni=$(param "$1" nested_images) _nr=$(param "$1" nested_recovered)
    echo $((${_i:-0} - ${_r:-0} + ${_ni:-0} - ${_nr:-0}))
}

check_summary() {
    echo "$(param "$1" images) images: $(param "$1" recovered) recovered, $(param "$1" wrong) wrong output, $(param "$1" crashed) recovery crashed, $(param "$1" refused) refused"
}

run_check() {
    _out=$1 _dir=$2 _images=$3 _extra=$4 _w=$5 _m=$6 _s=$7
    shift 7
    CHECK_LOG=$_dir.log
    rm -f "$_dir.row"
    # shellcheck disable=SC2046 # no word, or --nested and its count
    # shellcheck disable=SC2086 # CHECKER_FLAGS: a list of words
    "$GPM_BIN/gpm-check" --images "$_images" --dir "$_dir" --out "$_dir.row" \
        $([ "${NESTED:-0}" -eq 0 ] || echo --nested "$NESTED") ${CHECKER_FLAGS:-} \
        "$GPM_BIN/$_w" --mode "$_m" --scale "$_s" "$@" >"$CHECK_LOG" 2>&1
    CHECK_RC=$?
    CHECK_WHY="" CHECK_S=nan
    if [ -s "$_dir.row" ]; then
        _points=$(sed -n 's/^gpm-check: .* a trace of [0-9]* events, [0-9]* stores, \([0-9]*\) persist points$/\1/p' "$CHECK_LOG" | head -n 1)
        CHECK_PARAMS=$(last_field "$_dir.row" params),trace_points=${_points:-nan}${_extra:+,$_extra}
        CHECK_S=$(last_field "$_dir.row" median_s)
        # A row that cannot be added (an older schema's file) fails the
        # check, and its line says why.
        _why=$("$GPM_BIN/gpm-row" "$_out" workload="$_w" op=check mode="$_m" \
            scale="$(last_field "$_dir.row" scale)" reps=1 \
            median_s="$CHECK_S" \
            min_s="$(last_field "$_dir.row" min_s)" max_s="$(last_field "$_dir.row" max_s)" \
            verified="$(last_field "$_dir.row" verified)" params="$CHECK_PARAMS" 2>&1) ||
            CHECK_RC=1 CHECK_WHY=$(echo "$_why" | tail -n 1 | tr ',\t' ';;')
        rm -f "$_dir.row"
    else
        # The check could not run: its last line says why (commas would
        # split the params).
        CHECK_WHY=$(grep -v '^ ' "$CHECK_LOG" | tail -n 1 | tr ',\t' ';;')
        _op=""
        while [ $# -gt 1 ]; do
            [ "$1" = --op ] && _op="op=$2,"
            shift
        done
        CHECK_PARAMS="${_op}images=0,error=${CHECK_WHY:-gpm-check exited $CHECK_RC}${_extra:+,$_extra}"
        "$GPM_BIN/gpm-row" "$_out" workload="$_w" op=check mode="$_m" scale="$_s" reps=1 \
            verified=fail params="$CHECK_PARAMS" || true
        [ "$CHECK_RC" -ne 0 ] || CHECK_RC=1
    fi
}

gpu_or_cpu_only() {
    gpu=1
    if ! _why=$("$GPM_BIN/gpm-info" --check-gpu 2>&1); then
        gpu=0
        echo "$1: ${_why#gpm-info: }: the GPU modes need a GPU; $2 the modes that run without one (cpu)"
    fi
}

modes_given() {
    for _given in $(echo "${MODES:-}" | tr ',' ' '); do
        skip_without_mode "$1" "$_given" >&2 || continue # its line, not a mode
        if ! mode_available "$GPM_BIN" "$1" "$_given"; then
            echo "$name: $1 --mode $_given skipped: $("$GPM_BIN/$1" --mode "$_given" --scale tiny 2>&1 | tail -n 1)" >&2
            continue
        fi
        [ "$gpu" -eq 1 ] || modes_where "$GPM_BIN" "$1" needs_gpu=0 | grep -qx -- "$_given" || continue
        echo "$_given"
    done
}

modes_that_resume() {
    if [ -n "${MODES:-}" ]; then
        modes_given "$1"
    elif [ "$gpu" -eq 1 ]; then
        _off=" $(modes_unavailable "$GPM_BIN" "$1" | tr '\n' ' ') "
        for _m in $(modes_where "$GPM_BIN" "$1" resumes=1); do
            case $_off in *" $_m "*) ;; *) echo "$_m" ;; esac
        done
    else
        modes_where "$GPM_BIN" "$1" resumes=1 needs_gpu=0
    fi
}

each_check() {
    # Names of their own: BODY's checks (run_check) set _w, _m and _op.
    _ec_verb=$1 _ec_select=$2 _ec_body=$3 _ec_ran=0
    for _ec_w in $(workloads); do
        have_program "$_ec_w" || { bad=1; continue; }
        _ec_modes=$("$_ec_select" "$_ec_w" | tr '\n' ' ')
        if [ -z "$_ec_modes" ]; then
            [ -n "${MODES:-}" ] ||
                echo "$name: $_ec_w has no mode to $_ec_verb$([ "$gpu" -eq 1 ] || echo " without a GPU"): skipped"
            continue
        fi
        _ec_ran=$((_ec_ran + 1))
        for _ec_op in $(ops "$_ec_w"); do
            for _ec_m in $_ec_modes; do
                _ec_lbl=$_ec_w
                [ "$_ec_op" = run ] || _ec_lbl="$_ec_w($_ec_op)"
                "$_ec_body" "$_ec_w" "$_ec_op" "$_ec_m" "$_ec_lbl"
            done
        done
    done
    some_ran "$_ec_ran" "has a mode to $_ec_verb"
}
