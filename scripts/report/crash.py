#!/usr/bin/env python3
"""Crash campaigns: trials, recoveries and failures per workload.
    crash.py RESULTS_DIR OUT_TSV
        tabulates the newest campaign row (op=crash-campaign) of each
        workload, mode and scale in RESULTS_DIR/crash.tsv, with the totals
        over every campaign recorded there.
    crash.py --record RESULTS_DIR WORKLOAD SCALE TRIALS RECOVERED UNRECOVERED FINISHED [SKIP [MODE]]
        appends one campaign row to RESULTS_DIR/crash.tsv (the schema of
        gpm/results.h), taking the platform columns from the campaign's
        recovery rows in RESULTS_DIR/crash-trials.tsv (the rows after its
        first SKIP lines, which were there before the campaign) or, without
        any, from gpm-info.tsv. MODE is the mode the trials ran in (gpm)."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows as R  # noqa: E402
import figure_9 as F  # noqa: E402

PLATFORM_COLS = ["gpu", "gpu_cc", "gpu_pci", "driver", "cuda", "pcie", "pm_dir", "pm_backend",
                 "pm_is_pmem", "persist_domain", "ddio", "cpu", "cores", "host", "git_rev"]
RESULT_COLS = ["workload", "op", "mode", "scale", "size_bytes", "threads", "reps", "median_s",
               "min_s", "max_s", "bytes_persisted", "throughput_gbps", "verified", "params"]


def parse_params(s):
    out = {}
    for kv in (s or "").split(","):
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def header_and_platform(results_dir, workload, scale, skip, mode):
    """The column names and platform values for a campaign row, and the
    campaign's own recovery rows."""
    trials = [r for r in R.read_rows(results_dir, "crash-trials.tsv")[max(0, skip - 1):]
              if r.get("workload", "").lower() == workload and r.get("scale") == scale
              and r.get("mode") == mode]
    if trials:
        with open(os.path.join(results_dir, "crash-trials.tsv"), newline="") as f:
            header = next(csv.reader(f, delimiter="\t"))
        return header, trials[-1], trials
    info = {}
    path = os.path.join(results_dir, "gpm-info.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t", 1)
                if len(parts) == 2:
                    info[parts[0]] = parts[1]
    return PLATFORM_COLS + RESULT_COLS, info, []


def record(argv):
    if len(argv) not in (7, 8, 9):
        R.fail("usage: crash.py --record RESULTS_DIR WORKLOAD SCALE TRIALS RECOVERED "
               "UNRECOVERED FINISHED [SKIP [MODE]]")
    results_dir, workload, scale = argv[0], argv[1].lower(), argv[2]
    trials, recovered, unrecovered, finished = (int(x) for x in argv[3:7])
    skip = int(argv[7]) if len(argv) >= 8 else 0
    mode = argv[8] if len(argv) == 9 else "gpm"
    header, plat, trial_rows = header_and_platform(results_dir, workload, scale, skip, mode)
    times = [F.fnum(r.get("median_s")) for r in trial_rows if r.get("verified") == "ok"]
    times = [t for t in times if F.finite(t)]
    row = {c: plat.get(c, "unknown") for c in set(header) | set(PLATFORM_COLS + RESULT_COLS)}
    row.update({
        "workload": workload, "op": "crash-campaign", "mode": mode, "scale": scale,
        "size_bytes": (trial_rows[-1].get("size_bytes", "0") if trial_rows else "0"),
        "threads": "0", "reps": str(trials),
        "median_s": R.fmt(R.median(times)) if times else "nan",
        "min_s": R.fmt(min(times)) if times else "nan",
        "max_s": R.fmt(max(times)) if times else "nan",
        "bytes_persisted": "0", "throughput_gbps": "0",
        "verified": "ok" if unrecovered == 0 and trials > 0 else "fail",
        "params": "trials=%d,recovered=%d,unrecovered=%d,finished_before_kill=%d"
                  % (trials, recovered, unrecovered, finished),
    })
    path = os.path.join(results_dir, "crash.tsv")
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    if not new:  # keep the columns of the rows already there
        with open(path, newline="") as f:
            header = next(csv.reader(f, delimiter="\t"))
    with open(path, "a") as f:
        if new:
            f.write("\t".join(header) + "\n")
        f.write("\t".join(str(row[c]).replace("\t", " ") for c in header) + "\n")


def report(results_dir, out):
    rows = [r for r in R.read_rows(results_dir, "crash.tsv") if r.get("op") == "crash-campaign"]
    if not rows:
        R.fail("crash: no campaign rows in %s (run make crash first)"
               % os.path.join(results_dir, "crash.tsv"))
    newest, totals = {}, {}
    for r in rows:
        key = (r["workload"], r.get("mode", ""), r.get("scale", ""))
        p = parse_params(r.get("params"))
        newest[key] = (r, p)
        t = totals.setdefault(key, [0, 0, 0, 0])
        for i, k in enumerate(("trials", "recovered", "unrecovered", "finished_before_kill")):
            t[i] += int(p.get(k, 0))
    header = ["workload", "mode", "scale", "trials", "recovered", "unrecovered",
              "finished_before_kill",
              "recover_median_s", "verdict", "campaigns", "all_trials", "all_unrecovered"]
    out_rows = []
    for key in sorted(newest):
        r, p = newest[key]
        un = int(p.get("unrecovered", 0))
        n = int(p.get("trials", 0))
        out_rows.append([key[0], key[1], key[2], n, int(p.get("recovered", 0)), un,
                         int(p.get("finished_before_kill", 0)), F.fnum(r.get("median_s")),
                         "ok" if un == 0 and n > 0 else "FAILED",
                         sum(1 for x in rows
                             if (x["workload"], x.get("mode", ""), x.get("scale", "")) == key),
                         totals[key][0], totals[key][2]])
    comments = (["Crash campaigns: SIGKILL at a random moment of a run, then --recover "
                 "verified against the golden output (newest campaign per workload, mode and scale; "
                 "all_* = every campaign in crash.tsv)"]
                + F.platform_comments([newest[k][0] for k in sorted(newest)])
                + F.rev_comments([newest[k][0] for k in sorted(newest)])
                + ["paper (Sec 6.2): crashes injected with NVBitFI; every program recovered"])
    R.write_tsv(out, header, out_rows, comments)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--record":
        record(sys.argv[2:])
    elif len(sys.argv) == 3:
        report(sys.argv[1], sys.argv[2])
    else:
        R.fail("usage: crash.py RESULTS_DIR OUT_TSV | crash.py --record ...")


if __name__ == "__main__":
    main()
