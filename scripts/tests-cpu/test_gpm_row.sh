#!/bin/sh
# gpm-row: rows in the suite's schema, platform columns first, header once.
set -u
bin=${GPM_BIN:?GPM_BIN not set}
f=$(mktemp "${GPM_PM_DIR:-/tmp}/rows.XXXXXX")
rm -f "$f"
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1: $2"; fi; }

"$bin/gpm-row" "$f" workload=crash-log op=hcl mode=gpm reps=50 verified=ok params=trials=50
"$bin/gpm-row" "$f" workload=crash-log op=conv reps=7 verified=fail
check "header written once" '[ "$(grep -c "^gpu	" "$f")" -eq 1 ] && [ "$(wc -l <"$f")" -eq 3 ]'
col() { awk -F'\t' -v c="$1" -v r="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == r { print $k }' "$f"; }
check "values land in their columns" '[ "$(col op 2)" = hcl ] && [ "$(col reps 3)" = 7 ] && [ "$(col verified 3)" = fail ] && [ "$(col params 2)" = trials=50 ]'
check "platform columns filled" '[ -n "$(col git_rev 2)" ] && [ -n "$(col pm_backend 2)" ]'
check "every row has the header's columns" '[ "$(awk -F"\t" "{print NF}" "$f" | sort -u | wc -l)" -eq 1 ]'
check "a count's spread is unknown (nan), not 0, unless given" '[ "$(col rsd_pct 2)" = nan ] && [ "$(col rsd_pct 3)" = nan ]'
"$bin/gpm-row" "$f" workload=x op=y reps=5 rsd_pct=3.25
check "a given spread lands in rsd_pct, before rep_s, the last column" '[ "$(col rsd_pct 4)" = 3.25 ] && [ "$(head -n 1 "$f" | awk -F"\t" "{print \$(NF - 1) \" \" \$NF}")" = "rsd_pct rep_s" ]'
check "a count keeps no repetitions: rep_s empty" '[ -z "$(col rep_s 2)" ] && [ -z "$(col rep_s 4)" ]'
# A file of a schema before rsd_pct (its header ends at params) or before
# rep_s (it ends at rsd_pct) is refused with a line that says so, and left
# as it was.
for old in rsd_pct rep_s; do
    case $old in rsd_pct) cut='	rsd_pct	rep_s' ;; *) cut='	rep_s' ;; esac
    head -n 1 "$f" | sed "s/$cut\$//" >"$f.old"
    "$bin/gpm-row" "$f.old" workload=x op=y 2>"$f.err"; rc=$?
    check "a file written before $old is refused, naming the column and the fix" \
        '[ $rc -eq 1 ] && [ "$(wc -l <"$f.err")" -eq 1 ] && grep -q "written before the $old column.*move this one aside" "$f.err" && [ "$(wc -l <"$f.old")" -eq 1 ]'
done
"$bin/gpm-row" "$f" workload=x op=y bogus=1 2>"$f.err"; rc=$?
check "unknown key is refused with exit 2" '[ $rc -eq 2 ] && grep -q "bogus=1" "$f.err"'
"$bin/gpm-row" "$f" op=y 2>"$f.err"; rc=$?
check "workload is required" '[ $rc -eq 2 ] && grep -q "workload" "$f.err"'
check "refused rows are not written" '[ "$(wc -l <"$f")" -eq 4 ]'
rm -f "$f" "$f.err" "$f.old"
