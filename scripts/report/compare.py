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

The verdict's rule: each row's repetitions span [min_s, max_s]. B is
faster where its slowest repetition beat A's fastest (B's max_s < A's
min_s), slower where its fastest lost to A's slowest (B's min_s > A's
max_s), and the same within the noise where the two spans overlap: no
repetition then says which platform is faster. A row of one repetition has
no span: unknown. The rule needs no model of the noise, reads rows written
before rsd_pct as well, and errs towards "same": one slow repetition
widens a span."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402
import figure_9 as F  # noqa: E402

FILES = ("figure_9", "figure_10", "figure_1b")
# The paper's speedup over CAP-fs of a mode: (its report, its column).
PAPER = {"cap-mm": ("figure_9", "capmm_speedup"), "gpm-ndp": ("figure_10", "gpmndp_speedup"),
         "gpm-eadr": ("figure_10", "gpmeadr_speedup"),
         "cap-eadr": ("figure_10", "capeadr_speedup")}
RULE = ("verdict: faster where B's slowest repetition beat A's fastest (B max_s < A min_s), "
        "slower where B's fastest lost to A's slowest (B min_s > A max_s), same where the two "
        "spans of repetitions overlap (within the noise), unknown where a row has one "
        "repetition")


def selected(results_dir):
    """{(label, scale, mode): row}: the newest verified run of each."""
    rows = []
    for name in FILES:
        rows += R.read_rows(results_dir, name + ".tsv")
    best, _ = F.newest(rows)
    return {(k[0], k[1], k[2]): r for k, r in best.items()}


def inputs(row):
    """The run's inputs: the params the harness writes first (the
    operation, the workload's parameters, the seed), up to cpu_threads=."""
    out = []
    for kv in (row.get("params") or "").split(","):
        if kv.startswith("cpu_threads="):
            break
        out.append(kv)
    return out


def differing(a, b):
    """The inputs of A and B that differ, as "A: ...; B: ..." text."""
    da, db = dict(kv.partition("=")[::2] for kv in inputs(a)), \
        dict(kv.partition("=")[::2] for kv in inputs(b))
    keys = [k for k in list(da) + [k for k in db if k not in da] if da.get(k) != db.get(k)]
    return "A: %s; B: %s" % (",".join("%s=%s" % (k, da.get(k, "?")) for k in keys),
                              ",".join("%s=%s" % (k, db.get(k, "?")) for k in keys))


def verdict(a, b):
    if F.fnum(a.get("reps")) < 2 or F.fnum(b.get("reps")) < 2:
        return "unknown"
    a_lo, a_hi = F.fnum(a.get("min_s")), F.fnum(a.get("max_s"))
    b_lo, b_hi = F.fnum(b.get("min_s")), F.fnum(b.get("max_s"))
    if not all(F.finite(x) for x in (a_lo, a_hi, b_lo, b_hi)):
        return "unknown"
    if b_hi < a_lo:
        return "faster"
    if b_lo > a_hi:
        return "slower"
    return "same"


def paper_over_capfs(label, mode):
    """The paper's speedup over CAP-fs of MODE for workload LABEL, as its
    text states it ("" where it states none), and its range as numbers."""
    if mode == "gpm":
        p = F.paper_by_workload("figure_9")
        text = F.paper_gpm_text(p, label)
        return ("" if text == "not stated" else text, F.paper_val(p, label, "gpm_lo"),
                F.paper_val(p, label, "gpm_hi"))
    if mode in PAPER:
        v = F.paper_val(F.paper_by_workload(PAPER[mode][0]), label, PAPER[mode][1])
        return v, v, v
    return "", "", ""


def over_capfs(sel, key):
    """This platform's speedup over CAP-fs of KEY's mode (nan without a
    CAP-fs row; "" for CAP-fs itself)."""
    label, scale, mode = key
    if mode == "cap-fs":
        return ""
    capfs = sel.get((label, scale, "cap-fs"))
    return F.ratio(F.fnum(capfs["median_s"]), F.fnum(sel[key]["median_s"])) if capfs \
        else float("nan")


def check_dir(d, name):
    if not os.path.isdir(d):
        R.fail("compare: %s=%s is not a folder: name a results folder (results/h100-dram)"
               % (name, d))


def main():
    if len(sys.argv) != 4:
        R.fail("usage: compare.py A_DIR B_DIR OUT_TSV")
    a_dir, b_dir, out = sys.argv[1:]
    check_dir(a_dir, "A")
    check_dir(b_dir, "B")
    sel = {}
    for name, d in (("A", a_dir), ("B", b_dir)):
        sel[name] = selected(d)
        if not sel[name]:
            R.fail("compare: %s=%s has no verified run rows in %s: run an experiment there "
                   "(make figure_9) first" % (name, R.shown_path(d, "").rstrip("/"),
                                               ", ".join(f + ".tsv" for f in FILES)))
    common = sorted(set(sel["A"]) & set(sel["B"]))
    both = [k for k in common if inputs(sel["A"][k]) == inputs(sel["B"][k])]
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
              "a_over_capfs", "b_over_capfs", "paper_over_capfs", "paper_lo", "paper_hi", "noisy"]
    table = []
    for key in both:
        a, b = sel["A"][key], sel["B"][key]
        text, lo, hi = paper_over_capfs(key[0], key[2])
        table.append([key[0], key[1], key[2]]
                     + [F.fnum(a.get(c)) for c in ("median_s", "min_s", "max_s")] + [R.rsd(a)]
                     + [F.fnum(b.get(c)) for c in ("median_s", "min_s", "max_s")] + [R.rsd(b)]
                     + [F.ratio(F.fnum(a["median_s"]), F.fnum(b["median_s"])), verdict(a, b),
                        over_capfs(sel["A"], key), over_capfs(sel["B"], key), text, lo, hi,
                        R.noisy([("A", a), ("B", b)])])
    counts = {v: sum(1 for r in table if r[12] == v)
              for v in ("faster", "slower", "same", "unknown")}
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
                "B against A over %d rows: faster %d, slower %d, the same within the noise %d, "
                "unknown %d" % (len(table), counts["faster"], counts["slower"], counts["same"],
                                counts["unknown"])]
    comments += ["not compared: %s %s, run with other inputs (%s)" % (k[0], k[1], v)
                 for k, v in sorted(other.items())]
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
