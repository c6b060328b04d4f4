#!/usr/bin/env python3
"""Table 4: write amplification, bytes persisted by CAP (CAP-mm, CAP-fs)
over bytes persisted by GPM, per workload.
    table_4.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_9.tsv, then RESULTS_DIR/table_4.tsv (so rows of a
table_4 run win over figure_9 rows of the same workload, mode and scale)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402
import figure_9 as F  # noqa: E402


def main():
    if len(sys.argv) != 3:
        R.fail("usage: table_4.py RESULTS_DIR OUT_TSV")
    results_dir, out = sys.argv[1], sys.argv[2]
    rows = R.read_rows(results_dir, "figure_9.tsv") + R.read_rows(results_dir, "table_4.tsv")
    if not rows:
        R.fail("table_4: no rows in %s/figure_9.tsv or table_4.tsv (run make table_4 first)"
               % results_dir)
    best, warnings = F.newest(rows)
    paper = F.paper_by_workload("table_4")
    header = ["workload", "scale", "gpm_bytes", "capmm_bytes", "capfs_bytes",
              "capmm_wa", "capfs_wa", "paper_wa"]
    out_rows, used = [], []
    for wl, scale in F.groups(best):
        sel = {m: F.pick(best, wl, scale, m) for m in ("gpm", "cap-mm", "cap-fs")}
        used += [r for r in sel.values() if r is not None]
        b = {m: F.fnum(r["bytes_persisted"]) if r else float("nan") for m, r in sel.items()}
        out_rows.append([wl, scale] + [int(b[m]) if F.finite(b[m]) else b[m]
                                       for m in ("gpm", "cap-mm", "cap-fs")] + [
                         F.ratio(b["cap-mm"], b["gpm"]), F.ratio(b["cap-fs"], b["gpm"]),
                         F.paper_val(paper, wl, "wa")])
    comments = (["Table 4: write amplification = bytes persisted per repetition by CAP / by GPM "
                 "(newest verified run per workload, mode and scale)"]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + F.paper_comments("table_4"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
