#!/usr/bin/env python3
"""summary.md: every report of REPORTS_DIR as one table, our numbers
beside the paper's, the platform on top, and for each figure one sentence on
agreement or on the platform reason for the difference.
    summary.py REPORTS_DIR OUT_MD [RESULTS_DIR]
Reads the report TSVs that scripts/reports.sh wrote (figure_9.tsv, ...);
reports that are missing are named as not run. The first line names the
revision of the rows (their count where they are several, or REF_REV is
"any": a history), the days their experiments ran (RESULTS_DIR/timing.tsv)
and the results folder."""
import math
import os
import re
import sys

import rows as R
from roofline import GOAL as ROOFLINE_GOAL

# (report, title, columns shown, the paper's statement)
SECTIONS = [
    ("figure_3", "Figure 3: persistence scaling", ["series", "threads", "gbps",
     "speedup_vs_cap_mm_1"],
     "CAP-mm plateaus at 1.47x its 1-thread rate; GPM reaches 4x 1-thread CAP-mm"),
    ("figure_1a", "Figure 1a: batched SETs, GPM against CPU key-value stores", ["system",
     "scale", "msets_per_s", "threads", "gpm_over_it"],
     "GPM 2.7-5.8x the throughput of multi-threaded CPU key-value stores on PM"),
    ("figure_1b", "Figure 1b: GPM over the CPU counterparts", ["workload", "scale", "cpu_s",
     "gpm_s", "gpm_over_cpu", "cpu_threads"], "GPM 2.8-27x over multi-threaded CPU with PM"),
    ("figure_9", "Figure 9: speedup over CAP-fs", ["workload", "scale", "capmm_speedup",
     "gpm_speedup", "paper_gpm_speedup", "gpm_over_capmm",
     "paper_gpm_over_capmm", "gpm_over_capdelta"],
     "GPM over CAP-fs 7-8x for gpKVS, 11-18x for checkpointing, 5-85x for native workloads; "
     "GPM over CAP-mm 4x for gpKVS, 3.6x for gpDB insert, 2.6x for gpDB update"),
    ("figure_10", "Figure 10: the persistence modes over CAP-fs", ["workload", "scale",
     "gpmndp_speedup", "gpm_speedup", "gpmeadr_speedup", "capeadr_speedup",
     "gpmeadr_over_capeadr"], "GPM-eADR 24x over CAP-eADR on average; GPM up to 6x over GPM-NDP"),
    ("figure_11a", "Figure 11a: HCL over the conventional log at its best partition count",
     ["workload", "scale", "hcl_speedup", "conv_best_partitions", "paper_hcl_speedup"],
     "HCL 3.3x (gpKVS) and 6.1x (gpDB update) over conventional logging"),
    ("figure_11b", "Figure 11b: log insert latency, HCL against conventional logging",
     ["threads", "hcl_us", "conv_best_us", "conv_best_over_hcl"],
     "HCL 3.6x faster than conventional logging on average"),
    ("figure_12", "Figure 12: write bandwidth to PM under GPM", ["workload", "scale",
     "pm_write_gbps", "pcie_tx_gbps", "tx_over_write", "tx_samples", "write_ceiling_gbps"],
     "well below the ~13 GB/s of PCIe 3.0 for transactional workloads, closer for checkpointing"),
    ("table_4", "Table 4: write amplification of CAP", ["workload", "scale", "capmm_wa",
     "capfs_wa", "paper_wa", "capmm_chunk", "capfs_chunk"], "1.00 for checkpointing and native workloads, 1.27-39x transactional"),
    ("table_5", "Table 5: restoration latency (% of the operation)", ["workload", "scale",
     "restore_pct", "undo_pct", "reload_s", "paper_restore_pct"], "0.01-19% (transactional), 0.12-1.65% (checkpointing)"),
    ("roofline", "Persistence roofline: each operation against its physical bound",
     ["workload", "scale", "v_s", "bound_s", "bound_by", "gpm_s", "gpm_over_bound",
      "if_random_s", "capmm_over_bound", "capfs_over_bound"],
     "no counterpart (the paper holds PS alone against the link's bandwidth)"),
    ("figure_ycsb", "YCSB on GPHash (beyond the paper: FAST'25)", ["kind", "ycsb", "scale",
     "variant", "batch", "mops", "kernel_mops", "batch_p99_us", "hit_rate"],
     "GPHash (V100, Optane) up to 27.62x over CPU-assisted indexes and 17.42x over GPM hash "
     "indexes; BktCache +17.6% (A) to +40.9% on skewed workloads"),
    ("timing", "Wall time of the experiments", ["target", "scale", "calls", "wall_s",
     "timed_s", "wall_over_timed", "goal"],
     "the paper's artifact took about two hours for its Figure 9"),
    ("crash", "Crash campaigns", ["workload", "op", "mode", "scale", "kills", "finished_first",
     "crash_trials", "recovered", "unrecovered", "verdict"],
     "every program recovered (crashes injected with NVBitFI)"),
    ("persistency", "Persistency checks: the crash images a persistency model allows",
     ["workload", "op", "mode", "scale", "images", "recovered", "complete", "images_per_s",
      "trace_overhead", "verdict"],
     "no counterpart (the paper's recovery tests injected crashes with NVBitFI)"),
    ("mutants", "Mutants: one persist point removed, the checker against SIGKILL",
     ["workload", "op", "mode", "site", "site_count", "images", "failed", "checker", "sigkill"],
     "no counterpart"),
    ("nvc", "NVC: restarting from what PM holds, no persist honoured",
     ["workload", "op", "mode", "scale", "images", "correct", "durable_median", "wrong",
      "wrong_units_median", "units", "failed_restart", "verdict"],
     "NVC (MCHPC'18; CPU programs, a simulated cache, 100 crashes a case) restarted "
     "correctly from memory never flushed in at least 96% of crashes for CG (class A; class "
     "B: 100%, 46% and 7% by phase), 15-20% for MG, under 6% for FT, and always for Kmeans "
     "(with more iterations after a late crash)"),
    ("sbrp", "SBRP: scoped persistency's litmus tests, ported programs and scope mutants",
     ["kind", "workload", "op", "item", "scale", "epoch_s", "sbrp_s", "speedup",
      "not_recovered", "verdict"],
     "SBRP (ASPLOS'23, simulated persist buffers) 1.21x GPM on average with PM across PCIe, up "
     "to 3.45x; no litmus tests"),
]


