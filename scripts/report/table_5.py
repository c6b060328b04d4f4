#!/usr/bin/env python3
"""Table 5: restoration latency in GPM as a percentage of the operation
time: median_s of a --recover run (op=recover) over median_s of a normal
GPM run (op=run) of the same workload and scale. For checkpointing
workloads also the three figures the paper gives for DNN (Section 6.2):
the time of the work between two checkpoints, of one checkpoint, and of a
restore, in milliseconds.
    table_5.py RESULTS_DIR OUT_TSV
Reads RESULTS_DIR/table_5.tsv."""
import rows as R


def per_checkpoint(run):
    """(ms of work between two checkpoints, ms of one checkpoint) of a
    checkpointing run, from its checkpoints= and checkpoint_s= (the last
    repetition's) and its median_s; nan for a run that did not checkpoint."""
    p = R.params(run) if run else {}
    n, cp = R.fnum(p.get("checkpoints")), R.fnum(p.get("checkpoint_s"))
    if not (R.finite(n) and n > 0 and R.finite(cp)):
        return float("nan"), float("nan")
    return 1e3 * (R.fnum(run["median_s"]) - cp) / n, 1e3 * cp / n


def main():
    results_dir, out = R.args()
    rows = R.target_rows(results_dir, "table_5")
    best, warnings = R.newest(rows, ops=("run", "recover"))
    paper = R.paper_by_workload("table_5")
    header = ["workload", "scale", "run_s", "restore_s", "restore_pct", "undo_s", "undo_pct",
              "reload_s", "paper_restore_pct",
              "between_checkpoints_ms", "checkpoint_ms", "restore_ms",
              "paper_between_checkpoints_ms", "paper_checkpoint_ms", "paper_restore_ms", "noisy"]
    out_rows, used = [], []
    for wl, scale in R.groups(best):
        run = R.pick(best, wl, scale, "gpm", "run")
        rec = R.pick(best, wl, scale, "gpm", "recover")
        used += [r for r in (run, rec) if r is not None]
        t_run = R.fnum(run["median_s"]) if run else float("nan")
        t_rec = R.fnum(rec["median_s"]) if rec else float("nan")
        t_undo = R.fnum(R.params(rec).get("undo_s")) if rec else float("nan")
        between, one = per_checkpoint(run)
        out_rows.append([wl, scale, t_run, t_rec, 100.0 * R.ratio(t_rec, t_run), t_undo,
                         100.0 * R.ratio(t_undo, t_run), t_rec - t_undo,
                         R.paper_val(paper, wl, "rl_pct"), between, one,
                         1e3 * t_rec if R.finite(between) else float("nan")]
                        + [R.paper_val(paper, wl, c) for c in
                           ("between_checkpoints_ms", "checkpoint_ms", "restore_ms")]
                        + [R.noisy([("run", run), ("recover", rec)])])
    comments = (["Table 5: restoration latency = median time of a GPM --recover run (restore from "
                 "PM, after a completed run) as % of the median GPM operation time",
                 "transactional workloads: undo_s is the undo of the batch killed before its "
                 "commit alone, what the paper's restoration measures (hold undo_pct against "
                 "paper_restore_pct); restore_s also reloads the GPU's copy of the table from "
                 "PM (reload_s = restore_s - undo_s), which the paper's numbers do not contain",
                 "checkpointing workloads: between_checkpoints_ms = (run_s - the run's "
                 "checkpoint time) / checkpoints, the work of one checkpoint interval; "
                 "checkpoint_ms = checkpoint time / checkpoints; restore_ms = restore_s",
                 "native workloads (no paper value) have nothing to restore after a completed "
                 "run: their restore_s is a resume that finds every block durable (PS: it "
                 "only recomputes the final sums)", R.NOISY_COMMENT]
                + R.platform_comments(used or rows) + R.rev_comments(used or rows)
                + warnings + R.paper_comments("table_5"))
    R.write_tsv(out, header, out_rows, comments)


if __name__ == "__main__":
    main()
