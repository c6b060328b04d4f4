#!/usr/bin/env python3
"""The persistence roofline: each workload operation's GPM, CAP-mm and CAP-fs
time held against its physical bound on the machine that ran it.
    roofline.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/roofline.tsv (runs in none, gpm, cap-mm and cap-fs: the
newest verified row of each) and RESULTS_DIR/roofs.tsv (gpm-roofs: the
newest verified row of each probe on the runs' host). The report's comment
lines define its columns; the terms of the bounds:
  V       the operation in mode none: the computation, with nothing persisted
  P, N    what the GPM run made durable: bytes, and the kernels' persists
  B       the link's write bandwidth: the faster of coalesced stores with one
          persist at the end (link-write) and with a persist after each
          (persist-seq, 8 bytes a persist), which on an H100 at full occupancy
          outran the first
  R       the fastest fenced persist rate measured at full occupancy
          (coalesced or random, 8 or 16 bytes): N/R is a floor for any
          pattern of persists
  GPM's bound    max(V, P/B, N/R)
  CAP-mm's bound V + P/copy + P/flush, one after the other as the engine
                 does them (P: the cap-mm run's bytes)
  CAP-fs's bound V + max(P/copy, P/write): the engine overlaps the staging
                 copy with the writes; then one fsync, inside the write rate
if_random_s: N at the random 8-byte persist rate, as if every persist went
to a line of its own, which the bound does not assume. The key-value stores'
YCSB runs (gphash, kvs --op ycsb; a row per YCSB workload, "gphash(ycsb a)")
are held against the batch path's roofs instead, from their rows' notes; GPM's
bound is the largest of (mode none's: the floor and the reads):
  batch-floor-graph  run_batches x one batch with nothing to do (a CUDA Graph)
  write-scatterS     pm_records at the rate of scattered records of their
                     size (scatter_probe) over the table's span (over_span)
  P/B                pm_record_bytes over B
  read-rand8         pm_reads at the rate of independent 8-byte reads of PM
Over GOAL (1.25x) its bound an operation is named in the summary; a YCSB run
within GOAL of serial_s (its lookups, then its persists) as one whose lookups
and persists add. Whether they must add, the roofs line says (beside_text)."""
import os
import re

import rows as R

MODES = ("none", "gpm", "cap-mm", "cap-fs")
GOAL = 1.25
NAN = float("nan")
PROBES = ("link-write", "persist-seq", "persist-rand8", "persist-rand16", "fence-latency",
          "d2h-copy", "cpu-flush", "fs-write")
YCSB_OP = {"gphash": "run", "kvs": "ycsb"}  # the operation that runs YCSB


def roofs_of(results_dir, roof_rows, host, scale):
    """{probe: (rate per second, row)} of the newest verified row of each
    probe measured on HOST, at SCALE where there is one (make roofline
    probes a small file at tiny scale, which caches hold), among ROOF_ROWS
    (RESULTS_DIR/roofs.tsv's)."""
    out = {}
    rows = [r for r in roof_rows if r.get("workload") == "roofs"
            and r.get("host") == host and r.get("verified") == "ok"]
    for r in sorted(rows, key=lambda r: r.get("scale") == scale):  # stable: newest last
        out[r["op"]] = (R.fnum(R.params(r).get("rate_per_s")), r)
    missing = [p for p in PROBES if p not in out]
    if missing:
        R.fail("roofline: %s has no verified %s row of host %s: run make roofline on that "
               "machine (it measures them)" % (os.path.join(results_dir, "roofs.tsv"),
                                                 ", ".join(missing), host))
    return out


def stride_rates(roof_rows, like):
    """[(stride in bytes, persists per second)] of the persist-stride16 rows
    among ROOF_ROWS of the host, revision and size of the roof row LIKE, by
    stride."""
    key = ("host", "git_rev", "size_bytes")
    rows = [r for r in roof_rows if r.get("op") == "persist-stride16"
            and r.get("verified") == "ok" and all(r.get(k) == like.get(k) for k in key)]
    rates = {int(R.params(r).get("stride_bytes", "0")): R.fnum(R.params(r).get("rate_per_s"))
             for r in rows}
    return sorted(rates.items())