PERFORMANCE = ("figure_3", "figure_1a", "figure_1b", "figure_9", "figure_10", "figure_12",
               "roofline", "figure_ycsb")


def read_report(path):
    """(comment lines, header, rows) of a report TSV."""
    comments, header, rows = [], None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                comments.append(line[1:].strip())
            elif header is None:
                header = line.split("\t")
            elif line:
                rows.append(dict(zip(header, line.split("\t"))))
    return comments, header or [], rows


def num(v):
    """V as a finite number, or None."""
    x = R.fnum(v)
    return x if math.isfinite(x) else None


def parse_platform(platform):
    """The platform line as a dict, with 'dram' (DRAM stands in for PM) and
    'fast_link' (a newer PCIe than the paper's 3.0) added."""
    p = dict(kv.split("=", 1) for kv in platform.split(", ") if "=" in kv)
    p["dram"] = ("emulated" in p.get("persist_domain", "") or
                 p.get("pm_backend") in ("tmpfs", "file"))
    p["fast_link"] = bool(p.get("pcie")) and not p["pcie"].startswith("gen3")
    return p


def platform_reason(platform):
    """What about this platform moves our numbers from the paper's."""
    p = parse_platform(platform)
    parts = []
    if p["dram"]:
        parts.append("DRAM stands in for PM (%s), so persisting costs little and CAP-fs's "
                     "fsync is almost free: the gaps the paper measured on Optane shrink"
                     % p.get("pm_backend", "?"))
    if p["fast_link"]:
        parts.append("the link is PCIe %s against the paper's PCIe 3.0 x16, so copies "
                     "through the CPU cost less" % p["pcie"])
    return "; ".join(parts)


