#!/usr/bin/env python3
"""Figure 12: write bandwidth to PM under GPM per workload: bytes persisted
over the median operation time, beside the GPU's PCIe transmit throughput
sampled during the run (pcie_tx_gbps in the row's params, where the driver
offers it) and the write ceiling measured by Figure 3.
    figure_12.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/figure_12.tsv and figure_9.tsv (whose GPM runs make
figure_12 reuses), and the persist-scaling rows for the ceiling; the
selection rules are figure_9.py's.

The three rates count different bytes, so the transmit counter may exceed
both others (the comment lines say which rows do, and why):
- pm_write_gbps counts the row's bytes_persisted: for gpKVS and gpDB the
  table's changed bytes, without the undo-log records that also cross the
  link;
- pcie_tx_gbps is NVML's transmit counter, "a byte counter over a 20 ms
  interval" (its documentation says no more); NVIDIA documents its
  profiling counterpart, DCGM's PCIE_TX_BYTES, as counting packet headers as
  well as payloads, and the rows agree: streaming writers transmit a fixed
  1.2-1.3x their payload, and the counter tops out near the link's line
  rate. It is the mean of samples taken every 20 ms in the last repetition,
  the first of which covers the 20 ms before it: a run of a few windows
  reads low (tx_samples);
- write_ceiling_gbps is the fastest rate at which GPU threads wrote PM
  without persisting in Figure 3: payload bytes over time, like
  pm_write_gbps, not bytes on the link."""
import rows as R
import figure_3 as F3


# NVML samples every 20 ms (workloads/common/pcie.c); a run of fewer than
# SHORT_WINDOWS such windows is read from a handful of samples.
WINDOW_S, SHORT_WINDOWS = 0.02, 10
# PCIe's transfer rate per lane (GT/s) and line encoding, by generation.
LINK = {"gen1": (2.5, 8 / 10), "gen2": (5.0, 8 / 10), "gen3": (8.0, 128 / 130),
        "gen4": (16.0, 128 / 130), "gen5": (32.0, 128 / 130)}


def line_rate_gbps(pcie):
    """The line rate of one direction of a link named like "gen5 x16" in
    GB/s, after its encoding; nan for a name this does not know."""
    parts = (pcie or "").split()
    if len(parts) != 2 or parts[0] not in LINK or not parts[1].startswith("x"):
        return float("nan")
    gts, enc = LINK[parts[0]]
    try:
        return gts * int(parts[1][1:]) * enc / 8
    except ValueError:
        return float("nan")


def tx_samples(gpm_s):
    """About how many 20-ms samples NVML gave over a run of GPM_S seconds
    (one at its start, then one a window), or nan."""
    return 1 + int(gpm_s / WINDOW_S) if R.finite(gpm_s) else float("nan")


def explain(rows, ceiling, line_rate):
    """Comment lines ("why: ...", which the summary repeats) on where the
    three rates part, from the numbers of the report's ROWS (dicts by
    column)."""
    def span(rs):
        lo = R.fmt(min(r["tx_over_write"] for r in rs))
        hi = R.fmt(max(r["tx_over_write"] for r in rs))
        return "%sx" % lo if lo == hi else "%s-%sx" % (lo, hi)

    def named(rs):
        return ", ".join(r["workload"] for r in rs)
    out = []
    tx = [r for r in rows if R.finite(r["tx_over_write"])]
    stream = [r for r in tx if 1 <= r["tx_over_write"] < 2]
    if stream:
        out.append("why: NVML transmits %s the bytes persisted for the streaming writers "
                   "(%s): likely packet headers beside the payload"
                   % (span(stream), named(stream)))
    sparse = [r for r in tx if r["tx_over_write"] >= 2]
    if sparse:
        out.append("why: NVML transmits %s the bytes persisted for the scattered writers (%s): a store of a few bytes crosses the "
                   "link in a packet of its own, with a header of about 20-30 bytes, and/or "
                   "bytes_persisted leaves out the undo-log records (gpKVS, gpDB) that cross "
                   "it too" % (span(sparse), named(sparse)))
    over = [r for r in tx if R.finite(ceiling) and r["pcie_tx_gbps"] > ceiling]
    if over:
        out.append("why: pcie_tx_gbps exceeds the write ceiling (%s GB/s) for %s, at most %s GB/s%s: "
                   "the counter counts bytes on the link, the ceiling only those written"
                   % (R.fmt(ceiling), named(over), R.fmt(max(r["pcie_tx_gbps"] for r in over)),
                      " (the line rate of the link: %s GB/s per direction)" % R.fmt(line_rate)
                      if R.finite(line_rate) else ""))
    short = [r for r in tx if r["tx_samples"] < SHORT_WINDOWS]
    if short:
        out.append("why: %s ran for under %d samples (tx_samples): their pcie_tx_gbps rests on a "
                   "few, the first covering the 20 ms before the run, busy or idle"
                   % (named(short), SHORT_WINDOWS))
    low = [r for r in tx if r["tx_over_write"] < 1]
    if low:
        out.append("why: pcie_tx_gbps is below the write rate for %s: %s; with the headers it "
                   "should be above, so the run's few samples likely read low"
                   % (named(low), ", ".join("%s GB/s against %s from %s samples"
                                            % (R.fmt(r["pcie_tx_gbps"]),
                                               R.fmt(r["pm_write_gbps"]), r["tx_samples"])
                                            for r in low)))
    return out


