/* The loop of every iterative workload that checkpoints, written once: the
 * steps, the schedule, the checkpoints, the restore that refuses another
 * run's checkpoint, and the recovery that resumes from the last of them and
 * counts what it reused. */
#include "harness.h"
#include "wl_hd.h"

int wl_steps_run(struct wl_ctx *c, const struct wl_steps *s, uint64_t from)
{
    uint64_t saved = 0, last = from, booked = from, pending = 0;
    int overlap = wl_cp_overlaps(c);
    double cp_s = 0, t0;
    for (uint64_t k = from; k < s->total; k++) {
        if (s->step(c, k) != 0)
            return -1;
        *s->done = k + 1;
        if (!wl_checkpoint_due(k + 1, s->total, s->every))
            continue;
        /* The checkpoint's own time, apart from the steps still running on
         * the GPU before it (what the paper's per-checkpoint figures are). */
        if (c->m->needs_gpu && wl_dev_sync("the steps before a checkpoint") != 0)
            return -1;
        t0 = wl_now();
        if (s->before_checkpoint && s->before_checkpoint(c, booked, k + 1) != 0)
            return -1;
        booked = k + 1;
        /* Mode none keeps nothing: of the checkpoints only the last is made,
         * for verification, out of the time (wl_cp_checkpoint); what the
         * workload does before each is its work, made as in every mode. */
        if (c->m->commit->nothing_durable && k + 1 < s->total)
            continue;
        /* The previous checkpoint's copy, overlapped with these steps, is
         * waited for: its steps are durable now. */
        if (pending) {
            if (wl_cp_finish(c, s->cp) != 0)
                return -1;
            wl_progress_add(c, pending);
            pending = 0;
            saved++;
        }
        /* Every checkpoint but the last copies while the next steps run. */
        if (overlap && k + 1 < s->total) {
            if (wl_cp_start(c, s->cp) != 0)
                return -1;
            pending = k + 1 - last;
        } else {
            if (wl_cp_checkpoint(c, s->cp) != 0)
                return -1;
            wl_progress_add(c, k + 1 - last);
            saved++;
        }
        cp_s += wl_now() - t0;
        last = k + 1;
    }
    wl_note(c, "checkpoints=%llu,checkpoint_s=%.6g%s", (unsigned long long)saved, cp_s,
            overlap ? ",checkpoint_copy=overlapped" : "");
    return 0;
}

int wl_steps_restore(struct wl_ctx *c, const struct wl_steps *s)
{
    int rc = wl_cp_restore(c, s->cp);
    return rc != 0 || !s->record_check ? rc : s->record_check(c);
}

int wl_steps_recover(struct wl_ctx *c, const struct wl_steps *s, int (*reset)(struct wl_ctx *))
{
    double t0 = wl_now();
    uint64_t from;
    int rc = wl_steps_restore(c, s);
    if (rc < 0 || (rc == 1 && reset(c) != 0)) /* 1: killed before the first checkpoint */
        return -1;
    c->restore_s = wl_now() - t0;
    if (rc == 0 && s->after_restore && s->after_restore(c) != 0)
        return -1;
    from = *s->done;
    c->progress.total = s->total;
    c->progress.durable = from;
    wl_note(c, "resumed_from=%llu", (unsigned long long)from);
    rc = wl_steps_run(c, s, from);
    c->progress.redone = *s->done - from;
    return rc;
}

int wl_steps_final(struct wl_ctx *c, const struct wl_steps *s)
{
    /* The last checkpoint's record is the run's marker. */
    struct wl_wrong w = {.marks_bad = 1, .marks = 1};
    int rc = wl_steps_restore(c, s);
    if (rc == 1) {
        wl_note_wrong(c, &w);
        return gpm_set_error("%s: holds no checkpoint", c->h->obj[s->cp].path), 1;
    }
    if (rc != 0 || (s->after_restore && (rc = s->after_restore(c)) != 0))
        return rc;
    if (*s->done != s->total) {
        wl_note_wrong(c, &w);
        return gpm_set_error("%s: the last checkpoint is of %s %llu of %llu", c->wl->name,
                             s->unit ? s->unit : "step", (unsigned long long)*s->done,
                             (unsigned long long)s->total),
               1;
    }
    return 0;
}