# Figure 1's ratios set the GPU against the CPU: (report, our ratio column).
GPU_AGAINST_CPU = {"figure_1a": "gpm_over_it", "figure_1b": "gpm_over_cpu"}


def sides(rows, col, lo_col="paper_lo", hi_col="paper_hi"):
    """Where each row's ratio falls against the paper's stated range: the
    names (first column's value) of the rows above it, below it, inside it."""
    out = {"above": [], "below": [], "inside": []}
    for r in rows:
        v, lo, hi = num(r.get(col)), num(r.get(lo_col)), num(r.get(hi_col))
        if v is not None and lo is not None and hi is not None:
            side = "above" if v > hi else "below" if v < lo else "inside"
            n = r.get("workload") or r.get("system") or "?"
            if n not in out[side]:  # one name for its rows of every scale
                out[side].append(n)
    return out


def gpu_against_cpu_reason(name, platform, cpu, rows):
    """Figure 1's reason: both the GPU and the CPU differ from the paper's;
    which difference likely moved ours depends on whether ours falls above
    the paper's range (the GPU side gained) or below it (the CPU side)."""
    p = parse_platform(platform)
    where = sides(rows, GPU_AGAINST_CPU[name])
    cores = re.match(r"\d+", cpu or "")
    fewer = bool(cores) and int(cores.group()) < 64
    widen = ("a newer GPU%s likely widen%s GPM's lead"
             % ((" and fewer CPU cores", "") if fewer else ("", "s")))
    spare = ("DRAM standing in for PM (%s) likely helps the CPU side most, sparing it "
             "Optane's low write bandwidth" % p.get("pm_backend", "?") if p["dram"]
             else "the CPU side likely gained more on the paper's than the GPU side")
    above, below, inside = where["above"], where["below"], where["inside"]
    if above and below:
        why = "where ours is above the paper's range, %s; where below, %s" % (widen, spare)
    elif above:
        why = widen + (" beyond the paper's" if not inside
                       else " where ours is above the paper's range")
    elif below:
        why = spare + (", so GPM leads by less than in the paper" if not inside
                       else " where ours falls below the paper's range")
    else:
        why = "ours falls inside the paper's range"
    return ("the GPU is an %s on PCIe %s and the CPU side had %s, where the paper set a Titan "
            "RTX on PCIe 3.0 x16 against 64 cores (four Xeon Gold 6242)%s; %s"
            % (p.get("gpu", "?"), p.get("pcie", "?"), cpu or "? cores",
               " and Optane" if p["dram"] else "", why))


def figure_9_reason(platform, rows):
    """Figure 9's reason, by the side of the paper's range ours falls on:
    below where the computation outweighs a cheap CAP-fs, above where
    CAP-fs's kernel copies lag GPM's writes over a faster link."""
    p = parse_platform(platform)
    where = sides(rows, "gpm_speedup", "paper_gpm_lo", "paper_gpm_hi")
    parts = []
    if where["below"] and p["dram"]:
        parts.append("where ours falls below the paper's range (%s), persisting through CAP-fs "
                     "costs little on DRAM (%s: fsync is almost free), so the computation, the "
                     "same in every mode, likely dominates" % (", ".join(where["below"]),
                                                              p.get("pm_backend", "?")))
    if where["above"] and p["fast_link"]:
        parts.append("where %s (%s), CAP-fs's copies through the kernel's write path, a "
                     "few GB/s, likely did not speed up as GPM's writes over PCIe %s did"
                     % ("above" if parts else "ours is above the paper's range",
                        ", ".join(where["above"]), p.get("pcie", "?")))
    if not parts:
        return platform_reason(platform)
    facts = ((["DRAM stands in for PM (%s)" % p.get("pm_backend", "?")] if p["dram"] else []) +
             (["the link is PCIe %s" % p["pcie"]] if p["fast_link"] else []))
    return "%s, against the paper's Optane and PCIe 3.0 x16: %s" % (" and ".join(facts),
                                                                   "; ".join(parts))