def main():
    results_dir, out = R.args()
    rows, table, used, warnings = R.speedup_table(results_dir, "figure_12", ("gpm",),
                                                  also=("figure_9",))
    ceiling, ceiling_file = F3.link_ceiling(results_dir)
    paper = R.paper_by_workload("figure_12")
    header = ["workload", "scale", "gpm_s", "bytes_persisted", "pm_write_gbps",
              "pcie_tx_gbps", "tx_over_write", "tx_samples", "write_ceiling_gbps",
              "share_of_ceiling", "paper_class", "noisy"]
    out_rows = []
    for wl, scale, t, sel, _, noise in table:
        r = sel["gpm"]
        if r is None:
            continue
        b = R.fnum(r.get("bytes_persisted"))
        gbps = R.ratio(b, t["gpm"]) / 1e9
        tx = R.fnum(R.params(r).get("pcie_tx_gbps"))
        out_rows.append({"workload": wl, "scale": scale, "gpm_s": t["gpm"],
                         "bytes_persisted": int(b) if R.finite(b) else b,
                         "pm_write_gbps": gbps, "pcie_tx_gbps": tx,
                         "tx_over_write": R.ratio(tx, gbps),
                         "tx_samples": tx_samples(t["gpm"]) if R.finite(tx) else "",
                         "write_ceiling_gbps": ceiling, "share_of_ceiling": R.ratio(gbps, ceiling),
                         "paper_class": R.paper_val(paper, wl, "class"), "noisy": noise})
    if not out_rows:
        R.fail("figure_12: no verified GPM rows in %s/figure_12.tsv or figure_9.tsv (run make "
               "figure_12 first)" % results_dir)
    shown = used or rows
    line_rate = line_rate_gbps(shown[0].get("pcie")) if shown else float("nan")
    comments = (["Figure 12: write bandwidth to PM under GPM = bytes persisted / median "
                 "operation time; pcie_tx_gbps = the GPU's PCIe transmit throughput sampled "
                 "through NVML every 20 ms during the last repetition (nan: not sampled; "
                 "tx_samples: about how many samples, the first covering the 20 ms before the "
                 "run); tx_over_write = pcie_tx_gbps / pm_write_gbps; write_ceiling_gbps = the "
                 "best unpersisted GPU write rate of Figure 3, bytes written over time (%s)"
                 % (R.shown_path(results_dir, ceiling_file) if ceiling_file
                    else "no persist-scaling rows: run make figure_3"),
                 "the rates count different bytes: bytes_persisted leaves out undo-log records; "
                 "NVML's counter likely counts packet headers too (its documentation says only "
                 "\"a byte counter\"; NVIDIA documents DCGM's PCIE_TX_BYTES so); the ceiling "
                 "counts payload", R.NOISY_COMMENT]
                + explain(out_rows, ceiling, line_rate)
                + R.platform_comments(shown) + R.rev_comments(shown)
                + warnings + R.paper_comments("figure_12"))
    R.write_tsv(out, header, [[r[h] for h in header] for r in out_rows], comments)


if __name__ == "__main__":
    main()
