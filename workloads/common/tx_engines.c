/* The transaction engines: how each mode makes a batch of changes to a
 * region failure-atomic, calling the workload's APPLY once, in the order it
 * needs (see wl.h's transactions section). One engine a way:
 *
 *   undo-fenced   gpm, gpm-eadr: begin; the kernels log each old value
 *                 (durable as the record returns) and store and persist
 *                 the new one; commit
 *   undo-flushed  gpm-ndp: the kernels log without persisting and change
 *                 the device copy; the CPU flushes the log; begin; the
 *                 changed units are copied to PM and flushed; commit
 *   cap-chunks    the paper's CAP: the kernels change the device copy and
 *                 flag its chunks; the CAP engine persists those chunks.
 *                 No log: not failure-atomic, as in the paper
 *   redo-cpu      cap-delta: the kernels change the device copy and gather
 *                 each change; the CPU logs them durably, commits, applies
 *                 them to PM and flushes them (gpm/redo.h)
 *   undo-cpu      the CPU counterpart: begin; it logs each old value
 *                 durably before changing it and persists its changes;
 *                 commit
 *   volatile      none: the kernels change the device copy, and nothing
 *                 more; after the timed work the copy goes to the mapping
 *                 for verification, untimed. Not durable at all
 *
 * APPLY may return with its kernels only queued, on c->stream. Each engine
 * but volatile then waits for them once a batch, when it needs something
 * back (the undo engines: the count of records that did not fit; CAP and
 * redo: the flags or records they copy back); volatile never does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/redo.h"
#include "gpm/tx.h"
#include "harness.h"

static struct wl_tx_state *state(struct wl_ctx *c, int tx) { return c->h->obj[tx].tx; }
static int region_of(struct wl_ctx *c, int tx) { return state(c, tx)->sz.region; }

/* ---- what the engines share ---- */

static int alloc_fails(struct wl_ctx *c, int tx)
{
    struct wl_tx_state *t = state(c, tx);
    /* [0] records that did not fit, [1] records taken (--log-room) */
    if (!t->fails_dev && wl_dev_alloc((void **)&t->fails_dev, 2 * sizeof *t->fails_dev) != 0)
        return -1;
    return t->fails_host ? 0 : wl_pinned_alloc((void **)&t->fails_host, sizeof *t->fails_host);
}

/* Flags of CHUNK bytes over the region, on the device and the host, and the
 * ranges they become. */
static int alloc_flags(struct wl_ctx *c, int tx, size_t chunk)
{
    struct wl_tx_state *t = state(c, tx);
    size_t region = c->h->obj[region_of(c, tx)].bytes;
    t->chunk = chunk;
    t->nflags = region / chunk + 1;
    if (wl_dev_alloc((void **)&t->flags_dev, t->nflags * 4) != 0 ||
        wl_dev_zero(t->flags_dev, t->nflags * 4) != 0)
        return -1;
    t->flags_host = malloc(t->nflags * 4);
    t->ranges = malloc(t->nflags * sizeof *t->ranges);
    if (!t->flags_host || !t->ranges)
        return gpm_set_error("%s: out of memory for the flags of %llu chunks", c->wl->name,
                             (unsigned long long)t->nflags);
    return 0;
}

/* The flagged chunks (flags read from the device and cleared there) as
 * ranges of the region in t->ranges, their source SRC + offset (NULL:
 * none); their number, or -1. */
static int flagged_ranges(struct wl_tx_state *t, size_t region_bytes, const void *src)
{
    if (wl_dev_copy(t->flags_host, t->flags_dev, t->nflags * 4, 0) != 0 ||
        wl_dev_zero(t->flags_dev, t->nflags * 4) != 0)
        return -1;
    return wl_chunk_ranges(t->flags_host, t->nflags, t->chunk, 0, region_bytes, src, t->ranges);
}

