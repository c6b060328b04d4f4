#!/bin/sh
# Builds reports from raw result rows.
#   scripts/reports.sh [TARGET...]   (default: every target with a report script)
# For each TARGET, scripts/report/TARGET.py reads results/$PLATFORM/ (or
# RESULTS_DIR) and writes reports/$PLATFORM/TARGET.tsv (or REPORTS_DIR; a
# RESULTS_DIR of another name gets reports/<its name>/): each platform's
# reports stay apart, so a local run never overwrites a reference's.
# scripts/plot/TARGET.gp, when present and gnuplot is installed, draws
# TARGET.png beside it. With no TARGET it also writes summary.md
# (scripts/report/summary.py), and fails if no report could be built.
# REF_REV=REV: the rows of that revision alone (a prefix of git_rev);
# REF_REV=any: every row, a history. With no TARGET, rows of several
# revisions and neither are refused: they are no one revision's reference.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
results=${RESULTS_DIR:-$root/results/${PLATFORM:-local}}
reports=${REPORTS_DIR:-$root/reports/$(basename "$results")}
if [ ! -d "$results" ]; then
    have=$(cd "$root/results" 2>/dev/null && ls -d */ 2>/dev/null | tr -d / | paste -s -d ' ')
    echo "reports: no folder ${results#"$root"/}: run an experiment with PLATFORM=$(basename "$results") first, or name a platform that has rows: ${have:-none}" >&2
    exit 1
fi
# Named targets must build; with none, every report whose rows exist is
# built and the others are named and skipped (a platform's results need not
# hold every experiment).
every=0
if [ $# -eq 0 ]; then
    every=1
    set -- $(cd "$here/report" && ls *.py 2>/dev/null |
        grep -v -e '^rows\.py$' -e '^summary\.py$' -e '^compare\.py$' |
        sed 's/\.py$//')
fi
# A reference is one revision's rows: the revisions of the rows (their
# git_rev column), of those REF_REV names, must be one.
if [ "$every" -eq 1 ] && [ "${REF_REV:-}" != any ]; then
    all=$(awk -F'\t' 'FNR == 1 { c = 0; for (i = 1; i <= NF; i++) if ($i == "git_rev") c = i; next }
        c && !($c in s) { s[$c] = 1; print $c }' "$results"/*.tsv 2>/dev/null || :)
    revs=$(echo "$all" | awk -v r="${REF_REV:-}" 'NF && index($0, r) == 1' | paste -s -d ' ')
    n=$(echo "$revs" | wc -w)
    if [ -n "${REF_REV:-}" ] && [ "$n" -eq 0 ]; then
        echo "reports: ${results#"$root"/}: no rows of revision $REF_REV: name one of $(echo "$all" | paste -s -d ' ')" >&2
        exit 1
    fi
    if [ "$n" -gt 1 ]; then
        echo "reports: ${results#"$root"/}: rows from $n revisions ($revs): not one revision's reference; pass REF_REV=<rev> to report that revision's rows alone, or REF_REV=any to report them all as a history" >&2
        exit 1
    fi
fi
mkdir -p "$reports"
# scale_of TSV: the one scale of a report's rows (its scale column), or
# nothing where they have several or none: one scale is said once, in the
# subtitle, rather than on every tic label.
scale_of() {
    awk -F'\t' '/^#/ { next }
         !h { for (i = 1; i <= NF; i++) if ($i == "scale") c = i; h = 1; next }
         c && $c != "" && !($c in seen) { seen[$c] = 1; n++; s = $c }
         END { if (n == 1) print s }' "$1"
}
# The platform, revision and scale a report's rows come from, for its
# plot's subtitle: a plot pasted into slides keeps saying what it measured.
subtitle() {
    awk -v sc="$(scale_of "$1")" '/^# platform: / { n++; p = substr($0, 13) }
         /^# revision: / { r = substr($0, 13) }
         /^# NOTE: rows come from several revisions/ { r = "several revisions" }
         END {
             s = sc != "" ? ", scale " sc : ""
             if (n > 1) { printf "%d platforms (see the TSV)%s", n, s; exit }
             split(p, kv, ", ")
             for (i in kv) { k = kv[i]; sub(/=.*/, "", k); v = kv[i]; sub(/^[^=]*=/, "", v); f[k] = v }
             printf "%s, PCIe %s, PM %s (persistence domain %s)\tDDIO %s, revision %s%s",
                    f["gpu"], f["pcie"], f["pm_backend"], f["persist_domain"], f["ddio"], r, s
         }' "$1" | tr -d "'" | tr -d '\\'
}
# gnuplot_sub FILE: the subtitle as a gnuplot string expression, on two
# lines where it has two parts (on one it runs wider than a plot).
tab=$(printf '\t')
gnuplot_sub() {
    s=$(subtitle "$1")
    case $s in
        *"$tab"*) printf '%s' "'${s%%"$tab"*}'.\"\\n\".'${s#*"$tab"}'" ;;
        *) printf '%s' "'$s'" ;;
    esac
}

built=0
for t in "$@"; do
    [ -f "$here/report/$t.py" ] || continue
    if [ "$every" -eq 1 ]; then
        if ! why=$(python3 "$here/report/$t.py" "$results" "$reports/$t.tsv" 2>&1); then
            echo "report: $t skipped: $why"
            continue
        fi
    else
        python3 "$here/report/$t.py" "$results" "$reports/$t.tsv"
    fi
    built=$((built + 1))
    echo "report: $reports/$t.tsv"
    if [ -f "$here/plot/$t.gp" ]; then
        if command -v gnuplot >/dev/null 2>&1; then
            # The paper's numbers, for a plot that draws them from their file.
            paper=$root/reports/paper/$t.tsv
            [ -f "$paper" ] || paper=""
            one=0
            [ -z "$(scale_of "$reports/$t.tsv")" ] || one=1
            gnuplot -e "in='$reports/$t.tsv'; out='$reports/$t.png'; paper='$paper'; one_scale=$one; sub=$(gnuplot_sub "$reports/$t.tsv")" \
                "$here/plot/$t.gp"
            echo "plot: $reports/$t.png"
        else
            echo "plot: gnuplot not installed, $reports/$t.png not drawn"
        fi
    fi
done
# Every report built: the summary beside them. Without one, a summary would
# only say "no rows": an error instead.
if [ "$every" -eq 1 ] && [ "$built" -eq 0 ]; then
    echo "reports: no report could be built from the rows in ${results#"$root"/}: run an experiment there first" >&2
    exit 1
fi
if [ "$every" -eq 1 ]; then
    python3 "$here/report/summary.py" "$reports" "$reports/summary.md" "$results"
    echo "summary: $reports/summary.md"
fi
