#!/usr/bin/env python3
"""Mutants: each persist point of a workload's traced work removed in turn
(GPM_MUTATE=SITE), and whether the persistency checker (gpm-check's crash
images) and SIGKILL trials of the same mutant tell it from the original.

    mutants.py RESULTS_DIR OUT_TSV

Reads RESULTS_DIR/mutants.tsv (op=check rows written by
scripts/experiments/mutants.sh through gpm-check): the original's rows have
no mutant= in their params, the mutants' name their site (mutant=SITE,
site_kind, site_count, and site_where=recovery for a site only a recovery
reaches, whose images are those of crashed recoveries: nested_images,
nested_recovered; start=old for a check over the files a first run left,
which make mutants makes of the original and of every mutant not flagged
from fresh files); both carry images, recovered, wrong, crashed, refused,
complete, trace_points (the traced run's persist points), mutant_left (the
mutant's points left at its site: 0 where it took) and the SIGKILL trials'
kills, kill_units, sigkill_recovered, sigkill_flagged. Writes one row per
workload, op, mode, scale and site (the original first, site "(original)"),
its newest run (start: "fresh" or "old files"):
  checker: for a mutant, "flagged" (images did not recover); where none
    failed, from what gpm-check measured of the removed persist points
    (removed, held_stores, held_images): "redundant (holds no store back)",
    "not flagged (N images held back, all recovered)" (evidence, not proof:
    more images may find what these missed), "argued benign (TEST)" for a
    site of ARGUED, or from rows without them "benign (no image failed)";
    "incomplete" (the trace missed stores: no verdict) or "error" (no check,
    or the mutant did not take); for the original, "passes" or "FAILED";
  sigkill: "not flagged (R of K recovered)", "flagged (F of K)" or "no
    trials"; with DRAM standing in for PM a SIGKILL loses no store, so it is
    not expected to flag any mutant."""
import os
import sys

import rows as R

ORIGINAL = "(original)"
# Persist points whose loss the checker cannot flag because it is harmless,
# each argued where it is and checked by a test: the site, the text its
# line holds (a site moved or changed no longer matches: --check-argued
# fails), and the test (file: function).
ARGUED = {
    "libgpm/src/tx.c:191": (
        "gpm_region_persist(&log->region, tail, sizeof *tail)",
        "libgpm/tests/cpu/test_tx.c: recovery_that_lost_its_tail_stores_ends_exactly_right"),
    "workloads/ps/ps_ref.c:58": (
        "wl_pm_persist(c, PS_SUMS, &done[b], 4)",
        "workloads/ps/tests/cpu/test_ps_ref.c: a_lost_marker_costs_only_its_blocks_redo"),
    "workloads/reduce/reduce_ref.c:88": (
        "wl_pm_persist(c, RED_TREE, total, 8)",
        "workloads/reduce/tests/cpu/test_reduce_cpu.c: a_lost_total_is_recomputed_from_the_slots"),
}


def argued_stale(root):
    """The entries of ARGUED whose site's line or test is not where they
    say, as lines of text."""
    out = []
    for site, (text, test) in ARGUED.items():
        path, line = site.rsplit(":", 1)
        tpath, func = test.split(": ")
        try:
            with open(os.path.join(root, path)) as f:
                src = f.read().split("\n")
            with open(os.path.join(root, tpath)) as f:
                tsrc = f.read()
        except OSError as e:
            out.append("%s: %s" % (site, e))
            continue
        if not (0 < int(line) <= len(src) and text in src[int(line) - 1]):
            out.append("%s: the line no longer holds %r: move the entry to its line" % (site, text))
        if "static void %s(void)" % func not in tsrc or "RUN(%s)" % func not in tsrc:
            out.append("%s: %s has no test %s run" % (site, tpath, func))
    return out


def key(r, p):
    """A check's case: its operation, and the setting beside the default run
    it covers (--check-settings) in brackets."""
    op = p.get("op", "run") + (" [%s]" % p["setting"] if "setting" in p else "")
    return (r["workload"], op, r.get("mode", ""), r.get("scale", ""), p.get("mutant", ORIGINAL))


def by_site(mutants, col):
    """Each mutant (a site removed, in one workload, mode and scale) over
    every case it was checked in: flagged where any case flagged it,
    redundant where every case found it so, argued benign where every
    case found it so or redundant, else not flagged."""
    verdicts = {}
    for t in mutants:
        verdicts.setdefault((t[0], t[2], t[3], t[4]), []).append(t[col["checker"]])
    flagged = sum(1 for v in verdicts.values() if "flagged" in v)
    redundant = sum(1 for v in verdicts.values()
                    if "flagged" not in v and all(c.startswith("redundant") for c in v))
    argued = sum(1 for v in verdicts.values()
                 if "flagged" not in v and any(c.startswith("argued") for c in v) and
                 all(c.startswith(("argued", "redundant")) for c in v))
    return len(verdicts), flagged, redundant, argued


def held_prefix(p):
    """A recovery's site is removed in the crashed recoveries' checks: its
    counts are their nested_ ones."""
    return "nested_" if p.get("site_where") == "recovery" else ""


