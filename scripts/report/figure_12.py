#!/usr/bin/env python3
"""Figure 12: write bandwidth to PM under GPM per workload: bytes persisted
over the median operation time, beside the GPU's PCIe transmit throughput
sampled during the run (pcie_tx_gbps in the row's params, where the driver
offers it) and the link's ceiling measured by Figure 3.
    figure_12.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_12.tsv and figure_9.tsv (whose GPM runs make
figure_12 reuses), and the persist-scaling rows for the ceiling; the
selection rules are figure_9.py's."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402
import figure_3 as F3  # noqa: E402
import figure_9 as F  # noqa: E402


def main():
    if len(sys.argv) != 3:
        R.fail("usage: figure_12.py RESULTS_DIR OUT_TSV")
    results_dir, out = sys.argv[1], sys.argv[2]
    rows, table, used, warnings = F.speedup_table(results_dir, "figure_12", ("gpm",),
                                                  also=("figure_9",))
    best, _ = F.newest(rows)
    ceiling, ceiling_file = F3.link_ceiling(results_dir)
    paper = F.paper_by_workload("figure_12")
    header = ["workload", "scale", "gpm_s", "bytes_persisted", "pm_write_gbps",
              "pcie_tx_gbps", "link_ceiling_gbps", "share_of_ceiling", "paper_class"]
    out_rows = []
    for wl, scale, t, _ in table:
        r = F.pick(best, wl, scale, "gpm")
        if r is None:
            continue
        b = F.fnum(r.get("bytes_persisted"))
        gbps = F.ratio(b, t["gpm"]) / 1e9
        out_rows.append([wl, scale, t["gpm"], int(b) if F.finite(b) else b, gbps,
                         F.fnum(R.params(r).get("pcie_tx_gbps")), ceiling,
                         F.ratio(gbps, ceiling), F.paper_val(paper, wl, "class")])
    if not out_rows:
        R.fail("figure_12: no verified GPM rows in %s/figure_12.tsv or figure_9.tsv (run make "
               "figure_12 first)" % results_dir)
    comments = (["Figure 12: write bandwidth to PM under GPM = bytes persisted / median "
                 "operation time; pcie_tx_gbps = the GPU's PCIe transmit throughput sampled "
                 "through NVML during the last repetition (nan: not sampled); "
                 "link_ceiling_gbps = the best unpersisted GPU write rate of Figure 3 "
                 "(%s)" % (R.shown_path(results_dir, ceiling_file) if ceiling_file
                           else "no persist-scaling rows: run make figure_3")]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + F.paper_comments("figure_12"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
