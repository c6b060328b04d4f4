#!/usr/bin/env python3
"""Recomputability without crash consistency (NVC's question): how each
workload restarted from crash images in which no persist was honoured.

    nvc.py RESULTS_DIR OUT_TSV

Reads RESULTS_DIR/nvc.tsv (op=check rows written by
scripts/experiments/nvc.sh through gpm-check --model none --honour .id):
params images, recovered, wrong, crashed, refused, complete,
durable_median (the median share of the work that the recoveries which
passed found durable), and of the wrong outputs wrong_measured,
wrong_share_median, wrong_share_max, units, wrong_max_err and wrong_err
(how wrong, in the workload's own error measure). Writes one row per
workload, op, mode and scale, its newest run: correct, wrong and
failed_restart (refused + crashed) with their shares of the images, how
wrong the wrong ones were, and the verdict, as the report's comment lines
define them: "recomputes", "detects the rest" or "silently wrong" (its
persists cannot be dropped); "incomplete" where the trace missed stores,
"error" where the check could not run."""
import rows as R


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


def persist_cost(results_dir):
    """Per (workload, op): GPM's time and mode none's (no persistence at all)
    at paper scale from RESULTS_DIR/roofline.tsv (make roofline): the
    newest verified gpm row that has a none row of the same inputs (a
    program of several runs, GPHash's YCSB LOAD and A, pairs like with
    like), and that none row; or nothing."""
    def case(r):
        return r["workload"], r.get("op", "run"), tuple(R.inputs(r))
    rows = [r for r in R.read_rows(results_dir, "roofline.tsv")
            if r.get("scale") == "paper" and r.get("verified") == "ok"]
    none = {case(r): r for r in rows if r.get("mode") == "none"}
    best = {}
    for r in rows:
        twin = none.get(case(r)) if r.get("mode") == "gpm" else None
        if twin:
            best[case(r)[:2]] = (R.number(r, "median_s"), R.number(twin, "median_s"))
    return best


def how_wrong(p, wrong):
    """How wrong the wrong restarts were, from a check's PARAMS: a clause
    for the sentence, "" where none was wrong."""
    if wrong <= 0:
        return ""
    measured = R.param_count(p, "wrong_measured")
    if measured <= 0 or "wrong_share_median" not in p:
        return " (how wrong was not measured)"
    text = ", %sa median %.3g%% of their %s wrong (at most %.3g%%" % (
        "the %d measured " % measured if measured < wrong else "",
        100 * float(p["wrong_share_median"]), p.get("units", "units"),
        100 * float(p.get("wrong_share_max", "nan")))
    if "wrong_max_err" in p:
        text += "; the largest error %s, %s" % (
            p["wrong_max_err"], "relative" if p.get("wrong_err") == "rel" else "absolute")
    return text + ")"


def sentence(verdict, correct, wrong, images, cost, wrong_how=""):
    """Whether the workload's persists could be dropped, how wrong the
    wrong restarts were, and what dropping them would save at most (GPM
    above mode none, paper scale)."""
    gpm, none = cost
    save = ("; dropping every persist would save at most %.3g s of GPM's %.3g s at paper "
            "scale (mode none's %.3g s: no PM at all)" % (gpm - none, gpm, none)
            if gpm == gpm and none == none else "")
    if verdict == "recomputes":
        return "its persists could be dropped: every restart was correct" + save
    if verdict == "detects the rest":
        return ("its persists could be dropped if a refused restart starts over: %d of %d "
                "restarts correct, the rest refused what PM held%s"
                % (correct, images, save))
    if verdict == "silently wrong":
        return ("its persists cannot be dropped: %d of %d restarts gave a wrong result%s%s"
                % (wrong, images, wrong_how, save))
    return "no verdict"


def share(n, images):
    return float(n) / images if images > 0 else float("nan")


def main():
    results_dir, out = R.args()
    rows = R.check_rows(results_dir, "nvc.tsv", "nvc")
    newest = R.latest(rows, R.check_case)
    header = ["workload", "op", "mode", "scale", "images", "correct", "correct_share",
              "durable_median", "wrong", "wrong_share", "wrong_measured", "wrong_units_median",
              "wrong_units_max", "units", "wrong_max_err", "wrong_err", "failed_restart",
              "failed_share", "refused", "crashed", "verdict", "gpm_paper_s", "none_paper_s",
              "summary"]
    table = []
    costs = persist_cost(results_dir)
    for key in sorted(newest):
        p = R.params(newest[key])
        images = R.param_count(p, "images")
        correct, wrong = R.param_count(p, "recovered"), R.param_count(p, "wrong")
        refused, crashed = R.param_count(p, "refused"), R.param_count(p, "crashed")
        failed = refused + crashed
        v = verdict(p, images, wrong, failed)
        cost = costs.get((key[0], key[1]), (float("nan"), float("nan")))
        table.append(list(key) + [
            images, correct, share(correct, images), R.fnum(p.get("durable_median")), wrong,
            share(wrong, images), R.param_count(p, "wrong_measured"),
            R.fnum(p.get("wrong_share_median")), R.fnum(p.get("wrong_share_max")),
            p.get("units", ""), R.fnum(p.get("wrong_max_err")), p.get("wrong_err", ""), failed,
            share(failed, images), refused, crashed, v, cost[0], cost[1],
            sentence(v, correct, wrong, images, cost, how_wrong(p, wrong))])
    used = list(newest.values())
    comments = (["NVC's question (Ma et al., MCHPC'18): restarted from whatever PM held, with "
                 "no persist honoured (gpm-check --model none: each word any value written to "
                 "it before the crash; the run identity's persists alone count, --honour .id), "
                 "does the workload give the right result? GPU modes' traces with their fences "
                 "ignored stand for fence-less kernels",
                 "correct: recovered and verified (durable_median: the share of the work those "
                 "recoveries found durable; the rest is the extra work); wrong: restarted to a "
                 "wrong result; failed_restart: the recovery refused what PM held or crashed",
                 "how wrong, in the workload's own error measure (its verify's wrong_units: "
                 "workloads/README.md): wrong_units_median and wrong_units_max, the median and "
                 "largest share of its units wrong (units: sums, nodes, keys, ...) among the "
                 "wrong_measured wrong restarts that said; wrong_max_err, the largest error "
                 "where the output is floating point, absolute or relative (wrong_err) as its "
                 "tolerance",
                 "verdict: recomputes (all correct), detects the rest (none wrong), silently "
                 "wrong (some wrong: the workload's persists cannot be dropped)",
                 "gpm_paper_s, none_paper_s: GPM's time and mode none's (no persistence: the "
                 "output stays in GPU memory) at paper scale, from make roofline's rows: their "
                 "difference bounds what dropping the persists would save (a fence-less GPM "
                 "run, still writing PM across the link, was not timed)",
                 "NVC's own findings (CPU programs, a simulated cache, 100 crashes a case): "
                 "CG correct in at least 96% (class A; class B 100%, 46%, 7% by phase), MG "
                 "15-20%, FT under 6%, Kmeans always (more iterations after a late crash)"]
                + R.platform_comments(used) + R.rev_comments(used))
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