def serial_clause(r):
    """A YCSB roofline row within roofline.py's GOAL of its lookups and
    then its persists at their roof (its serial_s): the clause saying so."""
    over = num(r.get("gpm_over_serial"))
    return "; %sx of none's time then its persists" % r["gpm_over_serial"] if (
        over and over <= ROOFLINE_GOAL) else ""


def verdict(name, rows):
    """One sentence on our key number for report NAME."""
    def total(col):
        return sum(int(num(r.get(col)) or 0) for r in rows)

    def geo(col):
        g = [r for r in rows if r.get("workload") == "geomean" and num(r.get(col))]
        return ", ".join("%s %s" % (r["scale"], R.fmt(num(r[col]))) for r in g)
    if name == "figure_3":
        def top(series):
            v = [num(r.get("speedup_vs_cap_mm_1")) for r in rows if r.get("series") == series]
            return R.fmt(max((x for x in v if x is not None), default=float("nan")))
        return ("ours: CAP-mm at its best %sx its 1-thread rate; GPM at its best %sx 1-thread "
                "CAP-mm" % (top("cap-mm"), top("gpm")))
    if name in ("figure_9", "figure_1b"):
        col = "gpm_speedup" if name == "figure_9" else "gpm_over_cpu"
        runs = [r for r in rows if r.get("workload") != "geomean" and num(r.get(col))]
        if not runs:
            return "no verified runs"
        inside = [r for r in runs if num(r.get("paper_gpm_lo") or r.get("paper_lo")) is not None
                  and num(r.get("paper_gpm_lo") or r.get("paper_lo")) <= num(r[col])
                  <= num(r.get("paper_gpm_hi") or r.get("paper_hi"))]
        return ("ours: geomean %s; %d of %d workloads inside the paper's stated range"
                % (geo(col), len(inside), len(runs)))
    if name == "figure_1a":
        leads = ["%s %sx" % (r["system"], R.fmt(num(r["gpm_over_it"]))) for r in rows
                 if num(r.get("gpm_over_it"))]
        return "ours: GPM over %s" % ", ".join(leads) if leads else "no GPM run beside the stores"
    if name == "figure_11a":
        return "ours: %s" % ", ".join("%s %sx (conventional at %s partitions)"
                                      % (r["workload"], r.get("hcl_speedup"),
                                         r.get("conv_best_partitions")) for r in rows)
    if name == "figure_10":
        return "ours: GPM-eADR over CAP-eADR geomean %s" % geo("gpmeadr_over_capeadr")
    if name == "figure_11b":
        vals = [num(r.get("conv_best_over_hcl")) for r in rows if num(r.get("conv_best_over_hcl"))]
        return ("ours: conventional logging at its best partition count is %s times slower "
                "on average" % R.fmt(sum(vals) / len(vals)) if vals else "no points")
    if name == "figure_12":
        vals = [(num(r.get("pm_write_gbps")), r["workload"]) for r in rows
                if num(r.get("pm_write_gbps"))]
        return ("ours: from %s GB/s (%s) to %s GB/s (%s)" % (R.fmt(min(vals)[0]), min(vals)[1],
                                                             R.fmt(max(vals)[0]), max(vals)[1])
                if vals else "no runs")
    if name == "table_4":
        return "ours: CAP-mm/CAP-fs write amplification %s" % ", ".join(
            "%s %s/%s" % (r["workload"], r.get("capmm_wa"), r.get("capfs_wa")) for r in rows)
    if name == "table_5":
        return "ours: %s" % ", ".join("%s %s%%" % (r["workload"], r.get("restore_pct"))
                                      for r in rows)
    if name == "figure_ycsb":
        main = [r for r in rows if r.get("kind") == "mix" and r.get("plotted") == "1" and
                r.get("variant") in ("gpm", "gpm-pm") and num(r.get("mops"))]
        return ("ours: GPHash %s" % ", ".join("%s %s %s Mops" % (r["variant"], r["ycsb"],
                                                                 r["mops"]) for r in main)
                + " (%s scale)" % main[0]["scale"] if main else "no GPHash run")
    if name == "roofline":
        runs = [r for r in rows if num(r.get("gpm_over_bound"))]
        over = ["%s %sx (%s binds%s)" % (r["workload"], r["gpm_over_bound"], r.get("bound_by"),
                                          serial_clause(r))
                for r in runs if r.get("within") == "no"]
        return ("ours: GPM within 1.25x of its bound in %d of %d workload operations%s"
                % (len(runs) - len(over), len(runs),
                   "; over it: " + ", ".join(over) if over else ""))
    if name == "timing":
        f9 = [r for r in rows if r.get("target") == "figure_9"]
        return ("ours: " + ", ".join(
            "make figure_9 SCALE=%s took %s s of wall time for %s s of timed repetitions (%s)"
            % (r["scale"], r["wall_s"], r["timed_s"], r.get("goal") or "no goal")
            for r in f9) if f9 else "Figure 9 was not timed")
    if name == "crash":
        late = total("finished_first")
        return ("ours: %d crash trials of %d kills%s, %d unrecovered"
                % (total("crash_trials"), total("kills"),
                   " (the %d that came after the work had finished are not crash trials)" % late
                   if late else "", total("unrecovered")))
    if name == "persistency":
        incomplete = [r for r in rows if r.get("verdict", "").startswith("incomplete")]
        failed = [r for r in rows if r.get("verdict", "").startswith("FAILED")]
        nested = total("nested_images")
        return ("ours: %d checks of %d crash images in all%s, %d not recovered%s%s"
                % (len(rows), total("images") + nested,
                   " (%d of crashed recoveries)" % nested if nested else "",
                   total("images") + nested - total("recovered") - total("nested_recovered"),
                   "; %d incomplete (%s): no verdict" % (len(incomplete), ", ".join(
                       "%s %s: %s" % (r["workload"], r["mode"], r["verdict"][len("incomplete: "):])
                       for r in incomplete)) if incomplete else "",
                   "; %d FAILED" % len(failed) if failed else ""))
    if name == "mutants":
        mut = [r for r in rows if r.get("site") != "(original)"]
        orig = [r for r in rows if r.get("site") == "(original)"]
        flagged, redundant, benign, other, killed = R.mutant_verdicts(
            (r.get("checker", "") for r in mut), (r.get("sigkill", "") for r in mut))
        bad = [r for r in orig if r.get("checker") != "passes" or
               r.get("sigkill", "").startswith("flagged")]
        return ("ours: of %d mutants, the checker flagged %d, found %d redundant (holding no "
                "store back) and %d not flagged (every image recovered)%s; SIGKILL trials flagged "
                "%d; %s"
                % (len(mut), flagged, redundant, benign,
                   ", %d other" % other if other else "", killed,
                   "%d of %d originals FAILED" % (len(bad), len(orig)) if bad
                   else "every original passed both"))
    if name == "sbrp":
        def count(kind, said):
            """(the rows of KIND whose verdict is SAID, the rows of KIND)"""
            of = [r for r in rows if r["kind"] == kind]
            return sum(1 for r in of if r["verdict"] == said), len(of)
        sp = ["%s %sx" % (r["workload"], r["speedup"]) for r in rows if r["kind"] == "speed"]
        return ("ours: %d of %d litmus tests as SBRP's rules say, none seen breaking them on the "
                "GPU; %d of %d unmutated programs clean under the sbrp model; %d of %d mutants "
                "flagged; sbrp over epoch under the conservative mapping: %s"
                % (*count("litmus", "ok"), *count("check", "every image recovered"),
                   *count("mutant", "flagged"), ", ".join(sp) if sp else "not measured"))
    if name == "nvc":
        wrong = [r["workload"] + ("(%s)" % r["op"] if r.get("op") != "run" else "") + " " +
                 r["mode"] + nvc_how_wrong(r) for r in rows if r.get("verdict") == "silently wrong"]
        return ("ours: %d of %d workload operations and modes always restarted correctly; "
                "silently wrong in some images: %s"
                % (sum(1 for r in rows if r.get("verdict") == "recomputes"), len(rows),
                   ", ".join(wrong) if wrong else "none"))
    return ""