def checker(row, p, held):
    """HELD: per key, the stores a mutant's removal held back and the images
    there, the most of any of its rows (from fresh files and over old ones:
    a store over old files may rewrite the bytes that were there, and then
    none is seen)."""
    images, failed = R.check_images(p)
    original = "mutant" not in p
    if "error" in p:
        return "FAILED: no check: " + p["error"] if original else "error: no check: " + p["error"]
    if p.get("complete") == "no":
        return "incomplete: no verdict"
    if R.param_count(p, "mutant_left"):
        return "error: not removed (%d persist points left at the site)" % \
            R.param_count(p, "mutant_left")
    if original:
        return "passes" if row.get("verified") == "ok" and failed == 0 else \
            "FAILED: %d of %d images not recovered" % (failed, images)
    if failed > 0:
        return "flagged"
    pre = held_prefix(p)
    if pre + "held_stores" in p and R.param_count(p, pre + "removed") > 0:
        stores, images = held.get(key(row, p), (0, 0))
        if stores == 0:
            return "redundant (holds no store back)"
        if p.get("mutant") in ARGUED:
            return "argued benign (%s)" % ARGUED[p["mutant"]][1]
        return "not flagged (%d images held back, all recovered)" % images
    return "benign (no image failed)"


def sigkill(p):
    kills = R.param_count(p, "kills")
    if kills == 0:
        return "no trials"
    flagged = R.param_count(p, "sigkill_flagged")
    if flagged:
        return "flagged (%d of %d)" % (flagged, kills)
    return "not flagged (%d of %d recovered)" % (R.param_count(p, "sigkill_recovered"),
                                                 kills)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check-argued":
        stale = argued_stale(sys.argv[2])
        for line in stale:
            print("mutants.py: ARGUED: " + line, file=sys.stderr)
        sys.exit(1 if stale else 0)
    results_dir, out = R.args(also=", or mutants.py --check-argued ROOT")
    rows = R.check_rows(results_dir, "mutants.tsv", "mutants")
    newest, held = {}, {}
    for r in rows:  # in the order they were written: the last one wins
        p = R.params(r)
        k = key(r, p)
        newest[k] = r
        pre = held_prefix(p)
        was = held.get(k, (0, 0))
        held[k] = (max(was[0], R.param_count(p, pre + "held_stores")),
                   max(was[1], R.param_count(p, pre + "held_images")))
    header = ["workload", "op", "mode", "scale", "site", "site_kind", "site_count", "start",
              "trace_points", "images", "failed", "wrong", "crashed", "refused", "checker",
              "kills", "kill_units", "sigkill_flagged", "sigkill", "check_s"]
    table = []
    # The original first, then its sites in order.
    for k in sorted(newest, key=lambda k: k[:4] + (k[4] != ORIGINAL, k[4])):
        r = newest[k]
        p = R.params(r)
        table.append(list(k) + [
            p.get("site_kind", "") + (" (recovery)" if p.get("site_where") == "recovery" else ""),
            p.get("site_count", ""), "old files" if p.get("start") == "old" else "fresh",
            p.get("trace_points", ""), *R.check_images(p),
            *(R.param_count(p, c) for c in ("wrong", "crashed", "refused")), checker(r, p, held),
            R.param_count(p, "kills"), p.get("kill_units", ""),
            R.param_count(p, "sigkill_flagged"), sigkill(p),
            R.number(r, "median_s") if r.get("median_s") else float("nan")])
    mutants = [t for t in table if t[4] != ORIGINAL]
    col = {h: i for i, h in enumerate(header)}
    flagged, redundant, benign, other, by_kill = R.mutant_verdicts(
        (t[col["checker"]] for t in mutants), (t[col["sigkill"]] for t in mutants))
    sites, sites_flagged, sites_redundant, sites_argued = by_site(mutants, col)
    used = list(newest.values())
    comments = (["Mutants: each persist point of the traced work removed in turn "
                 "(GPM_MUTATE=SITE, in the run and its recoveries); checker: gpm-check's crash "
                 "images of the mutant (failed: images not recovered), flagged where any failed; "
                 "sigkill: the same mutant killed with SIGKILL just after units kill_units of its "
                 "progress, then recovered and verified; the original (site '(original)') must "
                 "pass both",
                 "redundant: the removed persist points hold no store back (a later persist "
                 "makes the same stores durable at the same point), so the mutant's crash "
                 "images are the original's; not flagged: the images where the removal holds "
                 "stores back (those dropped, the rest applied; torn; then all dropped) all "
                 "recovered, evidence and not proof that recovery redoes what it lost; argued "
                 "benign: not flagged, and a test (named) shows its loss harmless; benign (no "
                 "image failed): a row from before gpm-check measured what a removal holds "
                 "back; reported, not hidden",
                 "SIGKILL with DRAM standing in for PM loses no store, flushed or not: it is not "
                 "expected to flag a mutant; a flag there is a failure of recovery of another "
                 "kind",
                 "of %d mutants: %d flagged by the checker, %d redundant, %d not flagged (%d of "
                 "them argued benign), %d other; %d flagged by SIGKILL"
                 % (len(mutants), flagged, redundant, benign,
                    sum(1 for t in mutants if t[col["checker"]].startswith("argued")), other,
                    by_kill),
                 "by site, over the operations and settings each was checked in: of %d, %d "
                 "flagged in some case, %d redundant in every case, %d argued benign, %d none "
                 "of these" % (sites, sites_flagged, sites_redundant, sites_argued,
                               sites - sites_flagged - sites_redundant - sites_argued)]
                + R.platform_comments(used) + R.rev_comments(used))
    R.write_tsv(out, header, table, comments)


if __name__ == "__main__":
    main()
