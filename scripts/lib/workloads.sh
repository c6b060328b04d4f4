# Sourced: the workloads a script runs.
#   workload_list BIN   the comma list in WORKLOADS (any case), or else every
#                       workload program in BIN (all but libgpm's gpm-* tools),
#                       one per word
#   workload_modes BIN W the modes W's --help lists, one per word
#   workload_ops BIN W   the operations W's --help lists (--op a|b), one per
#                        word, or "run" for a workload with one
workload_list() {
    if [ -n "${WORKLOADS:-}" ]; then
        echo "$WORKLOADS" | tr 'A-Z,' 'a-z '
        return
    fi
    for _p in "$1"/*; do
        case ${_p##*/} in gpm-*) ;; *) [ -f "$_p" ] && [ -x "$_p" ] && echo "${_p##*/}" ;; esac
    done
}

# The harness's usage line: "usage: W --mode gpm|gpm-ndp|... [--scale ...".
workload_modes() {
    "$1/$2" --help 2>/dev/null | sed -n 's/^usage: [^ ]* --mode \([^ ]*\).*/\1/p' | tr '|' ' '
}

# has_mode BIN W MODE: W's --help lists MODE.
has_mode() {
    case " $(workload_modes "$1" "$2") " in *" $3 "*) return 0 ;; esac
    return 1
}

workload_ops() {
    _ops=$("$1/$2" --help 2>/dev/null | sed -n 's/^usage: .* \[--op \([^] ]*\)\].*/\1/p' | tr '|' ' ')
    echo "${_ops:-run}"
}
