#!/usr/bin/env python3
"""Figure 10: speedup of GPM-NDP, GPM, GPM-eADR and CAP-eADR over CAP-fs,
per workload, with the relations the paper states (GPM over GPM-NDP,
GPM-eADR over GPM, GPM-eADR over CAP-eADR) beside ours.
    figure_10.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_10.tsv and figure_9.tsv (whose CAP-fs and GPM runs
make figure_10 reuses); the selection rules are figure_9.py's."""
import rows as R

MODES = ("cap-fs", "gpm-ndp", "gpm", "gpm-eadr", "cap-eadr")
GDS = "cap-gds"  # GPUDirect Storage, where it ran: Figure 9's rows or this figure's
# The ratios of median times shown, (numerator, denominator): the speedups
# over CAP-fs, then GPM over GPM-NDP, GPM-eADR over GPM and over CAP-eADR.
RATIOS = (("cap-fs", "gpm-ndp"), ("cap-fs", "gpm"), ("cap-fs", "gpm-eadr"), ("cap-fs", "cap-eadr"),
          ("gpm-ndp", "gpm"), ("gpm", "gpm-eadr"), ("cap-eadr", "gpm-eadr"))
NAN = float("nan")


def main():
    results_dir, out = R.args()
    rows, table, used, warnings = R.speedup_table(results_dir, "figure_10", MODES + (GDS,),
                                                  also=("figure_9",))
    paper = R.paper_by_workload("figure_10")
    header = ["workload", "scale", "capfs_s", "gpmndp_s", "gpm_s", "gpmeadr_s", "capeadr_s",
              "gpmndp_speedup", "gpm_speedup", "gpmeadr_speedup", "capeadr_speedup",
              "gpm_over_gpmndp", "gpmeadr_over_gpm", "gpmeadr_over_capeadr",
              "paper_gpmndp_speedup", "paper_gpm_speedup", "paper_gpmeadr_speedup",
              "paper_capeadr_speedup", "capeadr_threads", "noisy", "capgds_s", "capgds_speedup"]
    out_rows = []
    for wl, scale, t, _, threads, noise in table:
        out_rows.append([wl, scale] + [t[m] for m in MODES]
                        + [R.ratio(t[a], t[b]) for a, b in RATIOS]
                        + [R.paper_val(paper, wl, c) for c in
                           ("gpmndp_speedup", "gpm_speedup", "gpmeadr_speedup", "capeadr_speedup")]
                        + [threads, noise, t[GDS], R.ratio(t["cap-fs"], t[GDS])])

    def measured(col):
        """COL's finite values over every workload and scale."""
        i = header.index(col)
        return [r[i] for r in out_rows if R.finite(r[i])]
    g_ndp, ge_g, ge_ce = (measured(c) for c in
                          ("gpm_over_gpmndp", "gpmeadr_over_gpm", "gpmeadr_over_capeadr"))
    for scale in sorted({r[1] for r in out_rows}):  # one geomean per scale, never mixed
        sub = [r for r in out_rows if r[1] == scale]
        out_rows.append(["geomean", scale, "", "", "", "", ""]
                        + [R.geomean([r[i] for r in sub]) for i in range(7, 14)]
                        + ["", "", "", "", "", "", "", R.geomean([r[21] for r in sub])])
    ours = ["ours beside the paper's stated relations (Sec 6.1):",
            "  GPM over GPM-NDP: paper up to 6x; ours max %s" % R.fmt(max(g_ndp, default=NAN)),
            "  GPM-eADR over GPM: paper up to 13x; ours max %s" % R.fmt(max(ge_g, default=NAN)),
            "  GPM-eADR over CAP-eADR: paper 24x on average; ours mean %s, geomean %s"
            " (over every workload and scale)"
            % (R.fmt(sum(ge_ce) / len(ge_ce) if ge_ce else NAN), R.fmt(R.geomean(ge_ce)))]
    comments = (["Figure 10: speedup over CAP-fs (ratio of median operation times; newest "
                 "verified run per workload, mode and scale)", R.NOISY_COMMENT]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + ours + R.paper_comments("figure_10"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
