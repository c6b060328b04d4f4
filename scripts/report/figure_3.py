"""Figure 3 report: persistence scaling with CPU threads (CAP-mm) and GPU
threads (GPM), beside the paper's observations.
    figure_3.py RESULTS_DIR OUT_TSV
Reads the persist-scaling rows of the newest run under RESULTS_DIR
(rows.newest_run), takes the median over repeated rows per (op, threads),
and writes one row per measured point: throughput and speedup over
single-threaded CAP-mm. The paper's two numbers are not points: they stand
in the comment lines beside ours (the plot reads them from
reports/paper/figure_3.tsv)."""
import math

import rows as R

SERIES = ("cap-mm", "gpm", "gpm-nopersist")
CRITERION = 0.90  # GPM's best must reach this share of the ceiling


def points(run):
    """{(op, threads): dict(median_s, bytes, rows, verified, noisy)}"""
    groups = {}
    for r in run:
        if r.get("op") not in SERIES:
            continue
        k = (r["op"], int(R.number(r, "threads")))
        groups.setdefault(k, []).append(r)
    out = {}
    for k, rs in groups.items():
        out[k] = {
            "median_s": R.median([R.number(r, "median_s") for r in rs]),
            "bytes": R.median([R.number(r, "bytes_persisted") for r in rs]),
            "rows": len(rs),
            "verified": "ok" if all(r.get("verified") == "ok" for r in rs) else "fail",
            "noisy": R.noisy([(k[0], rs)]),
        }
    return out


def gbps(p):
    """A point's throughput in GB/s."""
    return p["bytes"] / p["median_s"] / 1e9 if p["median_s"] > 0 else float("nan")


def link_ceiling(results_dir):
    """The link's measured ceiling (GB/s): the best unpersisted GPU write
    rate of the newest persist-scaling run under RESULTS_DIR, with the file
    it comes from; (nan, None) where there is none."""
    rows = [r for r in R.read_rows(results_dir) if r.get("workload") == "persist-scaling"]
    if not rows:
        return float("nan"), None
    fname, _, run = R.newest_run(rows, results_dir)
    rates = [gbps(p) for (o, _), p in points(run).items()
             if o == "gpm-nopersist" and p["median_s"] > 0]
    return (max(rates), fname) if rates else (float("nan"), None)


def ratio(a, b):
    return a / b if b and b == b and a == a else float("nan")


def main():
    results_dir, out_tsv = R.args()
    fname, key, run = R.sweep_run(results_dir, "persist-scaling", "figure_3")
    pts = points(run)
    if not pts:
        R.fail("figure_3: the newest run in %s/%s has no cap-mm, gpm or gpm-nopersist rows"
               % (results_dir, fname))
    cap1 = pts.get(("cap-mm", 1))
    base = gbps(cap1) if cap1 else float("nan")
    table = []
    for op in SERIES:
        for (o, t) in sorted(k for k in pts if k[0] == op):
            p = pts[(o, t)]
            table.append([o, t, p["median_s"], gbps(p), ratio(gbps(p), base),
                          p["rows"], p["verified"], p["noisy"]])

    def best(op):
        cands = [(gbps(p), t) for (o, t), p in pts.items() if o == op]
        return max(cands) if cands else (float("nan"), None)

    cap_best, cap_best_t = best("cap-mm")
    gpm_best, gpm_best_t = best("gpm")
    ceil = pts.get(("gpm-nopersist", gpm_best_t))
    ceil_gbps = gbps(ceil) if ceil else float("nan")
    share = ratio(gpm_best, ceil_gbps)

    p_plateau = float(R.paper_metric("figure_3", "cap_mm_plateau"))
    p_gpm = float(R.paper_metric("figure_3", "gpm_best_over_cap_mm_1"))

    verdict = "not measured" if share != share else "met" if share >= CRITERION else "NOT met"
    comments = [
        "Figure 3: persistence scaling from %d rows of %s (git_rev %s, host %s)"
        % (len(run), R.shown_path(results_dir, fname), key[0], key[1]),
    ] + R.platform_comments(run) + R.rev_comments(run) + [
        "size %s bytes; speedup = throughput / single-threaded CAP-mm (%s GB/s)"
        % (run[0].get("size_bytes", "?"), R.fmt(base)),
        "CAP-mm plateau (best/1-thread): %sx at %s CPU threads; paper %sx"
        % (R.fmt(ratio(cap_best, base)), cap_best_t, R.fmt(p_plateau)),
        "GPM best over 1-thread CAP-mm: %sx at %s GPU threads; paper %sx"
        % (R.fmt(ratio(gpm_best, base)), gpm_best_t, R.fmt(p_gpm)),
        "GPM best over best CAP-mm: %sx" % R.fmt(ratio(gpm_best, cap_best)),
        "GPM best / no-persist ceiling at %s GPU threads: %s GB/s / %s GB/s = %.3f "
        "(criterion >= %.2f: %s)"
        % (gpm_best_t, R.fmt(gpm_best), R.fmt(ceil_gbps), share, CRITERION, verdict),
    ]
    if any(row[6] == "fail" for row in table):
        comments.append("WARNING: some rows failed verification (verified=fail)")
    if math.isnan(base):
        comments.append("WARNING: no single-threaded CAP-mm row: speedups are nan")
    R.write_tsv(out_tsv, ["series", "threads", "median_s", "gbps", "speedup_vs_cap_mm_1",
                          "rows", "verified", "noisy"], table, comments + [R.NOISY_COMMENT])


if __name__ == "__main__":
    main()
