#!/usr/bin/env python3
"""Figure 9: speedup of CAP-mm and GPM over CAP-fs, per workload.
    figure_9.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_9.tsv. Per (workload, scale) and mode it takes the
newest verified run row (rows are appended, so the newest is the last one in
the file); a speedup is the ratio of median operation times. The paper's
stated values (reports/paper/figure_9.tsv) stand beside ours.

The selection and formatting helpers here are shared by the other report
scripts of Figures 9/10 and Tables 4/5."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402

NOT_RUNS = ("recover", "crash-campaign")


def fnum(v):
    """A float from a TSV field; nan for empty or unparsable fields."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def finite(x):
    return isinstance(x, float) and not math.isnan(x) and not math.isinf(x)


def ratio(num, den):
    return num / den if finite(num) and finite(den) and den > 0 else float("nan")


def geomean(values):
    vals = [v for v in values if finite(v) and v > 0]
    if not vals:
        return float("nan")
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def kind(row):
    """What a row is: "run", or one of NOT_RUNS (a recovery, a campaign)."""
    op = row.get("op") or "run"
    return op if op in NOT_RUNS else "run"


def op_name(row):
    """The operation of a workload with several (gpDB's insert and update):
    a run row's op column, a recovery's or campaign's op= param; "" for a
    workload with one operation."""
    op = row.get("op") or "run"
    if op in NOT_RUNS:
        return R.params(row).get("op", "")
    return "" if op == "run" else op


def label(row):
    """The workload name a report shows: the workload, plus its operation
    when it has several (e.g. INSERT and UPDATE)."""
    op = op_name(row)
    return row["workload"] if not op else "%s(%s)" % (row["workload"], op)


def newest(rows, ops=None):
    """{(label, scale, mode, kind): row}: the newest verified row of each key
    (the last in file order), of the kinds in OPS (default: runs). Unverified
    rows never count; every key whose newest row failed verification is
    returned in a list of warnings."""
    best, last_any = {}, {}
    for r in rows:
        k = kind(r)
        if k not in (ops or ("run",)):
            continue
        key = (label(r), r.get("scale", ""), r.get("mode", ""), k)
        last_any[key] = r
        if r.get("verified") == "ok":
            best[key] = r
    warnings = []
    for key, r in sorted(last_any.items()):
        if r.get("verified") != "ok":
            what = "%s --mode %s op=%s (scale %s)" % (key[0], key[2], key[3], key[1])
            if key in best:
                warnings.append("WARNING: newest %s failed verification; an older "
                                "verified run (rev %s) is used" % (what, best[key].get("git_rev", "?")))
            else:
                warnings.append("WARNING: %s has no verified row; left out" % what)
    return best, warnings


def groups(best):
    """Sorted (label, scale) pairs present in a newest() result."""
    return sorted({(k[0], k[1]) for k in best})


def paper_by_workload(name):
    return {p["workload"]: p for p in R.read_paper(name)}


def paper_val(paper, workload, col):
    """The paper's value or '' where the paper states none."""
    v = paper.get(workload, {}).get(col, "") or ""
    return v.strip()


def paper_gpm_text(paper, workload):
    """GPM over CAP-fs as the paper's text states it for WORKLOAD: its own
    number, else the range stated for it or its class ("11-18"), else "not
    stated". The paper gives no bar heights, only these ranges."""
    v = paper_val(paper, workload, "gpm_speedup")
    lo, hi = paper_val(paper, workload, "gpm_lo"), paper_val(paper, workload, "gpm_hi")
    if v:
        return v
    if lo and hi:
        return lo if lo == hi else "%s-%s" % (lo, hi)
    return "not stated"


def paper_comments(name):
    """The '#' lines of reports/paper/NAME.tsv (the paper's stated ranges)."""
    path = R.paper_path(name)
    if not os.path.exists(path):
        return ["paper values: %s missing" % path]
    with open(path) as f:
        return ["paper: " + line[1:].strip() for line in f if line.startswith("#")]


def pick(best, wl, scale, mode, op=None):
    """The selected row of (workload label, scale, mode[, op]) or None."""
    for k, r in best.items():
        if k[0] == wl and k[1] == scale and k[2] == mode and (op is None or k[3] == op):
            return r
    return None


def checkpoint_s(row):
    """The seconds a run's checkpoints took (checkpoint_s= in its params), or
    nan for a row without them."""
    return fnum(R.params(row).get("checkpoint_s")) if row else float("nan")


