#!/usr/bin/env python3
"""Crash campaigns: what each kill hit, and whether recovery brought back
the golden output.

    crash.py RESULTS_DIR OUT_TSV

Reads the campaign rows of RESULTS_DIR: crash.tsv (workload campaigns,
op=crash-campaign, written by scripts/experiments/crash.sh), crash-log.tsv
(undo-log trials, op=hcl|conv) and crash-cp.tsv (checkpoint trials), all in
the result schema with params trials, mid_work, before_progress,
finished_first, recovered, unrecovered (and before_commit). Writes one row
per workload (or log/checkpoint kind), op, mode and scale: the counts summed
over the campaigns of its newest revision (a campaign split into parts, or
extended with more seeds, adds up; one that failed at that revision fails
the row), the verdict, and totals over every campaign recorded. Every
column counts kills of one kind, as the report's comment lines say, so that
none contradicts another: crash_trials, the kills that landed inside the
work, are mid_work, before_progress, before_commit and any whose recovery
failed before it could say where the kill landed; a finished-first run is
checked too, and would count as unrecovered if its check failed. verdict()
is the campaign's own rule (scripts/experiments/crash.sh)."""
import os

import rows as R

FILES = ("crash.tsv", "crash-log.tsv", "crash-cp.tsv")
COUNTS = ("trials", "mid_work", "before_progress", "finished_first", "recovered",
          "unrecovered")


def counts(row):
    """The campaign's counts, or None for a row written before trials were
    classified (it cannot say whether its kills landed inside the work)."""
    p = R.params(row)
    if any(k not in p for k in COUNTS):
        return None
    try:
        c = {k: int(p[k]) for k in COUNTS}
        # Kills just before a commit (transactional workloads; 0 elsewhere).
        c["before_commit"] = int(p.get("before_commit", "0"))
        return c
    except ValueError:
        return None


def summed(cs):
    """The counts of several campaigns added up, or None if one of them is
    unclassified."""
    if not cs or any(c is None for c in cs):
        return None
    return {k: sum(c[k] for c in cs) for k in cs[0]}


def verdict(c):
    if c is None:
        return "UNCLASSIFIED"
    if c["trials"] <= 0 or c["unrecovered"] > 0:
        return "FAILED"
    return "ok" if 10 * c["mid_work"] >= 9 * c["trials"] else "FEW-MID-WORK"


def main():
    results_dir, out = R.args()
    campaigns = [r for name in FILES for r in R.read_rows(results_dir, name)
                 if r.get("workload", "").startswith("crash-") or r.get("op") == "crash-campaign"]
    if not campaigns:
        R.fail("crash: no campaign rows in %s: run make crash first (make test-gpu records "
               "the log and checkpoint trials)"
               % ", ".join(os.path.join(results_dir, f) for f in FILES))
    every = {}
    for r in campaigns:  # files and rows in the order they were written
        # A workload campaign's op is its operation (op= in params), if any.
        op = R.params(r).get("op", "") if r.get("op") == "crash-campaign" else r.get("op", "")
        key = (r["workload"], op, r.get("mode", ""), r.get("scale", ""))
        every.setdefault(key, []).append(r)
    header = ["workload", "op", "mode", "scale", "kills", "random_kills", "mid_work",
              "before_progress", "finished_first", "before_commit", "crash_trials", "recovered",
              "unrecovered", "recover_median_s", "verdict", "campaigns", "all_kills",
              "all_unrecovered"]
    table, rows = [], []
    for key in sorted(every):
        rev = every[key][-1].get("git_rev")
        newest = [r for r in every[key] if r.get("git_rev") == rev]
        c = summed([counts(r) for r in newest])
        allc = [counts(x) for x in every[key]]
        if c:
            kills = c["trials"] + c["before_commit"]
            crash_trials = kills - c["finished_first"]
            shown = [kills, c["trials"], c["mid_work"], c["before_progress"],
                     c["finished_first"], c["before_commit"], crash_trials,
                     crash_trials - c["unrecovered"], c["unrecovered"]]
        else:
            shown = ["?"] * 9
        table.append(list(key) + shown + [
            R.median([R.fnum(r.get("median_s")) for r in newest]), verdict(c),
            len(newest), sum(x["trials"] + x["before_commit"] for x in allc if x),
            sum(x["unrecovered"] for x in allc if x)])
        rows += newest
    comments = (["Crash campaigns: SIGKILL at a moment drawn from a measured run of the "
                 "work (its duration in older campaigns, its timeline of durable progress in "
                 "newer ones), then recovery checked against the golden output (per workload, "
                 "op, mode and scale, the campaigns of its newest revision summed; "
                 "recover_median_s is the median of their median recovery times; all_kills and "
                 "all_unrecovered: every campaign recorded)",
                 "kills = random_kills (at a random moment of the work) + before_commit "
                 "(transactional workloads killed just before a transaction commits); "
                 "finished_first = random kills that came after the work had finished, which "
                 "are not crash trials; crash_trials = kills - finished_first; recovered + "
                 "unrecovered = crash_trials; ok needs every trial recovered and at least 90% "
                 "of the random kills mid-work",
                 "SIGKILL with DRAM standing in for PM tests the recovery logic and the order "
                 "in which the program makes its writes visible; it does not test flush "
                 "completeness or a power cut (the page cache survives the kill)"]
                + R.platform_comments(rows) + R.rev_comments(rows)
                + ["paper (Sec 6.2): crashes injected with NVBitFI; every program recovered"])
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
