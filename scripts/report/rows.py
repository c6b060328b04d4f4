"""Reading raw result rows (one schema for every benchmark, see
libgpm/include/gpm/results.h) and writing report tables."""
import csv
import glob
import math
import os
import statistics
import sys

# The repository: this file is its scripts/report/rows.py.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_rows(results_dir, pattern="*.tsv", key="workload"):
    """Every row of every TSV under RESULTS_DIR whose name matches PATTERN,
    as dicts keyed by column name (files without a KEY column, such as
    gpm-info.tsv, are skipped), of REF_REV's revision alone (of_ref)."""
    rows = []
    for path in sorted(glob.glob(os.path.join(results_dir, pattern))):
        with open(path, newline="") as f:
            reader = csv.DictReader(f, delimiter="\t")
            if not reader.fieldnames or key not in reader.fieldnames:
                continue
            for row in reader:
                row["_file"] = os.path.basename(path)
                rows.append(row)
    return of_ref(rows)


def of_ref(rows):
    """ROWS of the revision REF_REV names (a prefix of their git_rev): a
    reference's reports hold one revision's rows. Every row where REF_REV
    is unset or "any"; scripts/reports.sh refuses a folder of several
    revisions without it."""
    ref = os.environ.get("REF_REV", "any") or "any"
    return rows if ref == "any" else [r for r in rows
                                      if (r.get("git_rev") or "").startswith(ref)]


def target_rows(results_dir, target, keep=lambda row: True, also=()):
    """Every row of RESULTS_DIR/TARGET.tsv (and of the reports named in
    ALSO) for which KEEP holds; none is an error saying to run make TARGET."""
    rows = [r for n in (target,) + tuple(also) for r in read_rows(results_dir, n + ".tsv")
            if keep(r)]
    if not rows:
        fail("%s: no rows in %s (run make %s first)"
             % (target, os.path.join(results_dir, target + ".tsv"), target))
    return rows


def check_rows(results_dir, fname, target):
    """The op=check rows (gpm-check's) of RESULTS_DIR/FNAME; none is an
    error saying to run make TARGET."""
    rows = [r for r in read_rows(results_dir, fname) if r.get("op") == "check"]
    if not rows:
        fail("%s: no rows in %s: run make %s first"
             % (target, os.path.join(results_dir, fname), target))
    return rows


def latest(rows, key):
    """{KEY(row): row}, the last of ROWS (in the order written) of each key."""
    return {key(r): r for r in rows}


def check_case(row):
    """What a gpm-check row checked: (workload, operation, mode, scale)."""
    return (row["workload"], params(row).get("op", "run"), row.get("mode", ""),
            row.get("scale", ""))


def sweep_run(results_dir, workload, target):
    """newest_run of the WORKLOAD rows under RESULTS_DIR; none is an error
    saying to run make TARGET."""
    rows = [r for r in read_rows(results_dir) if r.get("workload") == workload]
    if not rows:
        fail("%s: no %s rows in %s/*.tsv: run `make %s` (or scripts/experiment.sh %s BIN_DIR) "
             "first" % (target, workload, results_dir, target, target))
    return newest_run(rows, results_dir)


def newest_run(all_rows, results_dir):
    """The rows of the newest run of a sweep: the newest file (by mtime)
    holding such rows, and in it the rows of its last row's git_rev and
    host. Returns (file name, (git_rev, host), rows)."""
    files = sorted({r["_file"] for r in all_rows},
                   key=lambda f: os.path.getmtime(os.path.join(results_dir, f)))
    newest = files[-1]
    in_file = [r for r in all_rows if r["_file"] == newest]
    key = (in_file[-1].get("git_rev"), in_file[-1].get("host"))
    return newest, key, [r for r in in_file if (r.get("git_rev"), r.get("host")) == key]


