#!/bin/sh
# Where a run keeps its PM files and writes its row, checked on a real
# workload (PS's CPU counterpart) and gpm-row:
# - a PM directory on a pseudo file system (/proc) or one that cannot be
#   written is refused up front: one line naming it and the fix, exit 2
#   (the README's status for a bad --pm-dir);
# - a PM directory on a disk file system without DAX gets one note line
#   saying what such a run measures; /dev/shm gets none;
# - a row that cannot be written (stdout on /dev/full; a results file past
#   a file-size limit, as on a full disk) fails the run in one line, and a
#   results file made by that call is not left behind empty.
set -u
bin=${GPM_BIN:?GPM_BIN not set}
if [ ! -x "$bin/ps" ] || [ ! -x "$bin/gpm-row" ]; then
    echo "skip - PM directory and row checks: no $bin/ps or gpm-row"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-pmdir-test.XXXXXX") || exit 1
shm=$(mktemp -d /dev/shm/gpm-pmdir-test.XXXXXX) || exit 1
trap 'chmod -R u+w "$tmp" "$shm" 2>/dev/null; rm -rf "$tmp" "$shm"' EXIT
ps() { "$bin/ps" --mode cpu --scale tiny --reps 1 "$@"; }

# refused NAME STATUS PATTERN: the last run exited STATUS with exactly one
# line on stderr, matching PATTERN.
refused() {
    if [ "$rc" -eq "$2" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$3" "$tmp/err"; then
        echo "ok - $1"
    else
        echo "not ok - $1: exit $rc: $(head -c 400 "$tmp/err")"
    fi
}

ps --pm-dir /proc >/dev/null 2>"$tmp/err"
rc=$?
refused "--pm-dir /proc is refused as a pseudo file system, exit 2" 2 \
    "^ps: --pm-dir: /proc is on proc, a pseudo file system, not a place for PM files: pass a directory on PM (or /dev/shm)$"
GPM_PM_DIR=/sys "$bin/ps" --mode cpu --scale tiny --reps 1 >/dev/null 2>"$tmp/err"
rc=$?
refused "GPM_PM_DIR=/sys is refused, naming the variable" 2 "^ps: GPM_PM_DIR: /sys is on sysfs"

# A directory this user cannot write: mode 0555, or, for root (whom the
# mode does not stop), the same directory as user nobody.
mkdir -p "$shm/ro" && chmod 755 "$shm" && chmod 555 "$shm/ro"
as=""
if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv >/dev/null 2>&1 &&
        setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$bin/ps" 2>/dev/null; then
        as="setpriv --reuid=65534 --regid=65534 --clear-groups"
    else
        as=none
    fi
fi
if [ "$as" = none ]; then
    echo "skip - a read-only PM directory: running as root, and user nobody cannot run $bin/ps"
else
    $as "$bin/ps" --mode cpu --scale tiny --reps 1 --pm-dir "$shm/ro" >/dev/null 2>"$tmp/err"
    rc=$?
    refused "a PM directory that cannot be written is refused up front, exit 2" 2 \
        "^ps: --pm-dir: $shm/ro: cannot create files there (Permission denied): pass a directory you can write"
fi

# The note: on a disk file system without DAX, once; on tmpfs, none.
disk=""
for d in "${TMPDIR:-/tmp}" /var/tmp; do
    case $(stat -f -c %T "$d" 2>/dev/null) in tmpfs | ramfs | "") ;; *) disk=$d; break ;; esac
done
if [ -z "$disk" ]; then
    echo "skip - the note on a disk file system: no disk file system among ${TMPDIR:-/tmp} and /var/tmp"
else
    pm=$(mktemp -d "$disk/gpm-pmdir-disk.XXXXXX")
    ps --pm-dir "$pm" >/dev/null 2>"$tmp/err"
    rc=$?
    rm -rf "$pm"
    if [ "$rc" -eq 0 ] && [ "$(grep -c 'note: the PM directory' "$tmp/err")" -eq 1 ] &&
        grep -q "^ps: note: the PM directory $pm is on .* without DAX: PM files there are made durable with msync, .* use a directory under /dev/shm .* a DAX mount" "$tmp/err"; then
        echo "ok - a PM directory on a disk file system without DAX gets one note, and the run goes on"
    else
        echo "not ok - the note on $disk: exit $rc: $(head -c 500 "$tmp/err")"
    fi
fi
mkdir -p "$shm/pm"
ps --pm-dir "$shm/pm" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q "note:" "$tmp/err"; then
    echo "ok - no note on /dev/shm"
else
    echo "not ok - /dev/shm: exit $rc: $(head -c 300 "$tmp/err")"
fi

# The row: stdout on a full device fails the run.
ps --pm-dir "$shm/pm" >/dev/full 2>"$tmp/err"
rc=$?
refused "a row that cannot reach stdout fails the run in one line" 1 \
    "^ps: cannot write the result row to stdout (No space left on device)"
# A results file past the file-size limit (a full disk, as the program sees
# it): the error, and no empty file left. The limited shell's own output
# goes through a pipe, which the limit does not cover.
{
    (trap '' XFSZ; ulimit -f 0; exec "$bin/gpm-row" "$tmp/new.tsv" workload=w op=run) 2>&1
    echo "rc=$?"
} | cat >"$tmp/err"
if grep -q "^rc=1$" "$tmp/err" && grep -q "new.tsv: cannot write a result row (File too large)" "$tmp/err" &&
    [ ! -e "$tmp/new.tsv" ]; then
    echo "ok - a results file that cannot be written is an error and is not left empty"
else
    echo "not ok - results file past the limit: $(head -c 300 "$tmp/err"); $(ls -l "$tmp/new.tsv" 2>&1)"
fi
