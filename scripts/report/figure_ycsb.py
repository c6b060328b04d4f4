#!/usr/bin/env python3
"""YCSB on GPHash and gpKVS, the same stream: throughput of each core
workload on GPHash in gpm (lookups served by its mirror in GPU memory; or
from PM, with BktCache and without, its loading concurrent or blocking; and
with gpKVS's 8-byte keys and values), none (nothing persisted), cap-delta
(its CPU-assisted counterpart) and the CPU counterpart; on gpKVS in its
modes (kvs-gpm, kvs-cap-delta, kvs-cpu) and Figure 1a's CPU stores
(pmemobj, rocksdb); and GPHash gpm's throughput-latency curve over batch
sizes.
    figure_ycsb.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_ycsb.tsv: the newest verified row of each
workload, variant, batch and scale. Throughput is the run's operations
over its median time (end to end: the batches' transfers in); kernel_mops
over the kernels' time alone."""
import os

import rows as R

ORDER = ["load", "a", "b", "c", "d", "f", "search", "search-miss", "insert", "update", "delete"]
VARIANTS = ["gpm", "gpm-pm", "gpm-pm-nocache", "gpm-pm-cache100", "gpm-pm-blocking", "gpm-k8",
            "gpm-pm-k8", "none", "none-k8", "cap-delta", "cpu",
            "kvs-gpm", "kvs-cap-delta", "kvs-none", "kvs-cpu", "pmemobj", "rocksdb"]
# The variants swept over batch sizes; the others run at the default batch.
# Where a workload has no gpm rows (all from before the mirror), its
# gpm-pm rows are its sweep.
SWEPT = ("gpm", "kvs-gpm")


def variant(row, p):
    """GPHash's mode; gpm-pm where its lookups read PM (--mirror 0, and
    every row from before the mirror), -nocache or -cacheN where BktCache
    is not its default 20%, -blocking where its loading phases ran between
    batches; -k8 with gpKVS's 8-byte keys and values; gpKVS's kvs-MODE, or
    the CPU store's name."""
    if row.get("workload") == "kvs":
        store = p.get("store", "kvs")
        return store if store != "kvs" else "kvs-" + row.get("mode", "")
    v = row.get("mode", "")
    if v == "gpm" and p.get("mirror", "0") == "0":
        v += "-pm"
        if p.get("cache", "20") != "20":
            v += "-nocache" if p.get("cache") == "0" else "-cache" + p.get("cache")
        elif p.get("cache-loading") == "blocking":
            v += "-blocking"
    if p.get("key-bytes") == "8" and p.get("value-bytes") == "8":
        v += "-k8"
    return v


def gain_pct(mops, scale, y, v, over):
    """Variant V's gain over variant OVER at SCALE on YCSB Y, in %, or None
    where either did not run."""
    a, b = mops.get((scale, y, v)), mops.get((scale, y, over))
    return (a / b - 1) * 100 if a and b else None


def main_variant(mops, scale, y):
    """GPHash's gpm, or where a point has only rows of lookups from PM
    (rows from before the mirror), those; None where neither ran."""
    return next((v for v in ("gpm", "gpm-pm") if mops.get((scale, y, v))), None)


def bktcache_gains(mops, scale, y):
    """Where lookups read PM: what BktCache and its concurrent loading
    gain, a text each, where their twins ran."""
    gains = []
    for other, what in (("gpm-pm-nocache", "BktCache %+.1f%%"),
                        ("gpm-pm-blocking", "its concurrent loading %+.1f%% over blocking")):
        g = gain_pct(mops, scale, y, "gpm-pm", other)
        if g is not None:
            gains.append(what % g)
    return gains


# GPHash's paper against ours: (claim, what ours is, the workloads, the
# stores set against GPHash, what the platform likely explains). The
# paper's baselines are other indexes (Clevel, Dash, SEPH; Clevel-GPM,
# SlabHash-GPM); ours are the suite's stores on the same stream. A claim
# "over_..." is GPHash's most over one of them in any workload; "..._over_
# others", its lead over the fastest of them, in each workload named.
VERSUS = [
    ("over_cpu_assisted_max", "GPHash gpm over the CPU-assisted stores here (its cap-delta, "
     "gpKVS cap-delta)", ORDER, ("cap-delta", "kvs-cap-delta"),
     "a CPU-assisted store pays the CPU's copies and flushes, which DRAM behind PCIe 5 makes "
     "cheaper than Optane behind PCIe 3 did"),
    ("over_gpm_indexes_max", "GPHash gpm over gpKVS gpm", ORDER, ("kvs-gpm",),
     "gpKVS keeps 8-byte keys and values in a table of 1 GiB, GPHash's paper configuration "
     "128-byte values in one of 7.65 GB, and on the H100 of results/h100-dram a GPU's "
     "scattered writes to host memory cost 3.6-5.3x more over 8 GiB than over 1 GiB "
     "(gpm-roofs --size 8G beside --size 1G measures it on another machine)"),
    ("insert_over_others", "GPHash gpm over the fastest of the others", ("load",),
     ("cap-delta", "kvs-gpm", "kvs-cap-delta"),
     "each insert writes a 304-byte record somewhere in the table's whole span"),
    ("a_b_over_others", "GPHash gpm over the fastest of the others", ("a", "b"),
     ("cap-delta", "kvs-gpm", "kvs-cap-delta"),
     "each update writes a cell somewhere in the table's whole span"),
]
BKTCACHE = [("bktcache_gain_a_pct", ("a",)), ("bktcache_gain_b_pct", ("b",)),
            ("bktcache_gain_max_pct", ("a", "b", "c")),
            ("bktcache_gain_balanced_pct", ("d", "load"))]