def shown_path(results_dir, fname):
    """RESULTS_DIR/FNAME as a report shows it: relative to the repository
    when inside it, so a report does not depend on where it was made."""
    path = os.path.abspath(os.path.join(results_dir, fname))
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def number(row, col):
    """COL of ROW as a float; a clear error naming the file otherwise."""
    try:
        return float(row[col])
    except (KeyError, TypeError, ValueError):
        fail("%s: row of %s has no number in column %s: %r"
             % (os.path.splitext(os.path.basename(sys.argv[0]))[0], row.get("_file"), col,
                row.get(col)))


def params(row):
    """The row's params column as a dict of strings."""
    out = {}
    for kv in (row.get("params") or "").split(","):
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def inputs(row):
    """The run's inputs: the params the harness writes first (the
    operation, the workload's parameters, the seed), up to cpu_threads=."""
    out = []
    for kv in (row.get("params") or "").split(","):
        if kv.startswith("cpu_threads="):
            break
        out.append(kv)
    return out


def param_count(p, key):
    """PARAMS' KEY (params()) as a whole number, 0 where it has none."""
    try:
        return int(p.get(key, "0"))
    except ValueError:
        return 0


def check_images(p):
    """A gpm-check row's PARAMS: its images and those not recovered, the
    images of crashed recoveries (--nested) included."""
    images = param_count(p, "images") + param_count(p, "nested_images")
    return images, (images - param_count(p, "recovered")
                    - param_count(p, "nested_recovered"))


PLATFORM_KEYS = ("gpu", "pcie", "pm_backend", "persist_domain", "ddio")


def mutant_verdicts(checkers, sigkills):
    """The mutants report's counts, from its checker and sigkill columns:
    flagged, redundant, not flagged (older rows: benign; and those argued
    benign), other, and flagged by SIGKILL."""
    checkers = list(checkers)
    flagged = sum(1 for c in checkers if c == "flagged")
    redundant = sum(1 for c in checkers if c.startswith("redundant"))
    unflagged = sum(1 for c in checkers if c.startswith(("benign", "not flagged", "argued")))
    killed = sum(1 for s in sigkills if s.startswith("flagged"))
    return flagged, redundant, unflagged, len(checkers) - flagged - redundant - unflagged, killed


def unique(values):
    """VALUES without repeats, in the order first seen."""
    return list(dict.fromkeys(values))


def platform_comments(rows):
    """Comment lines naming the platform(s) the rows were measured on."""
    seen = unique(tuple(r.get(k, "unknown") or "unknown" for k in PLATFORM_KEYS) for r in rows)
    if not seen:
        return ["platform: no rows"]
    return ["platform: " + ", ".join("%s=%s" % kv for kv in zip(PLATFORM_KEYS, p)) for p in seen]


def cpu_comment(rows):
    """A comment line naming the CPU that the CPU-side runs (mode cpu) among
    ROWS had: Figure 1 sets GPM against CPU systems, and their core count
    moves the ratio as much as the GPU does."""
    seen = unique("%s cores (%s)" % (r.get("cores") or "?", r.get("cpu") or "unknown")
                  for r in rows if r.get("mode") == "cpu")
    return ["cpu: " + "; ".join(seen)] if seen else []


def rev_comments(rows):
    revs = unique(r.get("git_rev", "unknown") for r in rows)
    if len(revs) > 1:
        return ["NOTE: rows come from several revisions: " + ", ".join(revs)]
    return ["revision: " + (revs[0] if revs else "none")]


# A median whose repetitions spread more than this (rsd_pct, %) is flagged.
NOISY_PCT = 5.0
NOISY_COMMENT = ("noisy: the medians whose repetitions spread more than %g%% (rsd_pct: sample "
                 "SD over the mean), by what they time; none: every spread known and within "
                 "%g%%; unknown: rows written before rsd_pct, or of one repetition, whose "
                 "spread is not known" % (NOISY_PCT, NOISY_PCT))


def rsd(row):
    """The row's rsd_pct, the spread of its repetitions in %, or nan: a row
    written before that column, or of a single repetition."""
    try:
        return float((row or {}).get("rsd_pct") or "nan")
    except ValueError:
        return float("nan")


