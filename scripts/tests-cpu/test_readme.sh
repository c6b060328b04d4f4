#!/bin/sh
# The README a new user reads first: its first commands are the two that
# matter, it stays short, and the packages it names are those the install
# script installs; how to add a workload stays short too, and so does
# each platform's results README.
set -u
. "$(dirname "$0")/sources.sh"
need_sources readme README.md scripts/install-deps.sh workloads/README.md
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
# A newcomer reads how to add a workload in under ten minutes.
words=$(awk '/^## /{f = ($0 == "## Adding a workload")} f' "$root/workloads/README.md" | wc -w)
if [ "$words" -gt 200 ] && [ "$words" -le 1500 ]; then
    echo "ok - workloads/README.md's 'Adding a workload' has at most 1500 words ($words)"
else
    echo "not ok - workloads/README.md's 'Adding a workload' has $words words: keep it to 1500"
fi
# A platform's results README is read in five minutes; how its numbers
# moved goes to HISTORY.md beside it.
for r in "$root"/results/*/README.md; do
    [ -f "$r" ] || continue
    p=$(basename "$(dirname "$r")") n=$(wc -l <"$r")
    if [ "$n" -le 150 ]; then
        echo "ok - results/$p/README.md has at most 150 lines ($n)"
    else
        echo "not ok - results/$p/README.md has $n lines: keep it to 150, the history in results/$p/HISTORY.md"
    fi
done
