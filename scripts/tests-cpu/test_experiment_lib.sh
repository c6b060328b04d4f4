#!/bin/sh
# The experiment scripts' reuse of rows (scripts/experiments/lib.sh):
# have_row accepts only a verified row of this scale and these programs'
# revision, and copy_row appends that row, the newest, to another file,
# with the header where the file has none; runs_transactions reads --help.
set -u
bin=${GPM_BIN:?GPM_BIN not set}
dir=$(mktemp -d "${TMPDIR:-/tmp}/explib.XXXXXX")
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1: $2"; fi; }

from=$dir/figure_9.tsv to=$dir/roofline.tsv
"$bin/gpm-row" "$from" workload=hs op=run mode=gpm scale=paper reps=3 median_s=1 verified=ok
"$bin/gpm-row" "$from" workload=hs op=run mode=gpm scale=paper reps=3 median_s=2 verified=ok
"$bin/gpm-row" "$from" workload=hs op=run mode=cap-mm scale=paper reps=3 median_s=3 verified=fail
"$bin/gpm-row" "$from" workload=hs op=run mode=cap-fs scale=small reps=3 median_s=4 verified=ok
"$bin/gpm-row" "$from" workload=kvs op=set mode=gpm scale=paper reps=3 median_s=5 verified=ok
# A row of other programs: its revision changed.
"$bin/gpm-row" "$from" workload=db op=update mode=gpm scale=paper reps=3 median_s=6 verified=ok
awk -F'\t' 'BEGIN { OFS = "\t" } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "git_rev") k = i }
    NR > 1 && $0 ~ /\tdb\t/ { $k = "0000000older" } { print }' "$from" >"$dir/x" && mv "$dir/x" "$from"

# shellcheck disable=SC2034 # name, GPM_BIN and SCALE are lib.sh's inputs
name=test GPM_BIN=$bin SCALE=paper RESULTS_DIR=$dir
. "$(dirname "$0")/../experiments/lib.sh"
check "a verified row of this revision and scale is found" 'have_row "$from" hs gpm'
check "an operation is matched" 'have_row "$from" kvs gpm set && ! have_row "$from" kvs gpm get-set'
check "an unverified row is not" '! have_row "$from" hs cap-mm'
check "a row of another scale is not" '! have_row "$from" hs cap-fs'
check "a row of another revision is not" '! have_row "$from" db gpm update'
check "kvs and db run transactions, ps none" 'runs_transactions kvs && runs_transactions db && ! runs_transactions ps'
copy_row "$from" "$to" hs gpm
check "the copy starts with the header" '[ "$(head -n 1 "$to")" = "$(head -n 1 "$from")" ]'
col() { awk -F'\t' -v c="$1" -v r="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == r { print $k }' "$to"; }
check "the newest matching row is copied, whole" '[ "$(wc -l <"$to")" -eq 2 ] && [ "$(col median_s 2)" = 2 ] && [ "$(sed -n 2p "$to")" = "$(sed -n 3p "$from")" ]'
copy_row "$from" "$to" kvs gpm set
check "a second copy adds its row and no header" '[ "$(wc -l <"$to")" -eq 3 ] && [ "$(col workload 3)" = kvs ] && [ "$(grep -c "^gpu	" "$to")" -eq 1 ]'
copy_row "$from" "$to" hs cap-mm
check "nothing is copied where no row is accepted" '[ "$(wc -l <"$to")" -eq 3 ]'
rm -rf "$dir"