def beside_paper(mops, scale, paper):
    """GPHash's paper's ratios beside ours at SCALE, a line each: ours,
    and what the platform likely explains (the paper: a V100 and Optane
    behind PCIe 3)."""
    lines = []

    def gph(y):
        return mops.get((scale, y, main_variant(mops, scale, y)))
    for claim, what, ys, others, why in VERSUS:
        if claim not in paper:
            continue
        found = []  # (ratio, workload)
        for y in ys:
            o = [mops[(scale, y, v)] for v in others if mops.get((scale, y, v))]
            if gph(y) and o:
                found.append((gph(y) / (min(o) if claim.startswith("over_") else max(o)), y))
        if not found:
            ours = "not measured here"
        elif claim.startswith("over_"):
            ours = "at most %.2fx (YCSB %s)" % (max(found)[0], max(found)[1])
        else:
            ours = ", ".join("YCSB %s %.2fx" % (y, r) for r, y in found)
        lines.append("paper beside ours: %s %sx; ours, %s: %s; likely why: %s"
                     % (claim, paper[claim]["value"], what, ours, why))
    for claim, ys in BKTCACHE:
        if claim not in paper:
            continue
        each = ((gain_pct(mops, scale, y, "gpm-pm", "gpm-pm-nocache"), y) for y in ys)
        gains = [(g, y) for g, y in each if g is not None]
        ours = ("at most %+.1f%% (YCSB %s)" % max(gains)) if gains else "not measured here"
        lines.append("paper beside ours: %s %s%%; ours, BktCache's gain where lookups read PM "
                     "(20%% of the buckets cached, against none), YCSB %s: %s; likely why: a "
                     "read of DRAM behind PCIe 5 costs less than one of Optane behind PCIe 3, "
                     "so a cached bucket saves less" % (claim, paper[claim]["value"],
                                                        ", ".join(ys), ours))
    return lines


def scale_of(rows):
    """Each row's scale, a custom row (a size flag given: --key-bytes,
    gpKVS's --batch) taking that of the named scale whose rows load and run
    as many operations, so that it is set beside them."""
    named = {}
    for r in rows:
        p = R.params(r)
        if r.get("scale") != "custom":
            named[(p.get("records"), p.get("ops"))] = r.get("scale")
    return lambda r, p: (named.get((p.get("records"), p.get("ops")), "custom")
                         if r.get("scale") == "custom" else r.get("scale"))


