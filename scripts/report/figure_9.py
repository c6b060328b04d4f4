#!/usr/bin/env python3
"""Figure 9: speedup of CAP-mm and GPM over CAP-fs, per workload.
    figure_9.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_9.tsv. Per (workload, scale) and mode it takes the
newest verified run row (rows are appended, so the newest is the last one in
the file); a speedup is the ratio of median operation times. The paper's
stated values (reports/paper/figure_9.tsv) stand beside ours."""
import rows as R

def main():
    results_dir, out = R.args()
    modes = ("cap-fs", "cap-mm", "gpm", "cap-delta", "cap-gds")
    rows, table, used, warnings = R.speedup_table(results_dir, "figure_9", modes)
    paper = R.paper_by_workload("figure_9")
    header = ["workload", "scale", "capfs_s", "capmm_s", "gpm_s", "capmm_speedup", "gpm_speedup",
              "paper_capmm_speedup", "paper_gpm_speedup", "paper_gpm_lo", "paper_gpm_hi",
              "gpm_over_capmm", "paper_gpm_over_capmm", "capmm_threads", "capfs_checkpoint_s",
              "gpm_checkpoint_s", "gpm_checkpoint_speedup", "capdelta_s", "capdelta_speedup",
              "gpm_over_capdelta", "noisy", "capgds_s", "capgds_speedup", "gpm_over_capgds",
              "capgds_cufile"]
    ratios = ("capmm_speedup", "gpm_speedup", "gpm_over_capmm", "gpm_checkpoint_speedup",
              "capdelta_speedup", "gpm_over_capdelta", "capgds_speedup", "gpm_over_capgds")
    out_rows = []
    for wl, scale, t, sel, threads, noise in table:
        cp = {m: R.checkpoint_s(sel[m]) for m in ("cap-fs", "gpm")}
        out_rows.append({
            "workload": wl, "scale": scale, "capfs_s": t["cap-fs"], "capmm_s": t["cap-mm"],
            "gpm_s": t["gpm"], "capmm_speedup": R.ratio(t["cap-fs"], t["cap-mm"]),
            "gpm_speedup": R.ratio(t["cap-fs"], t["gpm"]),
            "paper_capmm_speedup": R.paper_val(paper, wl, "capmm_speedup"),
            "paper_gpm_speedup": R.paper_gpm_text(paper, wl),
            "paper_gpm_lo": R.paper_val(paper, wl, "gpm_lo"),
            "paper_gpm_hi": R.paper_val(paper, wl, "gpm_hi"),
            "gpm_over_capmm": R.ratio(t["cap-mm"], t["gpm"]),
            "paper_gpm_over_capmm": R.paper_val(paper, wl, "gpm_over_capmm"),
            "capmm_threads": threads, "capfs_checkpoint_s": cp["cap-fs"],
            "gpm_checkpoint_s": cp["gpm"],
            "gpm_checkpoint_speedup": R.ratio(cp["cap-fs"], cp["gpm"]),
            "capdelta_s": t["cap-delta"], "capdelta_speedup": R.ratio(t["cap-fs"], t["cap-delta"]),
            "gpm_over_capdelta": R.ratio(t["cap-delta"], t["gpm"]), "noisy": noise,
            "capgds_s": t["cap-gds"], "capgds_speedup": R.ratio(t["cap-fs"], t["cap-gds"]),
            "gpm_over_capgds": R.ratio(t["cap-gds"], t["gpm"]),
            "capgds_cufile": R.params(sel["cap-gds"]).get("cufile", "") if sel["cap-gds"] else ""})
    for scale in sorted({r["scale"] for r in out_rows}):  # one geomean per scale, never mixed
        sub = [r for r in out_rows if r["scale"] == scale]
        g = {"workload": "geomean", "scale": scale}
        g.update({c: R.geomean([r[c] for r in sub]) for c in ratios})
        out_rows.append(g)
    comments = (["Figure 9: speedup over CAP-fs (ratio of median operation times; newest "
                 "verified run per workload, mode and scale)",
                 "checkpoint_s: for workloads that checkpoint, the time their checkpoints "
                 "took in the last repetition, apart from the computation (the paper's "
                 "artifact compares these alone); gpm_checkpoint_speedup is their ratio",
                 "paper_gpm_speedup: GPM over CAP-fs as the paper's text states it, for the "
                 "workload or its class (the paper gives no bar heights, only these ranges); "
                 "paper_gpm_lo and paper_gpm_hi: the same range as numbers",
                 "capdelta: the CPU-assisted transactions of gpKVS and gpDB (not in the "
                 "paper): kernels gather the changes, the CPU logs them in a redo log and "
                 "applies them; gpm_over_capdelta is GPM's lead over it",
                 "capgds: GPUDirect Storage (cuFile) writes the device's output to the file, "
                 "then fsync (not in the paper); capgds_cufile says whether cuFile ran as "
                 "GDS or in its compatibility mode (POSIX I/O through its bounce buffers), "
                 "and why", R.NOISY_COMMENT]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + R.paper_comments("figure_9"))
    R.write_tsv(out, header, [[r.get(c, "") for c in header] for r in out_rows], comments)


if __name__ == "__main__":
    main()
