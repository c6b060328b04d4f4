#!/usr/bin/env python3
"""Table 4: write amplification, bytes persisted by CAP (CAP-mm, CAP-fs)
over bytes persisted by GPM, per workload.
    table_4.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_9.tsv, then RESULTS_DIR/table_4.tsv (so rows of a
table_4 run win over figure_9 rows of the same workload, mode and scale).

For gpKVS and gpDB, CAP persists every chunk of the table that a batch
touched, at the chunk size that --cap-chunk best predicted to persist
fastest on that mode's engine (cap_chunk=best:BYTES in the row), not the
one that persists least; the write amplification follows that choice. The
report shows each mode's chunk and the copies of the table it persisted,
and why_chunks() says why where the CAP modes chose different chunks."""
import rows as R


def chunk(row):
    """The chunk size (bytes) a CAP row persisted in, from cap_chunk= in its
    params ("best:32768" or "32768"); "" where it has none."""
    v = R.params(row).get("cap_chunk", "") if row else ""
    return v.split(":")[-1]


def gb(x):
    return "%s GB" % R.fmt(x / 1e9)


def why_chunks(wl, sel, b, size):
    """A why: line for a workload whose CAP modes chose different chunks:
    the chunk, bytes and engine costs of each, beside GPM's bytes."""
    def mode(m, name):
        p = R.params(sel[m])
        return ("%s, at %s-byte chunks, persists %s a repetition (%s copies of the %s table; "
                "its engine took %s us a range and moved %s GB/s)"
                % (name, chunk(sel[m]), gb(b[m]), R.fmt(R.ratio(b[m], size)), gb(size),
                   p.get("cap_range_us", "?"), p.get("cap_gbps", "?")))
    return ("why: %s: %s; %s; GPM persists %s, the changed bytes alone: --cap-chunk best takes "
            "the chunk that persists fastest, so an engine that moves bytes fast copies nearly "
            "every chunk in long runs rather than pay for each small range, and its write "
            "amplification follows" % (wl, mode("cap-mm", "CAP-mm"), mode("cap-fs", "CAP-fs"),
                                       gb(b["gpm"])))


def main():
    results_dir, out = R.args()
    rows = R.read_rows(results_dir, "figure_9.tsv") + R.read_rows(results_dir, "table_4.tsv")
    if not rows:
        R.fail("table_4: no rows in %s/figure_9.tsv or table_4.tsv (run make table_4 first)"
               % results_dir)
    best, warnings = R.newest(rows)
    paper = R.paper_by_workload("table_4")
    header = ["workload", "scale", "gpm_bytes", "capmm_bytes", "capfs_bytes",
              "capmm_wa", "capfs_wa", "paper_wa", "capmm_chunk", "capfs_chunk",
              "capmm_table_copies", "capfs_table_copies"]
    out_rows, used, why = [], [], []
    for wl, scale in R.groups(best):
        sel = {m: R.pick(best, wl, scale, m) for m in ("gpm", "cap-mm", "cap-fs")}
        used += [r for r in sel.values() if r is not None]
        b = {m: R.fnum(r["bytes_persisted"]) if r else float("nan") for m, r in sel.items()}
        chunks = {m: chunk(sel[m]) for m in ("cap-mm", "cap-fs")}
        # Copies of the table: only where CAP persisted chunks of one.
        size = R.fnum(sel["gpm"].get("size_bytes")) if sel["gpm"] else float("nan")
        copies = {m: R.ratio(b[m], size) if chunks[m] else "" for m in chunks}
        out_rows.append([wl, scale] + [int(b[m]) if R.finite(b[m]) else b[m]
                                       for m in ("gpm", "cap-mm", "cap-fs")] + [
                         R.ratio(b["cap-mm"], b["gpm"]), R.ratio(b["cap-fs"], b["gpm"]),
                         R.paper_val(paper, wl, "wa"), chunks["cap-mm"], chunks["cap-fs"],
                         copies["cap-mm"], copies["cap-fs"]])
        if all(chunks.values()) and chunks["cap-mm"] != chunks["cap-fs"] and sel["gpm"]:
            why.append(why_chunks(wl, sel, b, size))
    comments = (["Table 4: write amplification = bytes persisted per repetition by CAP / by GPM "
                 "(newest verified run per workload, mode and scale)",
                 "capmm_chunk, capfs_chunk: for gpKVS and gpDB, the chunk size (bytes) in which "
                 "each CAP mode persisted what a batch touched, the one --cap-chunk best "
                 "predicted fastest on its engine, not the one that persists least; "
                 "*_table_copies: bytes persisted a repetition over the table's size"]
                + why + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + R.paper_comments("table_4"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
