#!/bin/sh
# The README a new user reads first: its first commands are the two that
# matter, it stays short, and the packages it names are those the install
# script installs.
set -u
. "$(dirname "$0")/sources.sh"
need_sources readme README.md scripts/install-deps.sh
readme=$root/README.md
first=$(awk '/^```sh/ { on = 1; next } /^```/ { if (on) exit } on' "$readme" | awk '{ print $1, $2 }' | tr '\n' ';')
if [ "$first" = "make figure_9;make test;" ]; then
    echo "ok - the README's first commands are make figure_9 and make test"
else
    echo "not ok - the README's first commands are '$first', not make figure_9 and make test"
fi
n=$(wc -l <"$readme")
if [ "$n" -le 150 ]; then
    echo "ok - the README has at most 150 lines ($n)"
else
    echo "not ok - the README has $n lines: keep it to 150, results belong with their platform"
fi
pkgs=$(sed -n 's/^PKGS="\(.*\)"$/\1/p' "$root/scripts/install-deps.sh")
missing=""
for p in $pkgs; do
    tr '\n' ' ' <"$readme" | grep -q "$p" || missing="$missing $p"
done
if [ -n "$pkgs" ] && [ -z "$missing" ]; then
    echo "ok - the README names every package install-deps.sh installs"
else
    echo "not ok - the README does not name:${missing:- (no PKGS in install-deps.sh)}"
fi
