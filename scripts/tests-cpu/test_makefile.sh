#!/bin/sh
# The Makefile: a plain `make` builds everything (the default goal is all,
# however rules are ordered), and a changed revision rebuilds the object
# that reports it, so rows never name an older build's revision.
set -u
. "$(dirname "$0")/sources.sh"
need_sources makefile Makefile
goal=$(make -C "$root" -pnq 2>/dev/null | awk '$1 == ".DEFAULT_GOAL" { print $3; exit }')
if [ "$goal" = all ]; then
    echo "ok - a plain make builds all"
else
    echo "not ok - a plain make builds '$goal', not all"
fi
if make -C "$root" -pnq 2>/dev/null | grep -q '^build/libgpm/src/platform.o: .*build/git-rev'; then
    echo "ok - the object that reports the revision depends on its stamp"
else
    echo "not ok - platform.o does not depend on build/git-rev"
fi
# Under make -j, prerequisites run side by side: a target that lists the
# build beside deps compiles before the -dev packages are in, and Figure 1's
# two panels would share the GPU they measure.
db=$(make -C "$root" -pnq 2>/dev/null)
beside=$(echo "$db" | awk -F': *' '/^[a-z_0-9-]+: / && $2 ~ /(^| )deps( |$)/ && $2 ~ /(^| )all( |$)/ { print $1 }' | tr '\n' ' ')
if [ -z "$beside" ]; then
    echo "ok - no target builds beside deps (safe under make -j)"
else
    echo "not ok - these targets build beside deps, which make -j runs at once: $beside"
fi
if echo "$db" | grep -q '^figure_1: *$'; then
    echo "ok - make figure_1 runs its panels one after the other"
else
    echo "not ok - figure_1 has its panels as prerequisites, which make -j runs at once"
fi
