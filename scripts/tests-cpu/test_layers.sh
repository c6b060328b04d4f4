#!/bin/sh
# The layers: no file of libgpm (its sources, its headers, its tools)
# includes a header that libgpm does not hold, such as the harness's
# (workloads/common); no workload's own code (its tests aside) includes the
# harness's private header, harness.h. Lists each file that does.
set -u
. "$(dirname "$0")/sources.sh"
need_sources layers libgpm/src
cd "$root" || exit 1
# FILE:HEADER for each quoted include of libgpm that no folder of libgpm has.
outside=$(grep -rnoE --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' \
    '^#include "[^"]+"' libgpm | sed 's/:[0-9]*:#include "/ /; s/"$//' |
    while read -r file header; do
        [ -f "libgpm/include/$header" ] || [ -f "$(dirname "$file")/$header" ] ||
            echo "$file: $header"
    done)
n=$(grep -rhE --include='*.c' --include='*.cu' '^#include "' libgpm | wc -l)
if [ -z "$outside" ] && [ "$n" -gt 0 ]; then
    echo "ok - libgpm's $n includes are all of its own headers: nothing of the harness"
else
    echo "not ok - libgpm includes headers it does not hold (the harness's?)"
    echo "$outside" | sed 's/^/#   /'
fi

# Workload files (not common/, not tests/) that include harness.h.
private=$(grep -rlE --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' \
    '^#include "harness\.h"' workloads | grep -vE '^workloads/common/|/tests/')
w=$(find workloads -mindepth 1 -maxdepth 1 -type d ! -name common | wc -l)
if [ -z "$private" ] && [ "$w" -gt 0 ]; then
    echo "ok - none of the $w workloads includes the harness's private header"
else
    echo "not ok - workloads include harness.h: use wl.h's accessors"
    echo "$private" | sed 's/^/#   /'
fi
