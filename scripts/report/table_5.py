#!/usr/bin/env python3
"""Table 5: restoration latency in GPM as a percentage of the operation
time: median_s of a --recover run (op=recover) over median_s of a normal
GPM run (op=run) of the same workload and scale.
    table_5.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/table_5.tsv."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402
import figure_9 as F  # noqa: E402


def main():
    if len(sys.argv) != 3:
        R.fail("usage: table_5.py RESULTS_DIR OUT_TSV")
    results_dir, out = sys.argv[1], sys.argv[2]
    rows = R.read_rows(results_dir, "table_5.tsv")
    if not rows:
        R.fail("table_5: no rows in %s (run make table_5 first)"
               % os.path.join(results_dir, "table_5.tsv"))
    best, warnings = F.newest(rows, ops=("run", "recover"))
    paper = F.paper_by_workload("table_5")
    header = ["workload", "scale", "run_s", "restore_s", "restore_pct", "paper_restore_pct"]
    out_rows, used = [], []
    for wl, scale in F.groups(best):
        run = F.pick(best, wl, scale, "gpm", "run")
        rec = F.pick(best, wl, scale, "gpm", "recover")
        used += [r for r in (run, rec) if r is not None]
        t_run = F.fnum(run["median_s"]) if run else float("nan")
        t_rec = F.fnum(rec["median_s"]) if rec else float("nan")
        out_rows.append([wl, scale, t_run, t_rec, 100.0 * F.ratio(t_rec, t_run),
                         F.paper_val(paper, wl, "rl_pct")])
    comments = (["Table 5: restoration latency = median time of a GPM --recover run (restore from "
                 "PM, after a completed run) as % of the median GPM operation time",
                 "native workloads (no paper value) have nothing to restore after a completed "
                 "run: their restore_s is a resume that finds every block durable (PS: it "
                 "only recomputes the final sums)"]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + F.paper_comments("table_5"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
