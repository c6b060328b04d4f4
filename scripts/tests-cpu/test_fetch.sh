#!/bin/sh
# datasets/fetch.sh without network: a file:// address stands in for the
# public one. A good download is checked and kept, a wrong checksum is
# removed with one line, an address that cannot be reached says where to put
# a copy, and an unknown name is an error naming --list.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
fetch=$root/datasets/fetch.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-fetch-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'hello dataset\n' >"$tmp/src.bin"
good=$(sha256sum "$tmp/src.bin" | cut -d' ' -f1)
bad=0000000000000000000000000000000000000000000000000000000000000000
printf '# test manifest\nok\tok.bin\tfile://%s/src.bin\t%s\t14\tCC0\ttest\ta good one\n' "$tmp" "$good" >"$tmp/m.tsv"
printf 'wrong\twrong.bin\tfile://%s/src.bin\t%s\t14\tCC0\ttest\ta wrong checksum\n' "$tmp" "$bad" >>"$tmp/m.tsv"
printf 'gone\tgone.bin\thttp://127.0.0.1:9/none\t%s\t14\tCC0\ttest\tunreachable\n' "$good" >>"$tmp/m.tsv"
export GPM_DATA_MANIFEST=$tmp/m.tsv GPM_DATA_DIR=$tmp/cache

expect() { # NAME STATUS PATTERN ARGS...: exit STATUS, PATTERN on stdout+stderr
    n=$1 st=$2 pat=$3
    shift 3
    "$fetch" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$st" ]; then
        echo "not ok - $n: exit $rc, expected $st: $(head -c 300 "$tmp/out")"
    elif ! grep -q -- "$pat" "$tmp/out"; then
        echo "not ok - $n: no '$pat' in: $(head -c 300 "$tmp/out")"
    else
        echo "ok - $n"
    fi
}
expect "a good download is checked and its path printed" 0 "^$tmp/cache/ok.bin$" ok
expect "a cached copy is not downloaded again" 0 "^$tmp/cache/ok.bin$" ok
expect "a wrong checksum is one line naming both sums" 1 "SHA-256 $good, expected $bad: removed" wrong
if [ -e "$tmp/cache/wrong.bin" ]; then echo "not ok - a wrong download is removed"; else echo "ok - a wrong download is removed"; fi
expect "no network says where to put a copy" 1 "cannot download gone from http://127.0.0.1:9/none .* put it at $tmp/cache/gone.bin" gone
expect "an unknown name points to --list" 1 "no dataset named 'nosuch': see datasets/fetch.sh --list" nosuch
printf 'tampered\n' >"$tmp/cache/ok.bin"
expect "a damaged cached copy is removed" 1 "expected $good: removed; run again" ok
expect "--list shows the manifest" 0 "a good one" --list
expect "the real manifest parses" 0 "" --list
n=$(GPM_DATA_MANIFEST=$root/datasets/manifest.tsv "$fetch" --list | wc -l)
# (No interval expressions: Debian's default awk, mawk, lacks them.)
bad_lines=$(awk -F'\t' '!/^#/ && (NF < 8 || length($4) != 64 || $4 !~ /^[0-9a-f]+$/)' \
    "$root/datasets/manifest.tsv" | wc -l)
if [ "$bad_lines" -eq 0 ]; then
    echo "ok - every manifest line has 8 fields and a SHA-256 ($n datasets)"
else
    echo "not ok - $bad_lines manifest lines lack a field or a SHA-256"
fi