/* The batch's one wait in the engines that log on the GPU: the count of
 * undo records that did not fit is copied back behind the batch's kernels,
 * on their stream, and the host waits for that stream. The kernels are
 * then done, every persist of theirs returned. */
static int wait_batch(struct wl_ctx *c, int tx)
{
    struct wl_tx_state *t = state(c, tx);
    return wl_dev_copy_on(t->fails_host, t->fails_dev, sizeof *t->fails_host, 0, c->stream) ||
                   wl_dev_wait(c->stream, "the batch's kernels")
               ? -1
               : 0;
}

/* After wait_batch: a batch whose undo records did not all fit made none
 * of the changes it could not log. */
static int check_fails(struct wl_ctx *c, int tx, uint64_t b)
{
    unsigned long long fails = *state(c, tx)->fails_host;
    if (fails)
        return gpm_set_error("%s: batch %llu: %llu undo records did not fit %s, and their "
                             "changes were not made: give the log more room",
                             c->wl->name, (unsigned long long)b, fails, c->h->obj[tx].path);
    return 0;
}

static int undo_reset(struct wl_ctx *c, int tx) { return gpmtx_reset(wl_log(c, tx)); }

static uint64_t undo_committed(struct wl_ctx *c, int tx) { return gpmtx_committed(wl_log(c, tx)); }

static int undo_recover(struct wl_ctx *c, int tx, uint64_t *committed)
{
    gpmtx_stats st = {0};
    double t0 = wl_now();
    if (gpmtx_recover(wl_log(c, tx), wl_region(c, region_of(c, tx)), &st) != 0)
        return -1;
    *committed = gpmtx_committed(wl_log(c, tx));
    /* undo_s: the undo alone; a workload's restore also reloads what the
     * GPU holds (Table 5 gives both). */
    wl_note(c, "tx_was_active=%d,undone=%llu,undo_s=%.3g", st.was_active,
            (unsigned long long)st.undone, wl_now() - t0);
    return 0;
}

/* The log's device tails are zeroed on c->stream, where the next batch's
 * logging kernels go, with no wait; on PM they are zero and durable when
 * this returns (gpmtx_commit_on). */
static int undo_commit(struct wl_ctx *c, int tx)
{
    wl_tx_commit_point(c);
    return gpmtx_commit_on(wl_log(c, tx), c->stream);
}

/* ---- undo-fenced: gpm, gpm-eadr ---- */

static int fenced_setup(struct wl_ctx *c, int tx, int (*first)(struct wl_ctx *, uint64_t **, size_t *))
{
    (void)first;
    return alloc_fails(c, tx);
}

static int fenced_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    wl_txdev d = wl_tx_dev_base(c, tx);
    int rc;
    d.pm = wl_region(c, region_of(c, tx))->dev;
    /* Fenced (by oFences in the SBRP variant) where the mode fences. */
    d.log = !c->m->fences ? gpmlog_device_unfenced(wl_log(c, tx))
            : wl_sbrp(c)  ? gpmlog_device_sbrp(wl_log(c, tx))
                          : gpmlog_device(wl_log(c, tx));
    if (gpmtx_begin(wl_log(c, tx)) != 0 || wl_persist_begin(c) != 0)
        return -1;
    /* APPLY may only queue its kernels: DDIO stays off, and the commit
     * waits, until they are done. */
    rc = apply(c, b, &d);
    if (rc == 0)
        rc = wait_batch(c, tx);
    if (wl_persist_end(c) != 0 || rc != 0 || check_fails(c, tx, b) != 0)
        return -1; /* the transaction stays active: --recover undoes what was logged */
    return undo_commit(c, tx);
}

const struct wl_tx_engine wl_tx_undo_fenced = {
    .name = "undo-fenced", .atomic = 1, .log = WL_OBJ_LOG, .setup = fenced_setup,
    .reset = undo_reset, .batch = fenced_batch, .committed = undo_committed,
    .recover = undo_recover,
};

