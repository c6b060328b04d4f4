#!/usr/bin/env python3
"""Recomputability without crash consistency (NVC's question): how each
workload restarted from crash images in which no persist was honoured.

    nvc.py RESULTS_DIR OUT_TSV

Reads RESULTS_DIR/nvc.tsv (op=check rows written by
scripts/experiments/nvc.sh through gpm-check --model none --honour .id):
params images, recovered, wrong, crashed, refused, complete and
durable_median (the median share of the work that the recoveries which
passed found durable). Writes one row per workload, op, mode and scale, its
newest run:
  correct, wrong, failed_restart (refused + crashed), each with its share
    of the images;
  durable_median: of the correct ones, the share of the work found durable
    (the rest was computed again: the extra work of restarting);
  verdict: "recomputes" (every image correct), "detects the rest"
    (none wrong: the others were refused or crashed), or "silently wrong"
    (some restarted to a wrong result: its persists cannot be dropped);
    "incomplete" where the trace missed stores, "error" where it could not
    run."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402


def verdict(p, images, wrong, failed):
    if "error" in p:
        return "error: " + p["error"]
    if p.get("complete") == "no":
        return "incomplete: stores the trace did not see"
    if images <= 0:
        return "error: no images"
    if wrong > 0:
        return "silently wrong"
    return "detects the rest" if failed > 0 else "recomputes"


def share(n, images):
    return float(n) / images if images > 0 else float("nan")


def main():
    if len(sys.argv) != 3:
        R.fail("usage: nvc.py RESULTS_DIR OUT_TSV")
    results_dir, out = sys.argv[1], sys.argv[2]
    rows = R.check_rows(results_dir, "nvc.tsv", "nvc")
    newest = {}
    for r in rows:  # in the order they were written: the last one wins
        p = R.params(r)
        newest[(r["workload"], p.get("op", "run"), r.get("mode", ""), r.get("scale", ""))] = r
    header = ["workload", "op", "mode", "scale", "images", "correct", "correct_share",
              "durable_median", "wrong", "wrong_share", "failed_restart", "failed_share",
              "refused", "crashed", "verdict"]
    table = []
    for key in sorted(newest):
        p = R.params(newest[key])
        images = R.param_count(p, "images")
        correct, wrong = R.param_count(p, "recovered"), R.param_count(p, "wrong")
        refused, crashed = R.param_count(p, "refused"), R.param_count(p, "crashed")
        failed = refused + crashed
        dm = p.get("durable_median", "")
        table.append(list(key) + [images, correct, share(correct, images),
                                  float(dm) if dm else float("nan"), wrong,
                                  share(wrong, images), failed, share(failed, images), refused,
                                  crashed, verdict(p, images, wrong, failed)])
    used = list(newest.values())
    comments = (["NVC's question (Ma et al., MCHPC'18): restarted from whatever PM held, with "
                 "no persist honoured (gpm-check --model none: each word any value written to "
                 "it before the crash; the run identity's persists alone count, --honour .id), "
                 "does the workload give the right result? GPU modes' traces with their fences "
                 "ignored stand for fence-less kernels",
                 "correct: recovered and verified (durable_median: the share of the work those "
                 "recoveries found durable; the rest is the extra work); wrong: restarted to a "
                 "wrong result (its size is not measured); failed_restart: the recovery refused "
                 "what PM held or crashed",
                 "verdict: recomputes (all correct), detects the rest (none wrong), silently "
                 "wrong (some wrong: the workload's persists cannot be dropped)",
                 "NVC's own findings (CPU programs, a simulated cache, 100 crashes a case): "
                 "CG correct in at least 96% (class A; class B 100%, 46%, 7% by phase), MG "
                 "15-20%, FT under 6%, Kmeans always (more iterations after a late crash)"]
                + R.platform_comments(used) + R.rev_comments(used))
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
