#!/usr/bin/env python3
"""Two platforms' results side by side: for each workload (and operation),
mode and scale that both have run, B's speedup over A (A's median over
B's) with a verdict, and the paper's speedup over CAP-fs beside both
platforms' where the paper states one.
    compare.py A_DIR B_DIR OUT_TSV
Reads the run rows of figure_9.tsv, figure_10.tsv and figure_1b.tsv in
each folder (the newest verified row per workload, mode and scale, as
figure_9.py selects them); rows of either schema (with or without rsd_pct).
Only rows of the same inputs are compared (the parameters at the head of
their params, up to the seed): a workload run with other sizes at the same
scale is named in a comment and left out.

The verdict's rule: a two-sided Mann-Whitney U test on the repetitions
of A's row and B's (rows.repetitions: rep_s where a row keeps each one,
else min_s, median_s and max_s, every repetition of a row of up to three),
as Google Benchmark's compare.py tests; alpha 0.05. Exact (the permutation
distribution of the rank sum, mid-ranks for ties) up to 20 repetitions a
side, normal with the tie correction beyond. B is faster or slower where
p < alpha, by the side its ranks fall on; the same where p >= alpha and
the medians differ by less than 5%; ambiguous where the test cannot tell:
fewer than 5 repetitions known on a side (3 against 3 can never reject:
its smallest two-sided p is 2/20 = 0.1; a row of more repetitions without
rep_s keeps only three), or p >= alpha with the medians more than 5%
apart."""
import math
import os

import rows as R

FILES = ("figure_9", "figure_10", "figure_1b")
# The paper's speedup over CAP-fs of a mode: (its report, its column).
PAPER = {"cap-mm": ("figure_9", "capmm_speedup"), "gpm-ndp": ("figure_10", "gpmndp_speedup"),
         "gpm-eadr": ("figure_10", "gpmeadr_speedup"),
         "cap-eadr": ("figure_10", "capeadr_speedup")}
ALPHA, MIN_REPS, EXACT_REPS, SAME_PCT = 0.05, 5, 20, 5.0
RULE = ("verdict: a two-sided Mann-Whitney U test (alpha %g) on the repetitions of A's and "
        "B's rows: rep_s, each repetition, where a row has it, else min_s, median_s and max_s, "
        "which are every repetition of a row of up to 3; exact up to %d a side, normal with "
        "tie correction beyond. faster, slower: p < %g; same: p >= %g and the medians within "
        "%g%%; ambiguous: fewer than %d repetitions known on a side (with 3 against 3 the "
        "smallest p is 0.1: the test can never reject), or p >= %g with the medians more than "
        "%g%% apart" % (ALPHA, EXACT_REPS, ALPHA, ALPHA, SAME_PCT, MIN_REPS, ALPHA, SAME_PCT))


def selected(results_dir):
    """{(label, scale, mode): row}: the newest verified run of each."""
    best, _ = R.newest([r for name in FILES for r in R.read_rows(results_dir, name + ".tsv")])
    return {(k[0], k[1], k[2]): r for k, r in best.items()}


def differing(a, b):
    """The inputs of A and B that differ, as "A: ...; B: ..." text."""
    da, db = (dict(kv.partition("=")[::2] for kv in R.inputs(r)) for r in (a, b))
    keys = [k for k in list(da) + [k for k in db if k not in da] if da.get(k) != db.get(k)]
    return "A: %s; B: %s" % (",".join("%s=%s" % (k, da.get(k, "?")) for k in keys),
                              ",".join("%s=%s" % (k, db.get(k, "?")) for k in keys))


def mann_whitney(a, b):
    """The two-sided p of the Mann-Whitney U test of samples A and B, and
    whether B's ranks fall below A's (B's values the smaller)."""
    pooled = sorted(a + b)
    rank2 = {}  # twice each value's mid-rank: whole numbers, ties too
    for i, v in enumerate(pooled):
        rank2.setdefault(v, 2 * i + 1 + pooled.count(v))
    n, m = len(a), len(b)
    w, mean = sum(rank2[v] for v in b), m * (n + m + 1)  # B's rank sum, doubled
    if n > EXACT_REPS or m > EXACT_REPS:
        ties = sum(pooled.count(v) ** 3 - pooled.count(v) for v in rank2)
        var = n * m / 12.0 * (n + m + 1 - ties / float((n + m) * (n + m - 1)))
        z = max(abs(w - mean) / 2.0 - 0.5, 0) / math.sqrt(var) if var else 0.0
        return math.erfc(z / math.sqrt(2)), w < mean
    # ways[k][s]: the subsets of k pooled values whose doubled ranks sum to s
    ways = [{} for _ in range(m + 1)]
    ways[0][0] = 1
    for v in pooled:
        for k in range(m, 0, -1):
            for s, c in ways[k - 1].items():
                ways[k][s + rank2[v]] = ways[k].get(s + rank2[v], 0) + c
    far = sum(c for s, c in ways[m].items() if abs(s - mean) >= abs(w - mean))
    return far / float(math.comb(n + m, m)), w < mean


def verdict(a, b):
    """(verdict, p) of RULE for rows A and B."""
    ra, rb = R.repetitions(a), R.repetitions(b)
    if not ra or not rb or not all(R.finite(x) for x in ra + rb):
        return "ambiguous", float("nan")
    p, lower = mann_whitney(ra, rb)
    if min(len(ra), len(rb)) < MIN_REPS:
        return "ambiguous", p
    if p < ALPHA:
        return ("faster" if lower else "slower"), p
    apart = R.ratio(R.fnum(b.get("median_s")), R.fnum(a.get("median_s")))
    return ("same" if abs(apart - 1) * 100 < SAME_PCT else "ambiguous"), p


