# Sourced by the tests of the checker's experiments (not a test itself):
#   checker_setup NAME   skips the whole test (exit 0, one line) where
#                        GPM_BIN lacks ps or gpm-check; else sets scripts,
#                        tmp (a scratch folder removed on exit) and
#                        GPM_PM_DIR (default $tmp/pm), and gives ok, notok
#                        and row_of (scripts/lib/tsv.sh)
#   no_folder_left WHAT PREFIX...
#                        ok WHAT where GPM_PM_DIR holds nothing whose name
#                        starts with a PREFIX; else not ok, listing it
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

no_folder_left() {
    _what=$1
    shift
    for _prefix; do
        if ls "$GPM_PM_DIR" | grep -q -e "^$_prefix"; then
            notok "$_what" "$(ls "$GPM_PM_DIR")"
            return
        fi
    done
    ok "$_what"
}

checker_setup() {
    scripts=${GPM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/scripts
    if [ ! -x "${GPM_BIN:-}/ps" ] || [ ! -x "${GPM_BIN:-}/gpm-check" ]; then
        echo "skip - $1: no ${GPM_BIN:-GPM_BIN}/ps or gpm-check"
        exit 0
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-$1.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/pm"
    export GPM_PM_DIR="${GPM_PM_DIR:-$tmp/pm}"
    . "$scripts/lib/tsv.sh"
}
