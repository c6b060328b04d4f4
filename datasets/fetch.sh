#!/bin/sh
# Downloads a public dataset into the cache and checks its SHA-256.
#   datasets/fetch.sh NAME      fetch NAME (see datasets/manifest.tsv), print its path
#   datasets/fetch.sh --list    the names, sizes and what they are
# Cache: $GPM_DATA_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/gpmbench. A file
# already there with the right checksum is not downloaded again; one with
# another checksum is removed and the fetch fails. Without network the error
# says where to put a copy obtained elsewhere.
set -u
here=$(cd "$(dirname "$0")" && pwd)
manifest=${GPM_DATA_MANIFEST:-$here/manifest.tsv}
cache=${GPM_DATA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpmbench}

die() { echo "fetch: $*" >&2; exit 1; }

[ $# -eq 1 ] || { echo "usage: datasets/fetch.sh NAME | --list" >&2; exit 2; }
if [ "$1" = --list ] || [ "$1" = --help ]; then
    awk -F'\t' '!/^#/ && NF >= 8 { printf "%-24s %12s bytes  %s (%s)\n", $1, $5, $8, $7 }' "$manifest"
    exit 0
fi
line=$(awk -F'\t' -v n="$1" '!/^#/ && $1 == n' "$manifest")
[ -n "$line" ] || die "no dataset named '$1': see datasets/fetch.sh --list"
file=$(echo "$line" | cut -f2)
url=$(echo "$line" | cut -f3)
sum=$(echo "$line" | cut -f4)
mkdir -p "$cache" || die "cannot create the cache $cache: set GPM_DATA_DIR to a writable directory"
dst=$cache/$file

check() { # the SHA-256 of $dst is the manifest's
    [ "$(sha256sum "$dst" | cut -d' ' -f1)" = "$sum" ]
}

if [ -f "$dst" ]; then
    check && { echo "$dst"; exit 0; }
    got=$(sha256sum "$dst" | cut -d' ' -f1)
    rm -f "$dst"
    die "$dst: SHA-256 $got, expected $sum: removed; run again to download it afresh"
fi
tmp=$dst.part.$$
trap 'rm -f "$tmp"' EXIT
if command -v curl >/dev/null 2>&1; then
    curl -fsSL --connect-timeout 20 -o "$tmp" "$url"
elif command -v wget >/dev/null 2>&1; then
    wget -q -T 20 -O "$tmp" "$url"
else
    false
fi || die "cannot download $1 from $url (no network, or the address moved): get the file elsewhere and put it at $dst, then run this again to check it"
mv "$tmp" "$dst"
if ! check; then
    got=$(sha256sum "$dst" | cut -d' ' -f1)
    rm -f "$dst"
    die "$1 from $url has SHA-256 $got, expected $sum: removed (a changed or damaged download)"
fi
echo "$dst"
