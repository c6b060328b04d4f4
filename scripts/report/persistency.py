#!/usr/bin/env python3
"""Persistency checks: the crash images gpm-check built for each workload,
operation and mode, how their recoveries ended, how fast the check ran and
what tracing cost.

    persistency.py RESULTS_DIR OUT_TSV

Reads RESULTS_DIR/persistency.tsv (op=check rows, written by
scripts/experiments/check-persistency.sh through gpm-check): params images,
recovered, wrong, crashed, refused, complete, run_s, run_work_s (the traced
run's wall time and timed work), untraced_s, untraced_work_s (the same
command untraced) and kernels_write_pm; median_s is the check's wall time.
Writes one row per workload, op, mode and scale, its newest check, with
images_per_s, trace_overhead, work_overhead and the verdict as the report's
comment lines define them. Rows of mutants (params mutant=, GPM_MUTATE set)
are left out: make mutants reports them (scripts/report/mutants.py)."""
import os

import rows as R

COUNTS = ("images", "recovered", "wrong", "crashed", "refused")


def ratio(a, b):
    a, b = R.fnum(a), R.fnum(b)
    return a / b if a == a and b == b and b > 0 else float("nan")


def verdict(row, p):
    """The check's verdict, as the report's comment lines define it."""
    if "error" in p:
        return "FAILED: the check could not run: " + p["error"]
    if p.get("complete") == "no":
        return "incomplete: stores the trace did not see"
    images, failed = R.check_images(p)
    if row.get("verified") != "ok" or images <= 0 or failed > 0:
        return "FAILED: %d of %d images not recovered" % (failed, images)
    return "ok"


def main():
    results_dir, out = R.args()
    checks = [r for r in R.read_rows(results_dir, "persistency.tsv") if r.get("op") == "check"]
    mutants = [r for r in checks if "mutant" in R.params(r)]
    checks = [r for r in checks if "mutant" not in R.params(r)]
    if not checks:
        R.fail("persistency: no check rows in %s: run make check-persistency first"
               % os.path.join(results_dir, "persistency.tsv"))
    newest = R.latest(checks, R.check_case)
    cases = [R.check_case(r) for r in checks]
    header = ["workload", "op", "mode", "scale", "model", "images", "recovered", "wrong",
              "crashed", "refused", "nested_images", "nested_recovered", "complete", "check_s",
              "images_per_s", "traced_run_s", "untraced_run_s", "trace_overhead",
              "work_overhead", "verdict", "checks"]
    table = []
    for key in sorted(newest):
        r = newest[key]
        p = R.params(r)
        table.append(list(key) + [p.get("model", "")] +
                     [p.get(k, "") for k in COUNTS] +
                     [R.param_count(p, k) for k in ("nested_images", "nested_recovered")] +
                     [p.get("complete", ""), R.fnum(r.get("median_s")),
                      ratio(p.get("images"), r.get("median_s")), R.fnum(p.get("run_s")),
                      R.fnum(p.get("untraced_s")), ratio(p.get("run_s"), p.get("untraced_s")),
                      ratio(p.get("run_work_s"), p.get("untraced_work_s")), verdict(r, p),
                      cases.count(key)])
    used = list(newest.values())
    comments = (["Persistency checks (gpm-check): each workload, op and mode run once with its "
                 "PM stores and persist points traced, the trace checked complete (replayed, it "
                 "gives the files the run left), then up to IMAGES crash images that the mode's "
                 "persistency model allows, each recovered with the program's own --recover and "
                 "verified against the golden output (the newest check of each row; checks: "
                 "how many were recorded)",
                 "images_per_s: images over the check's wall time (check_s: the traced run, the "
                 "replay and every recovery); trace_overhead: the traced run's wall time over "
                 "an untraced run of the same command (traced_run_s, untraced_run_s), "
                 "work_overhead the same of their timed work; one run each, so at tiny scale "
                 "process start-up weighs in the wall times",
                 "nested_images, nested_recovered: the crash images of recoveries crashed in "
                 "turn (NESTED, gpm-check --nested), each recovered again",
                 "verdict: ok, every image recovered and the trace complete; incomplete: stores "
                 "the trace did not see, a gap where none should be (its images prove nothing); "
                 "FAILED, images not recovered or no check"]
                + (["%d rows of mutants (GPM_MUTATE) left out: make mutants reports them"
                    % len(mutants)] if mutants else [])
                + R.platform_comments(used) + R.rev_comments(used))
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