def nvc_how_wrong(r):
    """" (a median X% of its UNITS wrong)" of an NVC report row, "" where
    its wrong restarts were not measured."""
    med = R.fnum(r.get("wrong_units_median"))
    if med != med:
        return ""
    return " (a median %.3g%% of its %s wrong)" % (100 * med, r.get("units") or "units")


def row_name(r):
    """What a report row is about, for a sentence."""
    if r.get("workload") or r.get("system"):
        return r.get("workload") or r.get("system")
    if r.get("series"):
        return "%s at %s threads" % (r["series"], r.get("threads", "?"))
    return "%s threads" % r.get("threads", "?")


def noise(rows):
    """The sentence on the spread of a report's medians, from its noisy
    column (rows.py: none, unknown, or what spread more than 5%)."""
    shown = [r for r in rows if r.get("noisy")]
    if not shown:
        return ""
    over = ["%s (%s)" % (row_name(r), "; ".join(p for p in r["noisy"].split("; ")
                                                if not p.startswith("unknown")))
            for r in shown if "%" in r["noisy"]]
    unknown = [r for r in shown if "unknown" in r["noisy"]]
    parts = []
    if over:
        parts.append("the repetitions of %d of %d rows spread more than %g%% (rsd): %s"
                     % (len(over), len(shown), R.NOISY_PCT, ", ".join(over)))
    if unknown:
        parts.append("the spread is unknown for %s (rows written before rsd_pct, or of one "
                     "repetition)" % ("every row" if len(unknown) == len(shown) else
                                      "%d of %d rows" % (len(unknown), len(shown))))
    if not parts:
        return "every median's repetitions within %g%% (rsd)" % R.NOISY_PCT
    return "; ".join(parts)


