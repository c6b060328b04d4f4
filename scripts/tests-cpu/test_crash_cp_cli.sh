#!/bin/sh
# gpm-crash-cp's command line (checked before any GPU is touched): --help on
# stdout with exit 0; a bad flag or value is one line on stderr, exit 2.
set -u
bin=${GPM_BIN:?GPM_BIN not set}
t=$(mktemp -d "${GPM_PM_DIR:-/tmp}/crash-cp-cli.XXXXXX")
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1: $2"; fi; }
run() { "$bin/gpm-crash-cp" "$@" >"$t/out" 2>"$t/err"; rc=$?; }

run --help
check "help goes to stdout with exit 0" '[ $rc -eq 0 ] && grep -q "cap-fs" "$t/out" && [ ! -s "$t/err" ]'
bad() {
    run "$@"
    check "$*: refused with one line naming the flag, exit 2" \
        '[ $rc -eq 2 ] && [ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q -- "$flag" "$t/err"'
}
flag=--bogus bad --bogus
flag=--file bad --file
flag=--file bad --size 1M
flag=--size bad --file x --size 12
flag=--size bad --file x --size 4Q
flag=--mode bad --file x --mode cap-xx
flag=--kill-after-us bad --file x --kill-after-us 500
flag=--kill-after-us bad --file x --kill-after-us 9:3
flag=--seed bad --file x --seed -4
flag=--iters bad --file x --iters ten
flag=extra bad --file x extra
check "nothing was created" '[ ! -e "$GPM_PM_DIR/x" ] && [ ! -e "$GPM_PM_DIR/x.progress" ]'
rm -rf "$t"
