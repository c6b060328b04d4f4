# Sourced: reading result rows in shell.
#   last_field FILE COL   column COL of the last row of FILE, a TSV whose
#                         first line is its header

last_field() {
    awk -F'\t' -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
                            { v = $c } END { print v }' "$1"
}