/* ---- undo-flushed: gpm-ndp ---- */

static int flushed_setup(struct wl_ctx *c, int tx, int (*first)(struct wl_ctx *, uint64_t **, size_t *))
{
    (void)first;
    return alloc_fails(c, tx) || alloc_flags(c, tx, state(c, tx)->sz.unit) ? -1 : 0;
}

static int flushed_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    struct wl_tx_state *t = state(c, tx);
    int r = region_of(c, tx), n;
    wl_txdev d = wl_tx_dev_base(c, tx);
    d.log = gpmlog_device_unfenced(wl_log(c, tx));
    d.flags = t->flags_dev;
    d.shift = wl_chunk_shift(t->chunk);
    if (apply(c, b, &d) != 0 || wait_batch(c, tx) != 0 || check_fails(c, tx, b) != 0)
        return -1; /* not begun: the unflushed records belong to no transaction */
    /* The records durable before the transaction that they undo begins. */
    if (gpmlog_flush(wl_log(c, tx), c->h->flusher) != 0 || gpmtx_begin(wl_log(c, tx)) != 0 ||
        (n = flagged_ranges(t, c->h->obj[r].bytes, NULL)) < 0 ||
        wl_dev_copy_ranges(wl_region(c, r)->dev, t->mirror, t->ranges, n, &t->ranges_dev,
                           &t->ranges_dev_cap) != 0 ||
        wl_commit(c, r, t->ranges, n) != 0)
        return -1;
    return undo_commit(c, tx);
}

const struct wl_tx_engine wl_tx_undo_flushed = {
    .name = "undo-flushed", .atomic = 1, .log = WL_OBJ_LOG, .setup = flushed_setup,
    .reset = undo_reset, .batch = flushed_batch, .committed = undo_committed,
    .recover = undo_recover,
};

/* ---- cap-chunks: cap-mm, cap-fs, cap-eadr ---- */

static int chunks_setup(struct wl_ctx *c, int tx, int (*first)(struct wl_ctx *, uint64_t **, size_t *))
{
    size_t chunk;
    return wl_cap_chunk(c, first, &chunk) || alloc_flags(c, tx, chunk) ? -1 : 0;
}

static int chunks_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    struct wl_tx_state *t = state(c, tx);
    int r = region_of(c, tx), n;
    wl_txdev d = wl_tx_dev_base(c, tx);
    d.flags = t->flags_dev;
    d.shift = wl_chunk_shift(t->chunk);
    if (apply(c, b, &d) != 0 || (n = flagged_ranges(t, c->h->obj[r].bytes, t->mirror)) < 0)
        return -1;
    return wl_commit(c, r, t->ranges, n);
}

const struct wl_tx_engine wl_tx_cap_chunks = {
    .name = "cap-chunks", .atomic = 0, .log = WL_OBJ_NONE, .setup = chunks_setup,
    .batch = chunks_batch,
};

/* ---- redo-cpu: cap-delta ---- */

static size_t record_bytes(const struct wl_tx_state *t)
{
    return gpm_redo_record_bytes(t->sz.change_bytes);
}

static uint64_t capacity(const struct wl_tx_state *t)
{
    return t->sz.max_changes ? t->sz.max_changes : 1;
}

static int redo_setup(struct wl_ctx *c, int tx, int (*first)(struct wl_ctx *, uint64_t **, size_t *))
{
    struct wl_tx_state *t = state(c, tx);
    (void)first;
    return wl_dev_alloc(&t->delta_dev,
                        capacity(t) * record_bytes(t) + sizeof(unsigned long long));
}

static wl_delta delta_of(struct wl_tx_state *t)
{
    wl_delta d;
    d.buf = t->delta_dev;
    d.count = (unsigned long long *)((uint8_t *)t->delta_dev + capacity(t) * record_bytes(t));
    d.record_bytes = (uint32_t)record_bytes(t);
    d.cap = capacity(t);
    return d;
}

