#!/bin/sh
# gpm-inspect on the workload harness's own files, made by real runs of
# PS's CPU counterpart: the run identity W-TAG.id field by field (workload,
# parameters, seed, mode by name, epoch, state, sequence, pid, object
# sizes, each slot's validity and which is current), after a finished run
# and after a SIGKILL; a torn slot; a region named as what it is; a file
# that is nothing of the harness's still refused.
set -u
bin=${GPM_BIN:?GPM_BIN not set}
if [ ! -x "$bin/ps" ] || [ ! -x "$bin/gpm-inspect" ]; then
    echo "skip - gpm-inspect on harness files: no $bin/ps or gpm-inspect"
    exit 0
fi
tmp=$(mktemp -d "${GPM_PM_DIR:-/dev/shm}/gpm-inspect-harness.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# has NAME PATTERN...: the last inspection printed a line matching each.
has() {
    _name=$1
    shift
    for _p in "$@"; do
        if ! grep -q -- "$_p" "$tmp/out"; then
            echo "not ok - $_name: no line '$_p' in: $(tr '\t\n' ' |' <"$tmp/out" | head -c 600)"
            return
        fi
    done
    echo "ok - $_name"
}

"$bin/ps" --mode cpu --scale tiny --seed 7 --keep --pm-dir "$tmp" >/dev/null 2>&1
"$bin/gpm-inspect" "$tmp/ps-tiny.id" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || echo "not ok - gpm-inspect ps-tiny.id exited $rc: $(cat "$tmp/out")"
has "a finished run's identity, field by field" \
    "^kind	run identity of the workload harness" \
    "^workload	ps$" "^params	n=1048576,block=4096$" "^seed	7$" "^mode	cpu$" \
    "^state	complete: " "^epoch	[1-9][0-9]*$" "^sequence	[1-9][0-9]*$" "^pid	[1-9][0-9]* " \
    "^objects	1: [1-9][0-9]* bytes$" "^files	ps-tiny.sums ([1-9][0-9]* bytes)$"
# Which slot is current depends on how many updates the run made; the
# other holds the update before it.
cur=$(sed -n 's/^current	slot \([01]\)$/\1/p' "$tmp/out")
oth=$((1 - ${cur:-0}))
has "both slots valid, the one with the higher sequence current" \
    "^slot $cur	valid: sequence [0-9]*, complete, epoch [0-9]* (current)$" \
    "^slot $oth	valid: sequence [0-9]*, running, epoch"
# The sequence printed is the current slot's, one above the other's.
sc=$(sed -n "s/^slot $cur	valid: sequence \([0-9]*\),.*/\1/p" "$tmp/out")
so=$(sed -n "s/^slot $oth	valid: sequence \([0-9]*\),.*/\1/p" "$tmp/out")
if [ -n "$sc" ] && [ -n "$so" ] && [ "$sc" -eq $((so + 1)) ] && grep -q "^sequence	$sc$" "$tmp/out"; then
    echo "ok - the current slot's sequence is one above the other's"
else
    echo "not ok - sequences: current slot '$sc', other '$so'"
fi

# A torn write: one byte of the current slot changed. The other is current.
printf 'X' | dd of="$tmp/ps-tiny.id" bs=1 seek=$((cur * 2048 + 100)) conv=notrunc 2>/dev/null
"$bin/gpm-inspect" "$tmp/ps-tiny.id" >"$tmp/out" 2>&1
has "a torn slot is named invalid and the other is current" \
    "^slot $cur	invalid: checksum mismatch (a write torn by a crash, or damage)$" \
    "^slot $oth	valid: .* (current)$" "^current	slot $oth$" "^state	running: "

# A region: what it is, from its name, and its run's state.
"$bin/gpm-inspect" "$tmp/ps-tiny.sums" >"$tmp/out" 2>&1
has "a region is named as the workload's object, in the workload's own layout" \
    "^kind	region 'sums' of workload ps (run tiny): [0-9]* bytes of raw data in the workload's own layout (workloads/ps/)" \
    "^identity	.*ps-tiny.id: running, epoch [0-9]*, mode cpu"

# Killed mid-work, with size flags (a custom tag): RUNNING, resumable.
"$bin/ps" --mode cpu --n 64M --block 256 --reps 1 --kill progress:3 --keep --pm-dir "$tmp" \
    >/dev/null 2>&1
id=$(ls "$tmp"/ps-custom-*.id 2>/dev/null | head -n 1)
if [ -z "$id" ]; then
    echo "not ok - a killed run left no identity: $(ls "$tmp")"
else
    GPM_PM_DIR=$tmp "$bin/gpm-inspect" "$(basename "$id")" >"$tmp/out" 2>&1
    has "a killed run's identity says it was running, with its parameters" \
        "^state	running: a repetition was under way: --recover resumes" \
        "^params	n=67108864,block=256$" "^mode	cpu$" "^files	ps-custom-[0-9a-f]*.sums"
fi

# Wrong-sized .id, and a file of nobody: refused with the file named.
head -c 100 /dev/zero >"$tmp/db-small.id"
"$bin/gpm-inspect" "$tmp/db-small.id" >"$tmp/out" 2>&1
rc=$?
has "a .id of another size is refused, named" "db-small.id: 100 bytes, where a run identity has 4096"
[ "$rc" -eq 1 ] || echo "not ok - wrong-sized .id: exit $rc"
echo "text" >"$tmp/notes.txt"
"$bin/gpm-inspect" "$tmp/notes.txt" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "notes.txt: neither a libgpm log nor a checkpoint file" "$tmp/out"; then
    echo "ok - a file of nobody's is still refused"
else
    echo "not ok - notes.txt: exit $rc: $(cat "$tmp/out")"
fi
