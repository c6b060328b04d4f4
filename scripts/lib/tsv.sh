# Sourced: reading result rows in shell.
#   last_field FILE COL   column COL of the last row of FILE, a TSV whose
#                         first line is its header
#   row_of FILE KEYS      the row of report FILE (lines of '#' first) that
#                         starts with KEYS (its first columns, tab-separated),
#                         as "column=value" lines

last_field() {
    awk -F'\t' -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
                            { v = $c } END { print v }' "$1"
}

row_of() {
    awk -F'\t' -v k="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) n[i] = $i; h = 1; next }
        index($0, k "\t") == 1 { for (i = 1; i <= NF; i++) print n[i] "=" $i; exit }' "$1"
}