static int redo_reset(struct wl_ctx *c, int tx)
{
    struct wl_tx_state *t = state(c, tx);
    return gpm_redo_init(&c->h->obj[tx].region, t->sz.change_bytes, capacity(t));
}

static int redo_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    struct wl_tx_state *t = state(c, tx);
    struct wl_obj *o = &c->h->obj[tx];
    wl_txdev d = wl_tx_dev_base(c, tx);
    unsigned long long n = 0;
    uint64_t applied = 0;
    int rc;
    d.delta = delta_of(t);
    if (wl_dev_zero(d.delta.count, sizeof n) != 0 || apply(c, b, &d) != 0 ||
        wl_dev_copy(&n, d.delta.count, sizeof n, 0) != 0)
        return -1;
    if (n > d.delta.cap)
        return gpm_set_error("%s: batch %llu changed %llu records, more than the %llu the "
                             "redo log holds", o->path, (unsigned long long)b, n,
                             (unsigned long long)d.delta.cap);
    if (gpm_redo_log(&o->region, c->h->flusher, d.delta.buf, n, 1, c->stream) != 0)
        return -1;
    c->bytes_persisted += (double)(n * d.delta.record_bytes);
    wl_tx_commit_point(c);
    rc = gpm_redo_commit(&o->region) ||
         gpm_redo_apply(&o->region, wl_region(c, t->sz.region), c->h->flusher, &applied);
    c->bytes_persisted += (double)(applied * t->sz.change_bytes);
    return rc ? -1 : 0;
}

static uint64_t redo_committed(struct wl_ctx *c, int tx)
{
    return gpm_redo_committed(&c->h->obj[tx].region);
}

/* A committed batch that was not applied is applied again. */
static int redo_recover(struct wl_ctx *c, int tx, uint64_t *committed)
{
    struct wl_tx_state *t = state(c, tx);
    struct wl_obj *o = &c->h->obj[tx];
    uint64_t applied = 0;
    if (gpm_redo_check(&o->region, t->sz.change_bytes, capacity(t)) != 0 ||
        gpm_redo_recover(&o->region, wl_region(c, t->sz.region), c->h->flusher, &applied) != 0)
        return -1;
    *committed = gpm_redo_committed(&o->region);
    wl_note(c, "redo_applied=%llu", (unsigned long long)applied);
    return 0;
}

const struct wl_tx_engine wl_tx_redo_cpu = {
    .name = "redo-cpu", .atomic = 1, .log = WL_OBJ_REDO, .setup = redo_setup,
    .reset = redo_reset, .batch = redo_batch, .committed = redo_committed,
    .recover = redo_recover,
};

/* ---- undo-cpu: the CPU counterpart ---- */

static int cpu_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    wl_txdev d = wl_tx_dev_base(c, tx);
    if (gpmtx_begin(wl_log(c, tx)) != 0 || apply(c, b, &d) != 0)
        return -1;
    return undo_commit(c, tx);
}

const struct wl_tx_engine wl_tx_undo_cpu = {
    .name = "undo-cpu", .atomic = 1, .log = WL_OBJ_LOG, .reset = undo_reset,
    .batch = cpu_batch, .committed = undo_committed, .recover = undo_recover,
};

/* ---- volatile: none ---- */

static int volatile_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    wl_txdev d = wl_tx_dev_base(c, tx);
    return apply(c, b, &d);
}

static int volatile_end(struct wl_ctx *c, int tx)
{
    struct wl_obj *o = &c->h->obj[region_of(c, tx)];
    return wl_dev_copy(o->region.host, state(c, tx)->mirror, o->bytes, 0);
}

/* Nothing comes back from the kernels: the batch returns with them queued. */
const struct wl_tx_engine wl_tx_volatile = {
    .name = "volatile", .atomic = 0, .in_flight = 1, .log = WL_OBJ_NONE,
    .batch = volatile_batch, .end = volatile_end,
};