def repetitions(row):
    """The row's repetitions in seconds, or None where it does not keep
    them: a rep_s column (comma-separated) where the row has one; else
    min_s, median_s and max_s, which are every repetition of a row of up to
    three (of two: min_s and max_s; of one: median_s)."""
    cols = {1: ("median_s",), 2: ("min_s", "max_s"), 3: ("min_s", "median_s", "max_s")}
    try:
        if row.get("rep_s"):
            return [float(x) for x in row["rep_s"].split(",")]
        return [float(row[c]) for c in cols[int(float(row.get("reps") or 0))]]
    except (KeyError, ValueError):
        return None


def spread(rows):
    """The spread of a median taken over ROWS (a row, or a list of rows
    whose medians are combined): the largest rsd, nan if one is unknown."""
    vals = [rsd(r) for r in (rows if isinstance(rows, list) else [rows])]
    return float("nan") if not vals or any(v != v for v in vals) else max(vals)


def noisy(named):
    """A report row's noisy column from NAMED, [(name, rows)] of the rows
    whose medians it shows (a row or a list, see spread; None and empty
    lists skipped): "none", "unknown", or the names over NOISY_PCT with their
    spread ("gpm 7.2%"), those of unknown spread after them ("gpm 7.2%;
    unknown: cap-fs")."""
    named = [(n, spread(r)) for n, r in named if r]
    if not named:
        return ""
    over = ["%s %.1f%%" % (n, v) for n, v in named if v == v and v > NOISY_PCT]
    unknown = [n for n, v in named if v != v]
    if not over:
        return "none" if not unknown else "unknown" if len(unknown) == len(named) else \
            "unknown: " + ", ".join(unknown)
    return "; ".join(over + (["unknown: " + ", ".join(unknown)] if unknown else []))


def median(values):
    return statistics.median(values) if values else float("nan")


def paper_path(name):
    """reports/paper/NAME.tsv of this tree (the paper's own numbers)."""
    return os.path.join(ROOT, "reports", "paper", name + ".tsv")


def read_paper(name):
    """reports/paper/NAME.tsv as a list of dicts."""
    path = paper_path(name)
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader((line for line in f if not line.startswith("#")),
                                   delimiter="\t"))


def paper_metric(name, metric):
    """METRIC's value in reports/paper/NAME.tsv (metric and value columns),
    "nan" where it states none."""
    return next((p.get("value", "nan") for p in read_paper(name) if p.get("metric") == metric),
                "nan")


def write_tsv(path, header, rows, comments=()):
    """Writes '# ' comment lines, a header and rows (lists of values)."""
    with open(path, "w") as f:
        for c in comments:
            f.write("# " + c + "\n")
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(fmt(v) for v in r) + "\n")


def fmt(v):
    if isinstance(v, float):
        return "nan" if v != v else ("%.4g" % v)
    return str(v)


def fail(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)


def args(usage="RESULTS_DIR OUT_TSV", also=""):
    """The script's arguments, as many as USAGE names; any other number is
    an error that shows USAGE (and ALSO, another way to call it)."""
    if len(sys.argv) != len(usage.split()) + 1:
        fail("usage: %s %s%s" % (os.path.basename(sys.argv[0]), usage, also))
    return sys.argv[1:]


# ---- numbers, and the selection of the rows a report shows (Figures 9 and
# 10, Tables 4 and 5, and the others that pick the newest verified run) ----

NOT_RUNS = ("recover", "crash-campaign")


