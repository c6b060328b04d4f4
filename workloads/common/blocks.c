/* A workload computed in marked blocks (wl_blocks.h): its run, its
 * recovery and its verification, written once for PS and Reduce. */
#include "harness.h"
#include "wl_blocks.h"

/* Epoch c->epoch computed into region 0 where the mode's kernels write it,
 * with RESUME only what is not marked, then committed whole (the CPU
 * counterpart persists each block as it goes). */
static int compute(struct wl_ctx *c, int resume, uint64_t *computed)
{
    const struct wl_blocks *b = c->wl->blocks;
    uint8_t *out = wl_dev_region(c, 0);
    gpm_range all = {0, wl_obj_bytes(c, 0), c->m->kernels_write_pm ? NULL : out};
    int rc;
    if (!out || wl_persist_begin(c) != 0)
        return -1;
    rc = b->compute(c, out, resume, computed);
    if (wl_persist_end(c) != 0 || rc != 0)
        return -1;
    /* gpm, gpm-eadr: persisted (and counted) in-kernel; gpm-ndp: the CPU
     * flushes what the kernels stored; CAP: the device copy to PM. */
    if (c->m->needs_gpu && wl_commit(c, 0, &all, 1) != 0)
        return -1;
    wl_progress_add(c, 1); /* the final unit */
    return 0;
}

int wl_blocks_run(struct wl_ctx *c)
{
    uint64_t computed;
    return compute(c, 0, &computed);
}

/* Resumes the interrupted epoch: a durable final unit ends it, else only
 * the blocks without its marker are computed, then the final unit. */
int wl_blocks_recover(struct wl_ctx *c)
{
    const struct wl_blocks *b = c->wl->blocks;
    const uint8_t *pm = wl_region(c, 0)->host;
    uint64_t blocks = b->blocks(c), pending = b->pending(c, pm), computed = 0;
    c->progress.total = blocks + 1;
    c->progress.durable = blocks - pending;
    if (b->finished(c, pm)) {
        c->progress.durable = c->progress.total;
        wl_note(c, "resumed_blocks=0,pending_blocks=%llu,final=durable",
                (unsigned long long)pending);
        return 0;
    }
    if (compute(c, 1, &computed) != 0)
        return -1;
    c->progress.redone = computed + 1;
    wl_note(c, "resumed_blocks=%llu,pending_blocks=%llu", (unsigned long long)computed,
            (unsigned long long)pending);
    return 0;
}

int wl_blocks_verify(struct wl_ctx *c)
{
    struct wl_wrong w = {0};
    int rc = c->wl->blocks->check(c, wl_region(c, 0)->host, &w);
    if (rc == 1)
        wl_note_wrong(c, &w);
    return rc;
}
