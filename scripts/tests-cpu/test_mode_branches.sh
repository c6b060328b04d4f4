#!/bin/sh
# The mode table and its engines decide what a mode does: no code outside
# them tests a mode's number or an engine (workloads/README.md). Lists each
# line of the sources (tests aside) that does: WL_ENGINE_, opt.mode compared
# with a mode constant or switched on, or a row's engine compared with one.
set -u
. "$(dirname "$0")/sources.sh"
need_sources "mode branches" workloads/common/wl.h
pattern='WL_ENGINE_|opt\.mode *[!=]= *WL_|WL_[A-Z_]+ *[!=]= *[a-z_>.-]*opt\.mode|switch *\([a-z_>.-]*opt\.mode\)|(commit|tx) *[!=]= *&wl_(commit|tx)_'
# branches DIR...: the offending lines under DIR, FILE:LINE: TEXT.
branches() {
    grep -rnE --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' "$pattern" "$@" |
        grep -vE '/tests/|/common/(mode|persist|volatile|tx_engines)\.c:'
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-mode-branches.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/w"
printf 'if (c->opt.mode == WL_CPU)\nif (c->m->commit != &wl_commit_flush)\nif (c->m->fences)\n' >"$tmp/w/x.c"
if [ "$(branches "$tmp/w" | wc -l)" -eq 2 ]; then
    echo "ok - the check finds a test of the mode and of an engine, and nothing else"
else
    echo "not ok - the check does not find exactly the two branches of its sample"
fi
found=$(cd "$root" && branches workloads libgpm)
if [ -z "$found" ]; then
    echo "ok - no code outside the mode table and its engines tests a mode or an engine"
else
    echo "not ok - these lines test a mode or an engine: read a column of the mode table instead"
    echo "$found" | sed 's/^/#   /'
fi
