"""Figure 11b report: undo-log insert latency against concurrent logging
threads, HCL against conventional partitioned logging, beside the paper.

    python3 scripts/report/figure_11b.py RESULTS_DIR OUT_TSV

Reads the log-scaling rows of the newest run under RESULTS_DIR (the newest
file holding such rows, and in it the git_rev+host of its last row), takes
the median over repeated rows per (op, threads), and writes one row per
thread count: both latencies in microseconds and conv/hcl. Comment lines
give the mean ratio, how much each curve grows from the fewest to the most
threads, and the paper's values (reports/paper/figure_11b.tsv)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402


def paper_value(paper, metric):
    for p in paper:
        if p.get("metric") == metric:
            return p.get("value", "nan")
    return "nan"


def main():
    if len(sys.argv) != 3:
        R.fail("usage: figure_11b.py RESULTS_DIR OUT_TSV")
    results_dir, out_tsv = sys.argv[1], sys.argv[2]
    all_rows = [r for r in R.read_rows(results_dir) if r.get("workload") == "log-scaling"]
    if not all_rows:
        R.fail("figure_11b: no log-scaling rows in %s/*.tsv: run `make figure_11b` "
               "(or scripts/experiment.sh figure_11b BIN_DIR) first" % results_dir)
    fname, key, run = R.newest_run(all_rows, results_dir)
    groups = {}
    for r in run:
        if r.get("op") in ("hcl", "conv"):
            groups.setdefault((r["op"], int(R.number(r, "threads"))), []).append(r)
    threads = sorted({t for (_, t) in groups})
    if not threads:
        R.fail("figure_11b: the newest run in %s/%s has no hcl or conv rows"
               % (results_dir, fname))

    def med_us(op, t):
        rs = groups.get((op, t))
        return R.median([R.number(r, "median_s") for r in rs]) * 1e6 if rs else float("nan")

    def verified(t):
        rs = groups.get(("hcl", t), []) + groups.get(("conv", t), [])
        return "ok" if rs and all(r.get("verified") == "ok" for r in rs) else "fail"

    table, ratios = [], []
    for t in threads:
        h, c = med_us("hcl", t), med_us("conv", t)
        ratio = c / h if h > 0 and h == h and c == c else float("nan")
        if ratio == ratio:
            ratios.append(ratio)
        table.append([t, h, c, ratio, verified(t)])
    mean = sum(ratios) / len(ratios) if ratios else float("nan")

    def growth(col):
        vals = [row[col] for row in table if row[col] == row[col]]
        return vals[-1] / vals[0] if len(vals) > 1 and vals[0] > 0 else float("nan")

    paper = R.read_paper("figure_11b")
    first = run[0]
    conv_rows = [r for r in run if r.get("op") == "conv"]
    params = (conv_rows or run)[0].get("params", "?")
    comments = [
        "Figure 11b: undo-log insert latency from %d rows of %s (git_rev %s, host %s)"
        % (len(run), R.shown_path(results_dir, fname), key[0], key[1]),
        "platform: gpu %s, pm_backend %s, persist_domain %s, ddio %s"
        % (first.get("gpu", "?"), first.get("pm_backend", "?"),
           first.get("persist_domain", "?"), first.get("ddio", "?")),
        "params: %s; latency = one kernel in which every thread inserts one entry"
        % params,
        "mean conv/hcl over %d thread counts: %sx; paper %sx"
        % (len(ratios), R.fmt(mean), paper_value(paper, "mean_conv_over_hcl")),
        "growth from %d to %d threads: hcl %sx, conv %sx; paper: hcl %s, conv jumps"
        % (threads[0], threads[-1], R.fmt(growth(1)), R.fmt(growth(2)),
           paper_value(paper, "hcl_trend")),
    ]
    if any(row[4] == "fail" for row in table):
        comments.append("WARNING: some rows failed verification (verified=fail) or lack a series")
    R.write_tsv(out_tsv, ["threads", "hcl_us", "conv_us", "conv_over_hcl", "verified"],
                table, comments)


if __name__ == "__main__":
    main()
