#!/bin/sh
# The Makefile: a plain `make` builds everything (the default goal is all,
# however rules are ordered), and a changed revision rebuilds the object
# that reports it, so rows never name an older build's revision.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
if [ ! -f "$root/Makefile" ]; then
    echo "skip - makefile: no Makefile in $root (a bundle)"
    exit 0
fi
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