def speedup_table(results_dir, name, modes, also=()):
    """Shared by Figures 9 and 10: reads RESULTS_DIR/NAME.tsv (and the files
    named in ALSO) and returns (rows, table, used, warnings); table holds per
    (workload, scale) the median_s of each mode (nan where missing), the
    CAP-mm thread count and the noisy column of the modes' rows."""
    rows = R.read_rows(results_dir, name + ".tsv")
    for other in also:
        rows += R.read_rows(results_dir, other + ".tsv")
    if not rows:
        R.fail("%s: no rows in %s (run make %s first)"
               % (name, os.path.join(results_dir, name + ".tsv"), name))
    best, warnings = newest(rows)
    table, used = [], []
    for wl, scale in groups(best):
        sel = {m: pick(best, wl, scale, m) for m in modes}
        used += [r for r in sel.values() if r is not None]
        t = {m: fnum(r["median_s"]) if r else float("nan") for m, r in sel.items()}
        capmm = sel.get("cap-mm") or sel.get("cap-eadr")
        table.append((wl, scale, t, capmm.get("threads", "") if capmm else "",
                      R.noisy([(m, sel[m]) for m in modes])))
    return rows, table, used, warnings


def main():
    if len(sys.argv) != 3:
        R.fail("usage: figure_9.py RESULTS_DIR OUT_TSV")
    results_dir, out = sys.argv[1], sys.argv[2]
    modes = ("cap-fs", "cap-mm", "gpm", "cap-delta", "cap-gds")
    rows, table, used, warnings = speedup_table(results_dir, "figure_9", modes)
    best_rows, _ = newest(rows)
    paper = paper_by_workload("figure_9")
    header = ["workload", "scale", "capfs_s", "capmm_s", "gpm_s", "capmm_speedup",
              "gpm_speedup", "paper_capmm_speedup", "paper_gpm_speedup",
              "paper_gpm_lo", "paper_gpm_hi", "gpm_over_capmm",
              "paper_gpm_over_capmm", "capmm_threads",
              "capfs_checkpoint_s", "gpm_checkpoint_s", "gpm_checkpoint_speedup",
              "capdelta_s", "capdelta_speedup", "gpm_over_capdelta", "noisy",
              "capgds_s", "capgds_speedup", "gpm_over_capgds", "capgds_cufile"]
    out_rows = []
    for wl, scale, t, threads, noise in table:
        s_cm = ratio(t["cap-fs"], t["cap-mm"])
        s_gp = ratio(t["cap-fs"], t["gpm"])
        s_gc = ratio(t["cap-mm"], t["gpm"])
        cp = {m: checkpoint_s(pick(best_rows, wl, scale, m)) for m in ("cap-fs", "gpm")}
        gds = pick(best_rows, wl, scale, "cap-gds")
        out_rows.append([wl, scale, t["cap-fs"], t["cap-mm"], t["gpm"], s_cm, s_gp,
                         paper_val(paper, wl, "capmm_speedup"),
                         paper_gpm_text(paper, wl),
                         paper_val(paper, wl, "gpm_lo"), paper_val(paper, wl, "gpm_hi"),
                         s_gc, paper_val(paper, wl, "gpm_over_capmm"), threads,
                         cp["cap-fs"], cp["gpm"], ratio(cp["cap-fs"], cp["gpm"]),
                         t["cap-delta"], ratio(t["cap-fs"], t["cap-delta"]),
                         ratio(t["cap-delta"], t["gpm"]), noise,
                         t["cap-gds"], ratio(t["cap-fs"], t["cap-gds"]),
                         ratio(t["cap-gds"], t["gpm"]),
                         R.params(gds).get("cufile", "") if gds else ""])
    for scale in sorted({r[1] for r in out_rows}):  # one geomean per scale, never mixed
        sub = [r for r in out_rows if r[1] == scale]
        out_rows.append(["geomean", scale, "", "", "", geomean([r[5] for r in sub]),
                         geomean([r[6] for r in sub]), "", "", "", "",
                         geomean([r[11] for r in sub]), "", "", "", "",
                         geomean([r[16] for r in sub]), "", geomean([r[18] for r in sub]),
                         geomean([r[19] for r in sub]), "", "", geomean([r[22] for r in sub]),
                         geomean([r[23] for r in sub]), ""])
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
                + warnings + paper_comments("figure_9"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