def main():
    results_dir, out = R.args()
    rows = [r for r in R.target_rows(results_dir, "figure_ycsb")
            if r.get("verified") == "ok" and (r.get("workload") == "gphash" or
                                              (r.get("workload") == "kvs" and
                                               r.get("op") == "ycsb"))]
    if not rows:
        R.fail("figure_ycsb: no verified gphash rows in %s (run make figure_ycsb)"
               % os.path.join(results_dir, "figure_ycsb.tsv"))
    newest = {}
    scale_for = scale_of(rows)
    for r in rows:  # file order: a later row of the same point replaces an earlier one
        p = R.params(r)
        key = (scale_for(r, p), p.get("workload"), variant(r, p), int(p.get("batch", "0")))
        newest[key] = (r, p)
    with_gpm = {(sc, y) for (sc, y, v, b) in newest if v == "gpm"}

    def swept(sc, y, v):
        return v in SWEPT or (v == "gpm-pm" and (sc, y) not in with_gpm)
    # The mix's rows are run at the scale's default batch, the same for
    # every workload: the batch most of the scale's points not swept ran
    # at (an old sweep of a variant no longer swept must not set it).
    runs_at = {}
    for (sc, y, v, b) in newest:
        if not swept(sc, y, v):
            runs_at.setdefault(sc, {}).setdefault(b, set()).add((y, v))
    default_batch = {sc: max(sorted(at), key=lambda b: len(at[b])) for sc, at in runs_at.items()}
    out_rows, used = [], []
    for (scale, y, v, b), (r, p) in sorted(
            newest.items(), key=lambda kv: (kv[0][0], ORDER.index(kv[0][1])
                                            if kv[0][1] in ORDER else 99,
                                            VARIANTS.index(kv[0][2]) if kv[0][2] in VARIANTS
                                            else 9, kv[0][3])):
        med = R.number(r, "median_s")
        ops = R.fnum(p.get("run_ops"))
        kern = R.fnum(p.get("kernel_s"))
        kind = "mix" if default_batch.get(scale) == b else "sweep"
        if kind == "sweep" and not swept(scale, y, v):
            continue
        out_rows.append([kind, y, ORDER.index(y) if y in ORDER else 99, scale, v, b,
                         ops / med / 1e6, ops / kern / 1e6 if kern > 0 else float("nan"),
                         R.fnum(p.get("batch_p50_us")), R.fnum(p.get("batch_p99_us")),
                         R.fnum(p.get("bktcache_hit_rate")), med, R.noisy([(v, r)])])
        if kind == "mix" and swept(scale, y, v):
            out_rows.append(["sweep"] + out_rows[-1][1:])  # the default batch is a sweep point too
        used.append(r)
    # The plot shows one scale, the largest measured: bars of two scales
    # side by side would read as one comparison.
    scales = {o[3] for o in out_rows}
    shown = next((sc for sc in ("paper", "small", "tiny", "custom") if sc in scales), "")
    for o in out_rows:
        o.append(1 if o[3] == shown else 0)
    mops = {(o[3], o[1], o[4]): o[6] for o in out_rows if o[0] == "mix"}
    paper = {p["claim"]: p for p in R.read_paper("figure_ycsb")}
    notes = []
    for (scale, y, v), m in sorted(mops.items()):
        if v != main_variant(mops, scale, y):
            continue
        parts = []
        for other, what in (("gpm-pm", "%.2fx its lookups from PM through BktCache"),
                            ("none", "%.0f%% of none"),
                            ("cap-delta", "%.2fx its cap-delta"),
                            ("cpu", "%.2fx the CPU counterpart"),
                            ("kvs-gpm", "%.2fx gpKVS gpm"),
                            ("kvs-cap-delta", "%.2fx gpKVS cap-delta"),
                            ("kvs-cpu", "%.2fx gpKVS-CPU"), ("pmemobj", "%.2fx libpmemobj"),
                            ("rocksdb", "%.2fx RocksDB")):
            o = mops.get((scale, y, other)) if other != v else None
            if o:
                parts.append(what % (m / o * 100 if other == "none" else m / o))
            if other == "gpm-pm" and mops.get((scale, y, other)):
                gains = bktcache_gains(mops, scale, y)
                if o and gains:
                    parts[-1] += " (%s)" % ", ".join(gains)
                else:
                    parts += gains
        every = mops.get((scale, y, "gpm-pm-cache100"))
        if every:
            parts.append("every bucket cached %.2f Mops" % every)
        k8 = mops.get((scale, y, v + "-k8"))
        k8_parts = ["%.2fx gpKVS %s" % (k8 / mops[(scale, y, o)], o[4:])
                    for o in ("kvs-gpm", "kvs-cap-delta") if k8 and mops.get((scale, y, o))]
        if k8 and mops.get((scale, y, "none-k8")):
            k8_parts.append("%.0f%% of its none" % (k8 / mops[(scale, y, "none-k8")] * 100))
        if k8_parts:
            parts.append("with gpKVS's 8-byte keys and values %.2f Mops, %s"
                         % (k8, ", ".join(k8_parts)))
        if parts:
            notes.append("%s (%s): %s %.2f Mops: %s" % (y, scale, v, m, ", ".join(parts)))
    claims = ["paper: %s = %s (%s)" % (k, p["value"], p["source"]) for k, p in paper.items()]
    claims += beside_paper(mops, shown, paper)
    comments = (["YCSB on GPHash and on gpKVS (--op ycsb: a read is a GET, an update or insert "
                 "a SET, a read-modify-write both; 8-byte keys and values); a row of a size "
                 "flag (--key-bytes, gpKVS's --batch) is set beside the scale that loads and "
                 "runs as many operations. Mops = the run's operations over its median time, "
                 "end to end (the batches' operations and keys to the GPU and the answers back are "
                 "in it); kernel_mops over the kernels' time alone; batch p50 and p99 are "
                 "batches' wall times; hit_rate: the candidate-bucket reads BktCache served",
                 "kind mix: every variant at the default batch; kind sweep: gpm and kvs-gpm "
                 "over batch sizes (the throughput-latency curve); plotted: the rows of the plot's one "
                 "scale, the largest measured (%s)" % shown, R.NOISY_COMMENT]
                + notes + R.platform_comments(used) + R.cpu_comment(used)
                + R.rev_comments(used) + claims)
    R.write_tsv(out, ["kind", "ycsb", "x", "scale", "variant", "batch", "mops", "kernel_mops",
                      "batch_p50_us", "batch_p99_us", "hit_rate", "median_s", "noisy",
                      "plotted"],
                out_rows, comments)


if __name__ == "__main__":
    main()
