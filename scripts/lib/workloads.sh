# Sourced: the workloads a script runs.
#   workload_list BIN   the comma list in WORKLOADS (any case), or else every
#                       workload program in BIN (all but libgpm's gpm-* tools),
#                       one per word
#   workload_modes BIN W the modes W's --help lists, one per word
#   workload_ops BIN W   the operations W's --help lists (--op a|b), one per
#                        word, or "run" for a workload with one
#   modes_where BIN W KEY=V...  W's modes whose --modes line has every KEY=V
#                        (needs_gpu, kernels_write_pm, resumes, available), one
#                        per word
#   modes_unavailable BIN W     W's modes whose --modes line says available=0
#                        (cap-gds where cuFile cannot write files), one per word
#   mode_available BIN W MODE   W has MODE and it is not one of those
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

modes_unavailable() {
    modes_where "$1" "$2" available=0
}

mode_available() {
    has_mode "$1" "$2" "$3" && ! modes_unavailable "$1" "$2" | grep -qx -- "$3"
}

workload_ops() {
    _ops=$("$1/$2" --help 2>/dev/null | sed -n 's/^usage: .* \[--op \([^] ]*\)\].*/\1/p' | tr '|' ' ')
    echo "${_ops:-run}"
}

# W --modes: "MODE<TAB>needs_gpu=0|1<TAB>kernels_write_pm=0|1<TAB>resumes=0|1<TAB>available=0|1".
modes_where() {
    _b=$1 _w=$2
    shift 2
    "$_b/$_w" --modes 2>/dev/null | awk -F'\t' -v want="$*" '
        { n = split(want, k, " "); ok = 1
          for (i = 1; i <= n; i++) { f = 0; for (j = 2; j <= NF; j++) if ($j == k[i]) f = 1; ok = ok && f }
          if (ok) print $1 }'
}