def days(results_dir, revisions):
    """The days the experiments of REVISIONS ran (timing.tsv's started), as
    "first to last"; "date unknown" without them."""
    lines = R.read_rows(results_dir, "timing.tsv", "git_rev") if results_dir else []
    d = sorted({t["started"][:10] for t in lines if t.get("git_rev") in revisions
                and t.get("started")})
    return "date unknown" if not d else d[0] if d[0] == d[-1] else d[0] + " to " + d[-1]


def held_revisions(results_dir):
    """The revisions of every row of RESULTS_DIR's TSV files (of REF_REV's,
    where it names one), in the order met; none without a folder."""
    rows = R.read_rows(results_dir, "*.tsv", "git_rev") if results_dir else []
    return R.unique(r["git_rev"] for r in rows if r.get("git_rev"))


def tagged(comments, tag):
    """The comment lines that begin with TAG, without it."""
    return [c[len(tag):] for c in comments if c.startswith(tag)]


def main():
    if len(sys.argv) not in (3, 4):
        R.fail("usage: summary.py REPORTS_DIR OUT_MD [RESULTS_DIR]")
    reports, out = sys.argv[1], sys.argv[2]
    results = sys.argv[3] if len(sys.argv) == 4 else None
    lines, platforms, missing, revisions = [], [], [], []
    for name, title, cols, paper in SECTIONS:
        path = os.path.join(reports, name + ".tsv")
        if not os.path.exists(path):
            missing.append(name)
            continue
        comments, header, rows = read_report(path)
        plat = tagged(comments, "platform: ")
        rev = (["revision " + c for c in tagged(comments, "revision: ")] +
               ["revisions " + c for c in tagged(comments, "NOTE: rows come from several "
                                                          "revisions: ")])
        platforms += [p for p in plat if p not in platforms]
        for r in rev:
            revisions += [v for v in r.split(" ", 1)[1].split(", ") if v not in revisions]
        shown = [c for c in cols if c in header]
        lines += ["## " + title, ""]
        lines += ["| " + " | ".join(shown) + " |", "|" + " --- |" * len(shown)]
        lines += ["| " + " | ".join(r.get(c, "") for c in shown) + " |" for r in rows]
        # The platform explains the performance figures, not the counts.
        reason = ""
        if plat and name == "figure_9":
            reason = figure_9_reason(plat[0], rows)
        elif plat and name in GPU_AGAINST_CPU:
            cpu = tagged(comments, "cpu: ")
            reason = gpu_against_cpu_reason(name, plat[0], cpu[0] if cpu else "", rows)
        elif plat and name in PERFORMANCE:
            reason = platform_reason(plat[0])
        said = verdict(name, rows)
        # A report's "why:" lines explain what its numbers would otherwise
        # seem to contradict: the summary repeats them.
        why = tagged(comments, "why: ")
        lines += ["", "Paper: %s. %s%s.%s" % (paper, said[:1].upper(), said[1:],
                                              " On this platform " + reason + "." if reason
                                              else "")]
        if why:
            lines += ["", "Why: %s." % "; ".join(why)]
        beside = tagged(comments, "paper beside ours: ")
        if beside:
            lines += ["", "Beside the paper:", ""] + ["- %s." % b for b in beside]
        spread = noise(rows)
        if spread:
            lines += ["", "Noise: %s." % spread]
        lines += ["", "_Rows: %s, %s._" % (plat[0] if plat else "?",
                                           rev[0] if rev else "revision ?"), ""]
    if not lines:
        R.fail("summary: no reports in %s: run make reproduce (or the experiments and make "
               "reports) first" % reports)
    where = os.path.basename(os.path.normpath(results or reports))
    when = days(results, revisions)
    # A reference is one revision's rows, unless a history was asked for.
    if len(revisions) <= 1 and os.environ.get("REF_REV") != "any":
        title = "# Reference of revision %s (%s), %s" % ((revisions or ["?"])[0], when, where)
    else:
        title = "# History of %d revision%s (%s), %s" % (
            len(revisions), "" if len(revisions) == 1 else "s", when, where)
    head = [title, "",
            "GPMbench against the paper.", "",
            "Platform%s: %s" % ("s" if len(platforms) > 1 else "", "; ".join(platforms) or "?"),
            "", ("Revisions: %s. The rows come from %d revisions: they are not one revision's "
                 "results; rerun them at one revision (make reproduce) for a reference."
                 % (", ".join(revisions), len(revisions)) if len(revisions) > 1
                 else "Revision: %s." % (revisions[0] if revisions else "?")),
            "", "Not run: %s." % ", ".join(missing) if missing else "Every experiment ran.", ""]
    held = held_revisions(results)
    if len(held) > len(revisions):
        head[-3:-3] = ["", "The results folder holds rows of %d revisions: %s; the reports "
                       "show the newest rows of each experiment, from the %d above. Rerun "
                       "them at one revision before the reference results are final."
                       % (len(held), ", ".join(held), len(revisions))]
    with open(out, "w") as f:
        f.write("\n".join(head + lines) + "\n")


if __name__ == "__main__":
    main()
