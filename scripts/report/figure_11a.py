#!/usr/bin/env python3
"""Figure 11a: speedup of HCL over the conventional log per transactional
workload and operation, the conventional log taken at its best partition
count (it is swept: never a strawman), which the report names.
    figure_11a.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_11a.tsv: per (workload, op, scale), the newest
verified GPM row of HCL and of each conventional partition count."""
import rows as R


def main():
    results_dir, out = R.args()
    rows = R.target_rows(results_dir, "figure_11a",
                         lambda r: r.get("mode") == "gpm" and R.kind(r) == "run")
    newest = {}
    for r in rows:  # in the order written: the last verified one of each key wins
        p = R.params(r)
        key = (R.label(r), r.get("scale", ""), p.get("log", ""),
               p.get("partitions", "") if p.get("log") == "conv" else "")
        if r.get("verified") == "ok":
            newest[key] = r
    paper = R.paper_by_workload("figure_11a")
    header = ["workload", "scale", "hcl_s", "conv_best_s", "conv_best_partitions",
              "conv_partitions_tried", "hcl_speedup", "paper_hcl_speedup", "noisy"]
    out_rows, used = [], []
    for wl, scale in sorted({(k[0], k[1]) for k in newest}):
        hcl = newest.get((wl, scale, "hcl", ""))
        conv = {int(k[3]): r for k, r in newest.items()
                if k[0] == wl and k[1] == scale and k[2] == "conv" and k[3]}
        used += ([hcl] if hcl else []) + list(conv.values())
        best = min(conv, key=lambda p: R.fnum(conv[p]["median_s"])) if conv else None
        t_hcl = R.fnum(hcl["median_s"]) if hcl else float("nan")
        t_conv = R.fnum(conv[best]["median_s"]) if best is not None else float("nan")
        out_rows.append([wl, scale, t_hcl, t_conv, best if best is not None else "",
                         ",".join(str(p) for p in sorted(conv)), R.ratio(t_conv, t_hcl),
                         R.paper_val(paper, wl, "hcl_speedup"),
                         R.noisy([("hcl", hcl), ("conv", conv.get(best))])])
    comments = (["Figure 11a: speedup of HCL over the conventional log (ratio of median GPM "
                 "operation times), the conventional log at its best partition count of those "
                 "tried; newest verified run of each", R.NOISY_COMMENT]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + R.paper_comments("figure_11a"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
