#!/bin/sh
# The layers: no file of libgpm (its sources, its headers, its tools)
# includes a header that libgpm does not hold, such as the harness's
# (workloads/common); no workload's own code (its tests aside) includes the
# harness's private header, harness.h; no two of the harness's files call
# each other, directly or around a loop. Lists what breaks each.
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

# The harness's files in loops of calls: each loop on a line. A function
# wl_X is defined where a line starts with its type and name, and a file
# calls it where wl_X( appears in it.
loops=$(python3 - workloads/common 2>/dev/null <<'PY'
import collections, glob, os, re, sys
sys.setrecursionlimit(10000)
os.chdir(sys.argv[1])
files = sorted(glob.glob('*.c') + glob.glob('*.cu'))
src = {f: open(f).read() for f in files}
defn = re.compile(r'^[a-z][a-z_0-9 ]*[ *](wl_[a-z_0-9]+)\([^;]*$', re.M)
where = {}
for f in files:
    for m in defn.finditer(src[f]):
        where.setdefault(m.group(1), f)
E = collections.defaultdict(set)
for f in files:
    for fn in set(re.findall(r'\b(wl_[a-z_0-9]+)\(', src[f])):
        d = where.get(fn)
        if d and d != f:
            E[f].add(d)
idx, low, st, on, out = {}, {}, [], set(), []
def visit(v):
    idx[v] = low[v] = len(idx); st.append(v); on.add(v)
    for w in E[v]:
        if w not in idx:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        c = []
        while True:
            w = st.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        if len(c) > 1:
            out.append(sorted(c))
for v in files:
    if v not in idx:
        visit(v)
for c in out:
    print(' '.join(c))
print('#', len(files), sum(len(v) for v in E.values()))
PY
)
counts=$(echo "$loops" | sed -n 's/^# //p')
loops=$(echo "$loops" | grep -v '^#')
if [ -z "$loops" ] && [ -n "$counts" ] && [ "${counts#* }" -gt 20 ]; then
    echo "ok - the harness's ${counts% *} files call each other in no loop (${counts#* } calls between files)"
else
    echo "not ok - the harness's files call each other around loops: move a function down"
    echo "${loops:-(the call graph was not read)}" | sed 's/^/#   /'
fi