def fnum(v):
    """A float from a TSV field; nan for empty or unparsable fields."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def finite(x):
    return isinstance(x, float) and not math.isnan(x) and not math.isinf(x)


def ratio(num, den):
    return num / den if finite(num) and finite(den) and den > 0 else float("nan")


def geomean(values):
    vals = [v for v in values if finite(v) and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")


def kind(row):
    """What a row is: "run", or one of NOT_RUNS (a recovery, a campaign)."""
    op = row.get("op") or "run"
    return op if op in NOT_RUNS else "run"


def op_name(row):
    """The operation of a workload with several (gpDB's insert and update):
    a run row's op column, a recovery's or campaign's op= param; "" for a
    workload with one operation."""
    op = row.get("op") or "run"
    if op in NOT_RUNS:
        return params(row).get("op", "")
    return "" if op == "run" else op


def label(row):
    """The workload name a report shows: the workload, plus its operation
    when it has several (e.g. INSERT and UPDATE)."""
    op = op_name(row)
    return row["workload"] if not op else "%s(%s)" % (row["workload"], op)


def newest(rows, ops=None):
    """{(label, scale, mode, kind): row}: the newest verified row of each key
    (the last in file order), of the kinds in OPS (default: runs). Unverified
    rows never count; every key whose newest row failed verification is
    returned in a list of warnings."""
    best, last_any = {}, {}
    for r in rows:
        k = kind(r)
        if k not in (ops or ("run",)):
            continue
        key = (label(r), r.get("scale", ""), r.get("mode", ""), k)
        last_any[key] = r
        if r.get("verified") == "ok":
            best[key] = r
    warnings = []
    for key, r in sorted(last_any.items()):
        if r.get("verified") != "ok":
            what = "%s --mode %s op=%s (scale %s)" % (key[0], key[2], key[3], key[1])
            if key in best:
                warnings.append("WARNING: newest %s failed verification; an older "
                                "verified run (rev %s) is used" % (what, best[key].get("git_rev", "?")))
            else:
                warnings.append("WARNING: %s has no verified row; left out" % what)
    return best, warnings


def groups(best):
    """Sorted (label, scale) pairs present in a newest() result."""
    return sorted({(k[0], k[1]) for k in best})


def paper_by_workload(name):
    return {p["workload"]: p for p in read_paper(name)}


def paper_val(paper, workload, col):
    """The paper's value or '' where the paper states none."""
    return (paper.get(workload, {}).get(col, "") or "").strip()


def paper_gpm_text(paper, workload):
    """GPM over CAP-fs as the paper's text states it for WORKLOAD: its own
    number, else the range stated for it or its class ("11-18"), else "not
    stated". The paper gives no bar heights, only these ranges."""
    v = paper_val(paper, workload, "gpm_speedup")
    lo, hi = paper_val(paper, workload, "gpm_lo"), paper_val(paper, workload, "gpm_hi")
    if v:
        return v
    if lo and hi:
        return lo if lo == hi else "%s-%s" % (lo, hi)
    return "not stated"


def paper_comments(name):
    """The '#' lines of reports/paper/NAME.tsv (the paper's stated ranges)."""
    path = paper_path(name)
    if not os.path.exists(path):
        return ["paper values: %s missing" % path]
    with open(path) as f:
        return ["paper: " + line[1:].strip() for line in f if line.startswith("#")]


def pick(best, wl, scale, mode, op=None):
    """The selected row of (workload label, scale, mode[, op]) or None."""
    for k, r in best.items():
        if k[0] == wl and k[1] == scale and k[2] == mode and (op is None or k[3] == op):
            return r
    return None


def checkpoint_s(row):
    """The seconds a run's checkpoints took (checkpoint_s= in its params), or
    nan for a row without them."""
    return fnum(params(row).get("checkpoint_s")) if row else float("nan")


def speedup_table(results_dir, name, modes, also=()):
    """Shared by Figures 9 and 10: reads RESULTS_DIR/NAME.tsv (and the files
    named in ALSO) and returns (rows, table, used, warnings); table holds per
    (workload, scale) the median_s of each mode (nan where missing), the
    selected row of each mode (None where missing), the CAP-mm thread count
    and the noisy column of the modes' rows."""
    rows = target_rows(results_dir, name, also=also)
    best, warnings = newest(rows)
    table, used = [], []
    for wl, scale in groups(best):
        sel = {m: pick(best, wl, scale, m) for m in modes}
        used += [r for r in sel.values() if r is not None]
        t = {m: fnum(r["median_s"]) if r else float("nan") for m, r in sel.items()}
        capmm = sel.get("cap-mm") or sel.get("cap-eadr")
        table.append((wl, scale, t, sel, capmm.get("threads", "") if capmm else "",
                      noisy([(m, sel[m]) for m in modes])))
    return rows, table, used, warnings
