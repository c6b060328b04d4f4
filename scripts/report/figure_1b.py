#!/usr/bin/env python3
"""Figure 1b: speedup of GPM over each workload's CPU counterpart (--mode
cpu), per workload.
    figure_1b.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_1b.tsv and figure_9.tsv (whose GPM runs make
figure_1b reuses); the selection rules are figure_9.py's."""
import os

import rows as R


def main():
    results_dir, out = R.args()
    rows, table, used, warnings = R.speedup_table(results_dir, "figure_1b", ("cpu", "gpm"),
                                                  also=("figure_9",))
    paper = R.paper_by_workload("figure_1b")
    header = ["workload", "scale", "cpu_s", "gpm_s", "gpm_over_cpu", "cpu_threads",
              "paper_lo", "paper_hi", "noisy"]
    out_rows = []
    for wl, scale, t, sel, _, noise in table:
        cpu = sel["cpu"]
        if cpu is None:  # a workload of Figure 9 alone, without a CPU counterpart
            continue
        out_rows.append([wl, scale, t["cpu"], t["gpm"], R.ratio(t["cpu"], t["gpm"]),
                         cpu.get("threads", ""), R.paper_val(paper, wl, "lo"),
                         R.paper_val(paper, wl, "hi"), noise])
    if not out_rows:
        R.fail("figure_1b: no cpu-mode rows in %s (run make figure_1b first)"
               % os.path.join(results_dir, "figure_1b.tsv"))
    for scale in sorted({r[1] for r in out_rows}):  # one geomean per scale, never mixed
        sub = [r for r in out_rows if r[1] == scale]
        out_rows.append(["geomean", scale, "", "", R.geomean([r[4] for r in sub]), "", "", "",
                         ""])
    used = [r for r in used if r.get("workload") in {o[0] for o in out_rows}]
    comments = (["Figure 1b: speedup of GPM over the workload's CPU counterpart (OpenMP threads "
                 "persisting the same data through libpmem); ratio of median operation times, "
                 "newest verified run per workload, mode and scale", R.NOISY_COMMENT]
                + R.platform_comments(used or rows) + R.cpu_comment(used)
                + R.rev_comments(used or rows) + warnings + R.paper_comments("figure_1b"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
