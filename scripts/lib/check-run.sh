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
#       wrote no row).
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
        "$GPM_BIN/gpm-row" "$_out" workload="$_w" op=check mode="$_m" \
            scale="$(last_field "$_dir.row" scale)" reps=1 \
            median_s="$CHECK_S" \
            min_s="$(last_field "$_dir.row" min_s)" max_s="$(last_field "$_dir.row" max_s)" \
            verified="$(last_field "$_dir.row" verified)" params="$CHECK_PARAMS" || CHECK_RC=1
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
