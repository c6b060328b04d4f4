#!/usr/bin/env python3
"""Where an experiment's wall time went: for each experiment and scale in
RESULTS_DIR/timing.tsv (one line per scripts/experiment.sh call, with its
wall time), its newest revision's wall time summed over its calls (an
experiment run in parts, WORKLOADS= or OPS=, has several), beside what its
rows of that revision and scale say each process spent: the timed
repetitions (timed_s, or median_s x reps in rows without it), opening the
GPU and PM, calibrating, setup, the untimed rest of the repetitions and
verification. other_s is the remainder: process starts, input generation
before the harness's clock, the scripts. For Figure 9 the goal column says
whether the wall time is under 10 minutes or, where the timed repetitions
alone add up to more, within 1.25x of them.
    timing.py RESULTS_DIR OUT_TSV"""
import os

import rows as R

PARTS = ("open_s", "calibrate_s", "setup_s", "untimed_s", "verify_s")
GOAL_S, GOAL_RATIO = 600.0, 1.25


def timed(row):
    p = R.params(row)
    try:
        return float(p["timed_s"])
    except (KeyError, ValueError):
        return R.number(row, "median_s") * R.number(row, "reps")


def goal(target, wall, timed_s):
    if target != "figure_9":
        return ""
    if wall <= GOAL_S:
        return "met: under %.0f s" % GOAL_S
    if wall <= GOAL_RATIO * timed_s:
        return "met: within %.2fx of the timed repetitions" % GOAL_RATIO
    return "missed"


def main():
    results_dir, out = R.args()
    path = os.path.join(results_dir, "timing.tsv")
    if not os.path.exists(path):
        R.fail("timing: %s missing: run an experiment (make figure_9) first" % path)
    lines = R.read_rows(results_dir, "timing.tsv", "target")
    # Appended in time order: the last revision of each wins.
    newest = {(t["target"], t["scale"]): (t["git_rev"], t["host"]) for t in lines}
    table, used = [], []
    for (target, scale), (rev, host) in sorted(newest.items()):
        calls = [t for t in lines if (t["target"], t["scale"], t["git_rev"], t["host"]) ==
                 (target, scale, rev, host)]
        wall = sum(float(t["wall_s"]) for t in calls)
        # make check-persistency's rows are persistency.tsv (experiment.sh).
        raw = target[len("check-"):] if target.startswith("check-") else target
        rows = [r for r in R.read_rows(results_dir, raw + ".tsv")
                if r.get("git_rev") == rev and r.get("host") == host and
                r.get("scale") == scale and r.get("op") != "crash-campaign"]
        used += rows
        timed_s = sum(timed(r) for r in rows)
        parts = [sum(float(R.params(r).get(k, 0) or 0) for r in rows) for k in PARTS]
        table.append([target, scale, rev, len(calls), "ok" if all(t["exit"] == "0" for t in calls)
                      else "failed", len(rows), wall, timed_s] + parts +
                     [wall - timed_s - sum(parts),
                      wall / timed_s if timed_s > 0 else float("nan"),
                      goal(target, wall, timed_s)])
    header = (["target", "scale", "git_rev", "calls", "exit", "rows", "wall_s", "timed_s"] +
              list(PARTS) + ["other_s", "wall_over_timed", "goal"])
    comments = R.platform_comments(used) + R.rev_comments(used) + [
        "wall time of each experiment at its newest revision (all its calls) against its rows; "
        "Figure 9's goal: under %.0f s, or within %.2fx of its timed repetitions"
        % (GOAL_S, GOAL_RATIO)]
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
