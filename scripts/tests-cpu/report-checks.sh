# Sourced by the sweep-report tests (not a test itself): the setup and the
# checks they make alike. The caller sets root (the repository or bundle);
# build_report sets tmp (a scratch directory) and out (the report).

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

# build_report TARGET CASE: TARGET's report from its fixture rows
# (fixtures/TARGET/rows.tsv) into $out; the whole test stops if it fails.
build_report() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1-report.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/results"
    cp "$root/scripts/tests-cpu/fixtures/$1/rows.tsv" "$tmp/results/$1.tsv"
    out="$tmp/$1.tsv"
    if python3 "$root/scripts/report/$1.py" "$tmp/results" "$out" 2>"$tmp/err"; then
        ok "$2"
    else
        notok "$2" "$(cat "$tmp/err")"
        exit 1
    fi
}

# summary NAME PATTERN: a comment line of the report matches PATTERN.
summary() {
    if grep -q "^# .*$2" "$out"; then ok "$1"; else notok "$1" "no line matching '$2'"; fi
}

# plot_drawn NAME GP: gnuplot draws the report with GP into a PNG of more
# than 10 kB (a plot, not an empty canvas), and says nothing on stderr (no
# warning, such as one for a series without a single number).
plot_drawn() {
    if ! command -v gnuplot >/dev/null 2>&1; then
        echo "skip - $1: gnuplot not installed"
        return
    fi
    gnuplot -e "in='$out'; out='$tmp/$1.png'" "$2" 2>"$tmp/err"
    magic=$(head -c 8 "$tmp/$1.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    size=$(wc -c <"$tmp/$1.png" 2>/dev/null || echo 0)
    if [ "$magic" = 89504e470d0a1a0a ] && [ "$size" -gt 10000 ] && [ ! -s "$tmp/err" ]; then
        ok "$1"
    else
        notok "$1" "PNG of $size bytes, stderr: $(cat "$tmp/err")"
    fi
}

# no_rows_is_an_error NAME SCRIPT PATTERN: SCRIPT on an empty results
# folder fails, writes no report and says PATTERN.
no_rows_is_an_error() {
    mkdir -p "$tmp/empty"
    if python3 "$2" "$tmp/empty" "$tmp/none.tsv" 2>"$tmp/err"; then
        notok "$1" "exited 0 without rows"
    elif grep -q "$3" "$tmp/err" && [ ! -e "$tmp/none.tsv" ]; then
        ok "$1"
    else
        notok "$1" "message: $(cat "$tmp/err")"
    fi
}
