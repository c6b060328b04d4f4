# Sourced by the experiment scripts that run workload programs (not an
# experiment itself): the checks, the workload list, one run of a mode with
# its failure recorded, and the closing verdict. The caller sets name=
# (its target) before sourcing; SCALE, RESULTS_DIR and GPM_PM_DIR come from
# scripts/experiment.sh or the environment.
: "${GPM_BIN:?$name: set GPM_BIN to the programs folder (make $name sets it)}"
RESULTS_DIR=${RESULTS_DIR:-results/local}
SCALE=${SCALE:-small}
mkdir -p "$RESULTS_DIR"
failed=""

. "$(dirname "$0")/../lib/workloads.sh"
. "$(dirname "$0")/../lib/tsv.sh"
# The workloads of WORKLOADS (a comma list, any case), else every workload
# program, one per word.
workloads() {
    workload_list "$GPM_BIN"
}

# have_program W: W's program exists; otherwise the failure is recorded.
have_program() {
    [ -x "$GPM_BIN/$1" ] && return 0
    echo "$name: FAILED: no workload program $GPM_BIN/$1 (check WORKLOADS=${WORKLOADS:-})" >&2
    failed="$failed $1"
    return 1
}

# skip_without_mode W MODE: W has MODE; otherwise one line says W is
# skipped (not every workload has every mode: cpu, cap-delta).
skip_without_mode() {
    has_mode "$GPM_BIN" "$1" "$2" && return 0
    echo "$name: $1 has no mode '$2': skipped"
    return 1
}

# gds_mode W: "cap-gds" where W has it and cuFile can write files in the PM
# directory here, else nothing, and W's one line saying why on stderr.
gds_mode() {
    has_mode "$GPM_BIN" "$1" cap-gds || return 0
    if mode_available "$GPM_BIN" "$1" cap-gds; then
        echo cap-gds
    else
        echo "$name: $1 --mode cap-gds skipped: $("$GPM_BIN/$1" --mode cap-gds --scale tiny 2>&1 | tail -n 1)" >&2
    fi
}

# ops W: W's operations, one per word ("run" for a workload with one).
# With OPS (a comma list, e.g. OPS=set,update), only the operations named
# there, and all of them where none is.
ops() {
    _all=$(workload_ops "$GPM_BIN" "$1")
    _some=""
    for _o in $_all; do
        case ",${OPS:-$_o}," in *",$_o,"*) _some="$_some $_o" ;; esac
    done
    echo "${_some:-$_all}"
}

# runs_transactions W: W's batches are transactions (it takes
# --kill commit:N).
runs_transactions() {
    "$GPM_BIN/$1" --help 2>/dev/null | grep -q -- "commit:N"
}

# op_flag OP: the flag that picks OP (none for "run"), for run_mode.
op_flag() {
    [ "$1" = run ] || echo "--op $1"
}

# programs_rev: sets _rev to these programs' revision, once (call it
# outside a command substitution, whose assignment would be lost).
programs_rev() {
    [ -n "${_rev:-}" ] || _rev=$("$GPM_BIN/gpm-info" 2>/dev/null | awk -F'\t' '$1 == "git_rev" { print $2 }')
}

# newest_row FILE WORKLOAD MODE [OP [PARAMS]]: prints FILE's newest
# verified row of OP (default run) at this scale made by these programs'
# revision (so a row of older code is never reused), or nothing. PARAMS, a
# comma list of key=value, picks among rows of one operation that differ by
# their flags (YCSB's --workload): the row's params must hold each pair.
newest_row() {
    [ -f "$1" ] || return 0
    programs_rev
    awk -F'\t' -v w="$2" -v m="$3" -v op="${4:-run}" -v want="${5:-}" -v s="$SCALE" -v rev="$_rev" '
        function holds(params,   n, i, kv, have) {
            n = split(params, kv, ",")
            for (i = 1; i <= n; i++) have[kv[i]] = 1
            n = split(want, kv, ",")
            for (i = 1; i <= n; i++) if (!(kv[i] in have)) return 0
            return 1
        }
        /^#/ { next }
        !hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
        $c["workload"] == w && $c["mode"] == m && $c["scale"] == s && $c["git_rev"] == rev &&
        $c["op"] == op && $c["verified"] == "ok" && holds($c["params"]) { row = $0 }
        END { if (row != "") print row }' "$1"
}

# have_row FILE WORKLOAD MODE [OP [PARAMS]]: FILE holds such a row.
have_row() {
    programs_rev
    [ -n "$(newest_row "$@")" ]
}

# copy_row FROM TO WORKLOAD MODE [OP [PARAMS]]: appends FROM's newest such
# row to TO, with FROM's header where TO has none: a report of TO alone then
# reads it beside TO's own rows, in time order.
copy_row() {
    _from=$1 _to=$2
    shift 2
    programs_rev
    _row=$(newest_row "$_from" "$@")
    [ -n "$_row" ] || return 0
    [ -s "$_to" ] || head -n 1 "$_from" >"$_to"
    printf '%s\n' "$_row" >>"$_to"
}

# run_mode W MODE REPS OUT [FLAG...]: one run of W in MODE at SCALE, its row
# appended to OUT; a run that fails or does not verify is recorded (the
# others still run) and returns 1.
run_mode() {
    _w=$1 _m=$2 _reps=$3 _out=$4
    shift 4
    echo "$name: $_w --mode $_m --scale $SCALE${*:+ $*}"
    "$GPM_BIN/$_w" --mode "$_m" --scale "$SCALE" --reps "$_reps" \
        ${GPM_PM_DIR:+--pm-dir "$GPM_PM_DIR"} --out "$_out" "$@"
    _rc=$?
    [ "$_rc" -eq 0 ] && return 0
    echo "$name: FAILED: $_w --mode $_m${*:+ $*} exited with status $_rc (unverified or error; its row, if any, says verified=fail)" >&2
    failed="$failed $_w/$_m"
    return 1
}

# some_ran COUNT WHAT: an experiment for some workloads only (those that
# WHAT) stops with one line when none of WORKLOADS does and none failed.
some_ran() {
    [ "$1" -gt 0 ] || [ -n "$failed" ] || {
        echo "$name: none of the workloads ($(workloads | tr '\n' ' ')) $2" >&2
        exit 1
    }
}

# finish MESSAGE: exit 1 naming every failed run, or print MESSAGE.
finish() {
    if [ -n "$failed" ]; then
        echo "$name: FAILED runs:$failed" >&2
        exit 1
    fi
    echo "$name: $1"
}