def paper_over_capfs(label, mode):
    """The paper's speedup over CAP-fs of MODE for workload LABEL, as its
    text states it ("" where it states none), and its range as numbers."""
    if mode == "gpm":
        p = R.paper_by_workload("figure_9")
        text = R.paper_gpm_text(p, label)
        return ("" if text == "not stated" else text, R.paper_val(p, label, "gpm_lo"),
                R.paper_val(p, label, "gpm_hi"))
    if mode in PAPER:
        v = R.paper_val(R.paper_by_workload(PAPER[mode][0]), label, PAPER[mode][1])
        return v, v, v
    return "", "", ""


def over_capfs(sel, key):
    """This platform's speedup over CAP-fs of KEY's mode (nan without a
    CAP-fs row; "" for CAP-fs itself)."""
    label, scale, mode = key
    if mode == "cap-fs":
        return ""
    capfs = sel.get((label, scale, "cap-fs"))
    return R.ratio(R.fnum(capfs["median_s"]), R.fnum(sel[key]["median_s"])) if capfs \
        else float("nan")


def main():
    a_dir, b_dir, out = R.args("A_DIR B_DIR OUT_TSV")
    for name, d in (("A", a_dir), ("B", b_dir)):
        if not os.path.isdir(d):
            R.fail("compare: %s=%s is not a folder: name a results folder (results/h100-dram)"
                   % (name, d))
    sel = {}
    for name, d in (("A", a_dir), ("B", b_dir)):
        sel[name] = selected(d)
        if not sel[name]:
            R.fail("compare: %s=%s has no verified run rows in %s: run an experiment there "
                   "(make figure_9) first" % (name, R.shown_path(d, "").rstrip("/"),
                                               ", ".join(f + ".tsv" for f in FILES)))
    common = sorted(set(sel["A"]) & set(sel["B"]))
    both = [k for k in common if R.inputs(sel["A"][k]) == R.inputs(sel["B"][k])]
    # Other inputs at the same scale: named once per workload and scale.
    other = {}
    for k in common:
        if k not in both:
            other.setdefault((k[0], k[1]), differing(sel["A"][k], sel["B"][k]))
    if not both:
        def have(x):
            return ", ".join(sorted({"%s %s" % (k[0], k[1]) for k in sel[x]}))
        R.fail("compare: A and B have no workload, mode and scale run with the same inputs in "
               "common (A: %s; B: %s%s)"
               % (have("A"), have("B"), "; other inputs: " + "; ".join(
                   "%s %s: %s" % (k[0], k[1], v) for k, v in sorted(other.items()))
                   if other else ""))
    header = ["workload", "scale", "mode", "a_median_s", "a_min_s", "a_max_s", "a_rsd_pct",
              "b_median_s", "b_min_s", "b_max_s", "b_rsd_pct", "b_speedup", "verdict",
              "a_over_capfs", "b_over_capfs", "paper_over_capfs", "paper_lo", "paper_hi", "noisy",
              "a_reps", "b_reps", "p"]
    table = []
    for key in both:
        a, b = sel["A"][key], sel["B"][key]
        text, lo, hi = paper_over_capfs(key[0], key[2])
        v, p = verdict(a, b)
        table.append([key[0], key[1], key[2]]
                     + [R.fnum(a.get(c)) for c in ("median_s", "min_s", "max_s")] + [R.rsd(a)]
                     + [R.fnum(b.get(c)) for c in ("median_s", "min_s", "max_s")] + [R.rsd(b)]
                     + [R.ratio(R.fnum(a["median_s"]), R.fnum(b["median_s"])), v,
                        over_capfs(sel["A"], key), over_capfs(sel["B"], key), text, lo, hi,
                        R.noisy([("A", a), ("B", b)]), a.get("reps"), b.get("reps"), p])
    counts = {v: sum(1 for r in table if r[12] == v)
              for v in ("faster", "slower", "same", "ambiguous")}
    used = {n: [sel[n][k] for k in both] for n in ("A", "B")}
    comments = ["Comparison: B's speedup over A = A's median_s / B's (newest verified run per "
                "workload, mode and scale of each); a_/b_rsd_pct: the spread of the "
                "repetitions (nan: rows written before rsd_pct, or of one repetition)",
                R.NOISY_COMMENT,
                RULE,
                "a_over_capfs, b_over_capfs: each platform's speedup of the mode over its "
                "CAP-fs; paper_over_capfs: the paper's, as its text states it (Optane, PCIe "
                "3.0; the paper gives no bar heights, only ranges, for most)",
                "A: %s (%s)" % (R.shown_path(a_dir, ""), "; ".join(
                    R.platform_comments(used["A"]) + R.rev_comments(used["A"]))),
                "B: %s (%s)" % (R.shown_path(b_dir, ""), "; ".join(
                    R.platform_comments(used["B"]) + R.rev_comments(used["B"]))),
                "p: the test's two-sided p (nan: a row that keeps only three of its "
                "repetitions); a_reps, b_reps: the rows' repetitions",
                "B against A over %d rows: faster %d, slower %d, same %d, ambiguous %d"
                % (len(table), counts["faster"], counts["slower"], counts["same"],
                   counts["ambiguous"])]
    comments += ["not compared: %s %s, run with other inputs (%s)" % (k[0], k[1], v)
                 for k, v in sorted(other.items())]
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