def stride_text(rates):
    def size(b):
        return "%d KiB" % (b // 1024) if b >= 1024 else "%d B" % b
    return ("; 16-byte persists with a warp's lanes S apart, per second: %s"
            % ", ".join("%s %.3g" % (size(b), r) for b, r in rates) if rates else "")


def link_bandwidth(roofs):
    """B: the faster of the link-write probe and persist-seq's bytes."""
    seq = roofs["persist-seq"]
    width = R.fnum(R.params(seq[1]).get("store_bytes", "8"))
    return max(roofs["link-write"][0], seq[0] * width if R.finite(width) else 0.0)


def gpm_bound(v, p, n, roofs):
    """(bound, what binds, P/B, N/R) of a GPM run."""
    r_best = max(roofs[k][0] for k in ("persist-seq", "persist-rand8", "persist-rand16"))
    terms = {"V": v, "P/B": R.ratio(p, link_bandwidth(roofs)), "N/R": R.ratio(n, r_best)}
    known = {k: t for k, t in terms.items() if R.finite(t)}
    if not R.finite(v):
        return float("nan"), "", terms["P/B"], terms["N/R"]
    what = max(known, key=known.get)
    return known[what], what, terms["P/B"], terms["N/R"]


def ycsb_row(r):
    """R as the report names it: a key-value store's YCSB run relabelled
    "W(ycsb Y)" (Y its workload= param), so each YCSB workload is a row of
    its own; None for any other row."""
    w = r.get("workload")
    if w not in YCSB_OP or (r.get("op") or "run") != YCSB_OP[w]:
        return None
    return dict(r, workload="%s(ycsb %s)" % (w, R.params(r).get("workload", "?")), op="run")


def scatter_probe(roofs, size):
    """The write-scatter probe of the smallest records of at least SIZE
    bytes, the largest where none is; None where ROOFS has none. Only
    records that fill their slots (write-scatterS): a record inside a
    larger slot (-inN) covers fewer slots of the file."""
    have = sorted((R.fnum(R.params(r).get("record_bytes")), op) for op, (_, r) in roofs.items()
                  if re.fullmatch(r"write-scatter\d+", op))
    return next((op for b, op in have if b >= size), have[-1][1]) if have else None


def span_rows(roof_rows, host):
    """{probe: {file bytes: (rate per second, row)}}: the newest verified
    row of each probe over each file size that HOST measured, whatever the
    scale."""
    out = {}
    for r in roof_rows:
        if r.get("workload") == "roofs" and r.get("host") == host and r.get("verified") == "ok":
            out.setdefault(r["op"], {})[R.fnum(r.get("size_bytes"))] = (
                R.fnum(R.params(r).get("rate_per_s")), r)
    return out


def over_span(roofs, spans, op, span):
    """(rate, row, file bytes) of probe OP measured over the smallest file
    of at least SPAN bytes, the largest where none is (a scattered write
    costs more as the writes spread: the GPU translates each page of host
    memory it writes); ROOFS's row where SPAN is unknown or SPANS lacks OP."""
    sizes = sorted(spans.get(op, {}))
    if not sizes or not R.finite(span):
        return roofs[op][0], roofs[op][1], NAN
    size = next((b for b in sizes if b >= span), sizes[-1])
    if size == R.fnum(roofs[op][1].get("size_bytes")):  # the scale's own row
        return roofs[op][0], roofs[op][1], size
    return spans[op][size] + (size,)


def batch_bound(row, roofs, host, spans=None):
    """(bound, what binds, {term: seconds}, why) of ROW, a YCSB run in gpm
    or none, on the batch path (the module's comment), its records' roof
    over the table's span where SPANS (span_rows) has it; why: the terms
    left out, or why there is no bound."""
    p, why, terms = R.params(row), [], {}
    if "run_batches" not in p:
        return NAN, "", terms, "notes no run_batches=: no bound"
    n = {k: float(R.param_count(p, k))
         for k in ("run_batches", "pm_records", "pm_record_bytes", "pm_reads")}
    gpm = row["mode"] == "gpm"
    lacks = [k + "=" for k in ("pm_records", "pm_record_bytes") if gpm and k not in p]
    why += ["notes no %s: its term left out" % " or ".join(lacks)] if lacks else []
    floor = roofs.get("batch-floor-graph")
    missing = [] if floor else ["batch-floor-graph"]
    if floor:
        fp = R.params(floor[1])
        if R.param_count(fp, "batch") > R.param_count(p, "batch") > 0:
            why.append("batch-floor-graph measured at batch=%s, above the row's %s: left out"
                       % (fp.get("batch"), p.get("batch")))
        else:
            terms["batch-floor-graph"] = n["run_batches"] * R.fnum(fp.get("s_per_batch"))
    if gpm and n["pm_records"]:
        scatter = scatter_probe(roofs, n["pm_record_bytes"] / n["pm_records"])
        if scatter:
            table = R.fnum(row.get("size_bytes"))
            rate, r, size = over_span(roofs, spans or {}, scatter, table)
            terms[scatter] = R.ratio(n["pm_records"], rate)
            if r is not roofs[scatter][1]:
                why.append("%s over a %.3g GB file, for the table's %.3g GB"
                           % (scatter, size / 1e9, table / 1e9))
        else:
            missing.append("write-scatter")
    if gpm and n["pm_record_bytes"]:
        terms["P/B"] = R.ratio(n["pm_record_bytes"], link_bandwidth(roofs))
    if n["pm_reads"]:
        if "read-rand8" in roofs:
            terms["read-rand8"] = R.ratio(n["pm_reads"], roofs["read-rand8"][0])
        else:
            missing.append("read-rand8")
    known = {k: t for k, t in terms.items() if R.finite(t)}
    if missing or not known:
        why.append("roofs.tsv has no %s row of host %s (make roofline ROOFS=again measures it): "
                   "no bound" % (", ".join(missing), host) if missing else "no term: no bound")
        return NAN, "", terms, "; ".join(why)
    what = max(known, key=known.get)
    return known[what], what, terms, "; ".join(why)


def ycsb_columns(sel, v, roofs, spans, host):
    """(P, N, P/B, N over the scatter rate, bound, what binds, [floor_s,
    reads_s, v_bound_s, v_bound_by, v_over_bound, serial_s,
    gpm_over_serial, note]) of a YCSB run's rows SEL by mode, V mode
    none's time: P and N its gpm row's pm_record_bytes and pm_records;
    serial_s V and then the persists at their roof (the larger of P/B and
    N over the scatter rate), as a batch's lookups and persists run one
    after the other."""
    got = {m: batch_bound(sel[m], roofs, host, spans) if sel[m] else (NAN, "", {}, "")
           for m in ("gpm", "none")}
    bound, by, terms, _ = got["gpm"]
    gp = R.params(sel["gpm"]) if sel["gpm"] else {}
    scatter = [s for k, s in terms.items() if k.startswith("write-scatter")]
    vb, vby = got["none"][:2]
    writes = [t for t in (terms.get("P/B", NAN), scatter[0] if scatter else NAN) if R.finite(t)]
    serial = v + max(writes) if writes and R.finite(v) else NAN
    gpm_s = R.fnum(sel["gpm"]["median_s"]) if sel["gpm"] else NAN
    return (R.fnum(gp.get("pm_record_bytes")), R.fnum(gp.get("pm_records")),
            terms.get("P/B", NAN), scatter[0] if scatter else NAN, bound, by,
            [terms.get("batch-floor-graph", NAN), terms.get("read-rand8", NAN), vb, vby,
             R.ratio(v, vb), serial, R.ratio(gpm_s, serial),
             note_text(got["gpm"][3], got["none"][3])])


def serial_text(serial, over):
    """Where a YCSB run over its bound is within GOAL of serial_s: a clause
    saying that its lookups and persists add."""
    if not (R.finite(serial) and R.finite(over) and over <= GOAL):
        return ""
    return ("; %sx of serial_s, %s s: mode none's time and then its persists at their roof, "
            "so its lookups and persists add" % (R.fmt(over), R.fmt(serial)))


def note_text(gpm, none):
    """The note column of a YCSB run: its gpm and none rows' notes, once
    where they are the same."""
    if gpm == none:
        return "gpm and none: " + gpm if gpm else ""
    return "; ".join("%s: %s" % (m, t) for m, t in (("gpm", gpm), ("none", none)) if t)


BESIDE = ("update-half", "update-beside-reads", "dev-read128-half", "dev-read128-beside-updates")


def beside_text(spans):
    """Updates beside device reads (gpm-roofs), over the largest span where
    all four were measured, as a clause of the roofs line; "" where none."""
    sizes = [b for b in sorted(spans.get(BESIDE[0], {}))
             if all(b in spans.get(op, {}) for op in BESIDE)]
    if not sizes:
        return ""
    u_alone, u_both, r_alone, r_both = (spans[op][sizes[-1]][0] for op in BESIDE)
    u, r = R.ratio(u_both, u_alone), R.ratio(r_both, r_alone)
    verdict = ("they share a limit" if u + r <= 1.25 else "they overlap" if u + r >= 1.75
               else "they partly overlap")
    rev = spans[BESIDE[1]][sizes[-1]][1].get("git_rev", "")[:12]
    return ("; over %.3g GB (revision %s), updates from half the GPU beside 128-byte reads of "
            "device memory from the other half: updates at %.0f%% of their rate alone, reads "
            "at %.0f%%: %s" % (sizes[-1] / 1e9, rev, 100 * u, 100 * r, verdict))


def batch_roofs_text(roofs):
    """The batch path's roofs that ROOFS holds, as a clause of the roofs line."""
    def rates(prefix):
        return ", ".join("%s B %.4g" % (R.params(roofs[op][1]).get("record_bytes"), roofs[op][0])
                         for op in sorted((o for o in roofs if o.startswith(prefix)
                                           and o[len(prefix):].isdigit()),
                                          key=lambda o: int(o[len(prefix):])))
    floor = [(k, roofs[k][1]) for k in ("batch-floor-graph", "batch-floor") if k in roofs]
    out = ["one batch of %s operations with nothing to do: %s"
           % (R.params(floor[0][1]).get("batch"),
              ", ".join("%.3g us (%s)" % (1e6 * R.fnum(R.params(r).get("s_per_batch")),
                                          "a CUDA Graph" if k.endswith("graph") else "stream calls")
                        for k, r in floor))] if floor else []
    for prefix, what in (("write-scatter", "scattered records with a fence a warp"),
                         ("read-rand", "independent reads of PM"),
                         ("read-dep", "dependent reads of PM")):
        if rates(prefix):
            out.append("%s per second: %s" % (what, rates(prefix)))
    return "".join("; " + o for o in out)


def main():
    results_dir, out = R.args()
    rows = R.target_rows(results_dir, "roofline")
    relabelled = [ycsb_row(r) for r in rows]
    ycsb = {r["workload"] for r in relabelled if r}  # held against the batch path's roofs
    rows = [y or r for y, r in zip(relabelled, rows)]
    roof_rows = R.read_rows(results_dir, "roofs.tsv")  # once, for every host and scale
    best, warnings = R.newest(rows)
    hosts = {r.get("host") for r in best.values()}
    if len(hosts) > 1:
        warnings.append("WARNING: rows of several hosts (%s): each is held against the roofs "
                        "of the host of its GPM row" % ", ".join(sorted(hosts)))
    header = ["workload", "scale", "v_s", "gpm_s", "p_bytes", "n_persists", "p_over_b_s",
              "n_over_r_s", "if_random_s", "bound_s", "bound_by", "gpm_over_bound", "within",
              "capmm_s", "capmm_bound_s", "capmm_over_bound", "capfs_s", "capfs_bound_s",
              "capfs_over_bound", "gpm_over_v", "noisy", "floor_s", "reads_s", "v_bound_s",
              "v_bound_by", "v_over_bound", "serial_s", "gpm_over_serial", "note"]
    out_rows, used, roofs_used, spans_of = [], [], {}, {}
    for wl, scale in R.groups(best):
        sel = {m: R.pick(best, wl, scale, m) for m in MODES}
        used += [r for r in sel.values() if r]
        g = sel["gpm"]
        host = (g or next(r for r in sel.values() if r)).get("host")
        if (host, scale) not in roofs_used:
            roofs_used[(host, scale)] = roofs_of(results_dir, roof_rows, host, scale)
        roofs = roofs_used[(host, scale)]
        t = {m: R.fnum(r["median_s"]) if r else float("nan") for m, r in sel.items()}
        v = t["none"]
        p = R.fnum(g["bytes_persisted"]) if g else float("nan")
        n = float(R.param_count(R.params(g), "persists")) if g else float("nan")
        if host not in spans_of:
            spans_of[host] = span_rows(roof_rows, host)
        if wl in ycsb:
            p, n, pb, nr, bound, by, batch = ycsb_columns(sel, v, roofs, spans_of[host], host)
            if_random = NAN  # records of several stores, not single persists
        else:
            bound, by, pb, nr = gpm_bound(v, p, n, roofs)
            if_random, batch = R.ratio(n, roofs["persist-rand8"][0]), [""] * 8
        copy, flush, write = (roofs[k][0] for k in ("d2h-copy", "cpu-flush", "fs-write"))
        pm = R.fnum(sel["cap-mm"]["bytes_persisted"]) if sel["cap-mm"] else float("nan")
        pf = R.fnum(sel["cap-fs"]["bytes_persisted"]) if sel["cap-fs"] else float("nan")
        mm_bound = v + R.ratio(pm, copy) + R.ratio(pm, flush)
        fs_bound = v + max(R.ratio(pf, copy), R.ratio(pf, write))
        over = R.ratio(t["gpm"], bound)
        out_rows.append([wl, scale, v, t["gpm"], p, n, pb, nr, if_random, bound, by, over,
                         ("yes" if over <= GOAL else "no") if R.finite(over) else "",
                         t["cap-mm"], mm_bound, R.ratio(t["cap-mm"], mm_bound),
                         t["cap-fs"], fs_bound, R.ratio(t["cap-fs"], fs_bound),
                         R.ratio(t["gpm"], v), R.noisy([(m, sel[m]) for m in MODES])] + batch)
    roof_lines = []
    for (host, scale), roofs in sorted(roofs_used.items()):
        roof_lines.append(
            "roofs of %s for scale %s (gpm-roofs at %s, revision %s): B %.4g GB/s; fenced persists per second "
            "at full occupancy: coalesced %.4g, random 8-byte %.4g, random 16-byte %.4g; "
            "fence latency %.3g us; CAP copy %.4g GB/s, CPU flush %.4g GB/s (%s threads), "
            "file write + fsync %.4g GB/s"
            % (host, scale, roofs["link-write"][1].get("scale"),
               roofs["link-write"][1].get("git_rev"), link_bandwidth(roofs) / 1e9,
               roofs["persist-seq"][0], roofs["persist-rand8"][0], roofs["persist-rand16"][0],
               1e6 / roofs["fence-latency"][0], roofs["d2h-copy"][0] / 1e9,
               roofs["cpu-flush"][0] / 1e9, roofs["cpu-flush"][1].get("threads"),
               roofs["fs-write"][0] / 1e9)
            + ("; scattered 16-byte writes (unfenced) %.4g per second" % roofs["write-rand16"][0]
               if "write-rand16" in roofs else "")
            + stride_text(stride_rates(roof_rows, roofs["link-write"][1]))
            + batch_roofs_text(roofs)
            + beside_text(spans_of[host]))
    at = {h: i for i, h in enumerate(header)}
    over_goal = [r for r in out_rows if r[at["within"]] == "no"]
    comments = (["Persistence roofline: each operation's time over its physical bound on the "
                 "machine that ran it (newest verified run per workload, mode and scale)",
                 "v_s: mode none (nothing persisted; the copies that feed verification are "
                 "left out of its time); p_bytes, n_persists: what the GPM run made durable "
                 "(bytes; the kernels' persists, persists= of its row)",
                 "bound_s = max(v_s, p_over_b_s, n_over_r_s), bound_by the term that binds; "
                 "R is the fastest fenced persist rate measured, so the bound holds for any "
                 "pattern; if_random_s: N over the random 8-byte persist rate",
                 "capmm_bound_s = V + P/copy + P/flush; capfs_bound_s = V + max(P/copy, "
                 "P/write), with P the bytes of that mode's own run",
                 "W(ycsb Y): YCSB workload Y of a key-value store, on the batch path: "
                 "bound_s = max(floor_s, n_over_r_s, p_over_b_s, reads_s), with floor_s "
                 "run_batches x a CUDA Graph's batch with nothing to do, n_over_r_s N "
                 "(pm_records) at the scattered-record rate of their mean size over the "
                 "table's span, p_over_b_s P "
                 "(pm_record_bytes) over B, reads_s pm_reads at the random 8-byte read rate; "
                 "v_bound_s mode none's (floor_s and reads_s of its row); serial_s = v_s + "
                 "max(n_over_r_s, p_over_b_s): the lookups as mode none takes them and then "
                 "the persists at their roof, one after the other; note: a term left out, "
                 "or why there is no bound",
                 "within: GPM at most %gx its bound" % GOAL, R.NOISY_COMMENT]
                + roof_lines
                + ["over %gx: %s at %s is %sx its bound (%s binds)%s"
                   % (GOAL, r[at["workload"]], r[at["scale"]], R.fmt(r[at["gpm_over_bound"]]),
                      r[at["bound_by"]], serial_text(r[at["serial_s"]], r[at["gpm_over_serial"]]))
                   for r in over_goal]
                + R.platform_comments(used) + R.rev_comments(used) + warnings)
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
