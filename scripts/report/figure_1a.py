#!/usr/bin/env python3
"""Figure 1a: throughput of gpKVS's batched SETs under GPM against CPU
key-value stores fed the same batches (kvs --mode cpu --store
kvs|pmemobj|rocksdb), each store at its fastest swept thread count.
    figure_1a.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_1a.tsv and figure_9.tsv (GPM's run). Per scale:
GPM's newest verified row; per store, among the verified rows of the
newest revision that has any, and of those the rows with the most
repetitions (the sweep runs each thread count once, then the fastest again
with all repetitions), the one of the fastest thread count."""
import os

import rows as R

STORES = (("kvs", "kvs-cpu"), ("pmemobj", "pmemobj"), ("rocksdb", "rocksdb"))


def sets_of(row):
    """The SETs a run made: its batch times its batches (op set)."""
    p = R.params(row)
    return R.fnum(p.get("batch")) * R.fnum(p.get("batches"))


def fastest(rows):
    """The row that stands for a store, as the module's comment says (the
    newest revision is that of the last verified row in file order)."""
    ok = [r for r in rows if r.get("verified") == "ok"]
    if not ok:
        return None
    rev = ok[-1].get("git_rev")
    ok = [r for r in ok if r.get("git_rev") == rev]
    most = max(R.fnum(r["reps"]) for r in ok)
    return min((r for r in ok if R.fnum(r["reps"]) == most), key=lambda r: R.fnum(r["median_s"]))


def main():
    results_dir, out = R.args()
    rows = [r for r in R.read_rows(results_dir, "figure_1a.tsv") +
            R.read_rows(results_dir, "figure_9.tsv")
            if r.get("workload") == "kvs" and R.kind(r) == "run" and R.op_name(r) == "set"]
    cpu = [r for r in rows if r.get("mode") == "cpu"]
    if not cpu:
        R.fail("figure_1a: no CPU store rows in %s (run make figure_1a first)"
               % os.path.join(results_dir, "figure_1a.tsv"))
    best, warnings = R.newest([r for r in rows if r.get("mode") == "gpm"])
    paper = {p["system"]: p for p in R.read_paper("figure_1a")}
    header = ["system", "scale", "msets_per_s", "median_s", "threads", "gpm_over_it",
              "paper_lo", "paper_hi", "noisy"]
    out_rows, used = [], []
    for scale in sorted({r.get("scale", "") for r in cpu}):
        gpm = R.pick(best, "kvs(set)", scale, "gpm")
        t_gpm = R.fnum(gpm["median_s"]) if gpm else float("nan")
        if gpm:
            used.append(gpm)
            out_rows.append(["gpm", scale, sets_of(gpm) / t_gpm / 1e6, t_gpm, "", "", "", "",
                             R.noisy([("gpm", gpm)])])
        for store, system in STORES:
            r = fastest([x for x in cpu if x.get("scale") == scale and
                         R.params(x).get("store", "kvs") == store])
            if r is None:
                warnings.append("WARNING: no verified %s row at scale %s" % (store, scale))
                continue
            used.append(r)
            t = R.fnum(r["median_s"])
            out_rows.append([system, scale, sets_of(r) / t / 1e6, t, r.get("threads", ""),
                             R.ratio(t, t_gpm), R.paper_val(paper, system, "lo"),
                             R.paper_val(paper, system, "hi"), R.noisy([(system, r)])])
    comments = (["Figure 1a: throughput of batched SETs (8-byte keys and values), million SETs "
                 "a second over the median operation time; each CPU store at the thread count "
                 "of its fastest run (threads); gpm_over_it = its time over GPM's",
                 "kvs-cpu: gpKVS's own CPU counterpart (libpmem, undo log); pmemobj: gpKVS's "
                 "sets in a PMDK pool, a transaction per set's run; rocksdb: RocksDB's C API, "
                 "one synced WriteBatch a batch, its files in the PM directory", R.NOISY_COMMENT]
                + R.platform_comments(used or rows) + R.cpu_comment(used)
                + R.rev_comments(used or rows) + warnings + R.paper_comments("figure_1a"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
