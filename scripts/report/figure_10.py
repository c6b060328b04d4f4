#!/usr/bin/env python3
"""Figure 10: speedup of GPM-NDP, GPM, GPM-eADR and CAP-eADR over CAP-fs,
per workload, with the relations the paper states (GPM over GPM-NDP,
GPM-eADR over GPM, GPM-eADR over CAP-eADR) beside ours.
    figure_10.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_10.tsv and figure_9.tsv (whose CAP-fs and GPM runs
make figure_10 reuses); the selection rules are figure_9.py's."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402

MODES = ("cap-fs", "gpm-ndp", "gpm", "gpm-eadr", "cap-eadr")
GDS = "cap-gds"  # GPUDirect Storage, where it ran: Figure 9's rows or this figure's


def main():
    if len(sys.argv) != 3:
        R.fail("usage: figure_10.py RESULTS_DIR OUT_TSV")
    results_dir, out = sys.argv[1], sys.argv[2]
    rows, table, used, warnings = R.speedup_table(results_dir, "figure_10", MODES + (GDS,),
                                                  also=("figure_9",))
    paper = R.paper_by_workload("figure_10")
    header = ["workload", "scale", "capfs_s", "gpmndp_s", "gpm_s", "gpmeadr_s", "capeadr_s",
              "gpmndp_speedup", "gpm_speedup", "gpmeadr_speedup", "capeadr_speedup",
              "gpm_over_gpmndp", "gpmeadr_over_gpm", "gpmeadr_over_capeadr",
              "paper_gpmndp_speedup", "paper_gpm_speedup", "paper_gpmeadr_speedup",
              "paper_capeadr_speedup", "capeadr_threads", "noisy", "capgds_s", "capgds_speedup"]
    out_rows = []
    cols = {k: [] for k in ("ndp", "gpm", "geadr", "ceadr", "g_ndp", "ge_g", "ge_ce")}
    for wl, scale, t, threads, noise in table:
        v = {
            "ndp": R.ratio(t["cap-fs"], t["gpm-ndp"]),
            "gpm": R.ratio(t["cap-fs"], t["gpm"]),
            "geadr": R.ratio(t["cap-fs"], t["gpm-eadr"]),
            "ceadr": R.ratio(t["cap-fs"], t["cap-eadr"]),
            "g_ndp": R.ratio(t["gpm-ndp"], t["gpm"]),
            "ge_g": R.ratio(t["gpm"], t["gpm-eadr"]),
            "ge_ce": R.ratio(t["cap-eadr"], t["gpm-eadr"]),
        }
        for k in cols:
            cols[k].append(v[k])
        out_rows.append([wl, scale] + [t[m] for m in MODES]
                        + [v[k] for k in ("ndp", "gpm", "geadr", "ceadr", "g_ndp", "ge_g", "ge_ce")]
                        + [R.paper_val(paper, wl, c) for c in
                           ("gpmndp_speedup", "gpm_speedup", "gpmeadr_speedup", "capeadr_speedup")]
                        + [threads, noise, t[GDS], R.ratio(t["cap-fs"], t[GDS])])
    gm = {k: R.geomean(v) for k, v in cols.items()}
    for scale in sorted({r[1] for r in out_rows}):  # one geomean per scale, never mixed
        sub = [r for r in out_rows if r[1] == scale]
        out_rows.append(["geomean", scale, "", "", "", "", ""]
                        + [R.geomean([r[i] for r in sub]) for i in range(7, 14)]
                        + ["", "", "", "", "", "", "", R.geomean([r[21] for r in sub])])

    def mx(k):
        vals = [x for x in cols[k] if R.finite(x)]
        return max(vals) if vals else float("nan")

    def mean(k):
        vals = [x for x in cols[k] if R.finite(x)]
        return sum(vals) / len(vals) if vals else float("nan")

    ours = ["ours beside the paper's stated relations (Sec 6.1):",
            "  GPM over GPM-NDP: paper up to 6x; ours max %s" % R.fmt(mx("g_ndp")),
            "  GPM-eADR over GPM: paper up to 13x; ours max %s" % R.fmt(mx("ge_g")),
            "  GPM-eADR over CAP-eADR: paper 24x on average; ours mean %s, geomean %s"
            " (over every workload and scale)"
            % (R.fmt(mean("ge_ce")), R.fmt(gm["ge_ce"]))]
    comments = (["Figure 10: speedup over CAP-fs (ratio of median operation times; newest "
                 "verified run per workload, mode and scale)", R.NOISY_COMMENT]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + ours + R.paper_comments("figure_10"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
