/* Transactions of the transactional workloads, written once: a batch of
 * updates to a region, undo-logged in a log object, made failure-atomic by
 * libgpm's commit protocol (gpm/tx.h) in the order each mode needs, and
 * undone after a crash. The paper's CAP modes log nothing: as in the paper,
 * they are not failure-atomic (the row says atomic=no). cap-delta logs the
 * gathered changes in a redo log (gpm/redo.h) and applies them. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpm/log_layout.h"
#include "gpm/redo.h"
#include "gpm/tx.h"
#include "wl.h"

static const char *const log_kinds[] = {"hcl", "conv", NULL};

int wl_tx_atomic(const struct wl_ctx *c)
{
    return c->m->kernels_write_pm || c->m->engine == WL_ENGINE_CPU ||
           c->m->engine == WL_ENGINE_DELTA;
}

/* The log object is a redo log (cap-delta). */
static int redo(const struct wl_ctx *c, int log) { return c->obj[log].delta_data != 0; }

/* The row says whether the run was failure-atomic, and through which log. */
static void note_log(struct wl_ctx *c, int log)
{
    const struct wl_obj *o = &c->obj[log];
    if (!wl_tx_atomic(c))
        wl_note(c, "atomic=no");
    else if (redo(c, log))
        wl_note(c, "atomic=yes,redo_records=%llu", (unsigned long long)o->delta_cap);
    else /* the log's kind is the --log parameter, already in the row */
        wl_note(c, "atomic=yes,log_slots=%d",
                o->log_kind == GPMLOG_HCL ? o->log_blocks * o->log_threads : o->log_parts);
}

int wl_tx_layout(struct wl_ctx *c, int log, size_t bytes, int blocks, int threads)
{
    const char *kind = wl_str(c, "log");
    int parts = (int)wl_int(c, "partitions");
    if (strcmp(kind, log_kinds[0]) != 0 && strcmp(kind, log_kinds[1]) != 0)
        return gpm_set_error("--log: unknown log '%s': pass hcl or conv", kind);
    if (!wl_tx_atomic(c)) /* nothing is logged: the file is kept small */
        bytes = (size_t)64 * (size_t)(strcmp(kind, "hcl") == 0 ? blocks * threads : parts);
    if (strcmp(kind, "hcl") == 0)
        wl_obj_log_hcl(c, log, bytes, blocks, threads);
    else
        wl_obj_log_conv(c, log, bytes, parts);
    return 0;
}

int wl_tx_reset(struct wl_ctx *c, int log)
{
    struct wl_obj *o = &c->obj[log];
    note_log(c, log);
    if (redo(c, log)) /* the device buffer too, outside the timed work */
        return gpm_redo_init(&o->region, o->delta_data, o->delta_cap) ||
                       !wl_tx_delta_dev(c, log).buf
                   ? -1
                   : 0;
    return wl_tx_atomic(c) ? gpmtx_reset(wl_log(c, log)) : 0;
}

int wl_tx_delta_layout(struct wl_ctx *c, int log, int region, size_t data_bytes,
                       uint64_t capacity)
{
    struct wl_obj *o = &c->obj[log];
    if (c->m->engine != WL_ENGINE_DELTA)
        return 0;
    if (data_bytes == 0 || data_bytes % 8)
        return gpm_set_error("wl_tx_delta_layout: records of %zu bytes: a multiple of 8, please",
                             data_bytes);
    o->kind = WL_OBJ_REGION;
    o->delta_data = data_bytes;
    o->delta_cap = capacity ? capacity : 1;
    o->delta_table = region;
    wl_obj_region(c, log, gpm_redo_bytes(data_bytes, o->delta_cap));
    return 0;
}

wl_delta wl_tx_delta_dev(struct wl_ctx *c, int log)
{
    struct wl_obj *o = &c->obj[log];
    wl_delta d;
    size_t rb = gpm_redo_record_bytes(o->delta_data), bytes = (size_t)o->delta_cap * rb;
    memset(&d, 0, sizeof d);
    if (!redo(c, log))
        return d;
    /* Allocated on first use (wl_tx_reset, or a recovery's first batch). */
    if (!o->delta_dev && wl_dev_alloc(&o->delta_dev, bytes + sizeof *d.count) != 0)
        return d;
    d.buf = o->delta_dev;
    d.count = (unsigned long long *)((uint8_t *)o->delta_dev + bytes);
    d.record_bytes = (uint32_t)rb;
    d.cap = o->delta_cap;
    return d;
}

/* Modes whose log records are durable as they are appended begin before
 * the batch logs; gpm-ndp begins once the CPU has flushed the log. */
static int begins_early(const struct wl_ctx *c)
{
    return c->m->fences || c->m->engine == WL_ENGINE_CPU;
}

int wl_tx_begin(struct wl_ctx *c, int log)
{
    if (redo(c, log)) { /* an empty buffer for the batch's changes */
        wl_delta d = wl_tx_delta_dev(c, log);
        return d.buf ? wl_dev_zero(d.count, sizeof *d.count) : -1;
    }
    return wl_tx_atomic(c) && begins_early(c) ? gpmtx_begin(wl_log(c, log)) : 0;
}

/* cap-delta: the gathered records, durable in the redo log. */
static int log_delta(struct wl_ctx *c, int log)
{
    struct wl_obj *o = &c->obj[log];
    wl_delta d = wl_tx_delta_dev(c, log);
    unsigned long long n = 0;
    if (!d.buf || wl_dev_copy(&n, d.count, sizeof n, 0) != 0)
        return -1;
    if (n > d.cap)
        return gpm_set_error("%s: the batch changed %llu records, more than the %llu the "
                             "redo log holds",
                             o->path, n, (unsigned long long)d.cap);
    if (gpm_redo_log(&o->region, c->flusher, d.buf, n, 1, c->stream) != 0)
        return -1;
    c->bytes_persisted += (double)(n * d.record_bytes);
    return 0;
}

int wl_tx_logged(struct wl_ctx *c, int log)
{
    if (redo(c, log))
        return log_delta(c, log);
    if (!wl_tx_atomic(c) || begins_early(c))
        return 0;
    return wl_log_flush(c, log) != 0 || gpmtx_begin(wl_log(c, log)) != 0 ? -1 : 0;
}

int wl_tx_commit(struct wl_ctx *c, int log)
{
    /* --crash-before-commit N: the N-th transaction of the first repetition
     * dies here, every update and undo record durable, its commit not. */
    static long long commits;
    if (c->opt.crash_before_commit && c->rep == 0 && ++commits == c->opt.crash_before_commit) {
        fprintf(stderr, "crash: SIGKILL before commit %lld\n", commits);
        fflush(NULL);
        kill(getpid(), SIGKILL);
    }
    if (redo(c, log)) {
        struct wl_obj *o = &c->obj[log];
        uint64_t applied = 0;
        int rc = gpm_redo_commit(&o->region) ||
                 gpm_redo_apply(&o->region, wl_region(c, o->delta_table), c->flusher, &applied);
        c->bytes_persisted += (double)(applied * o->delta_data);
        return rc ? -1 : 0;
    }
    return wl_tx_atomic(c) ? gpmtx_commit(wl_log(c, log)) : 0;
}

uint64_t wl_tx_committed(struct wl_ctx *c, int log)
{
    if (redo(c, log))
        return gpm_redo_committed(&c->obj[log].region);
    return wl_tx_atomic(c) ? gpmtx_committed(wl_log(c, log)) : 0;
}

/* cap-delta: a committed batch that was not applied is applied again. */
static int recover_delta(struct wl_ctx *c, int log, uint64_t *committed)
{
    struct wl_obj *o = &c->obj[log];
    uint64_t applied = 0;
    if (gpm_redo_check(&o->region, o->delta_data, o->delta_cap) != 0 ||
        gpm_redo_recover(&o->region, wl_region(c, o->delta_table), c->flusher, &applied) != 0)
        return -1;
    *committed = gpm_redo_committed(&o->region);
    note_log(c, log);
    wl_note(c, "redo_applied=%llu", (unsigned long long)applied);
    return 0;
}

int wl_tx_recover(struct wl_ctx *c, int log, int region, uint64_t *committed)
{
    gpmtx_stats st;
    double t0 = wl_now();
    if (redo(c, log))
        return recover_delta(c, log, committed);
    memset(&st, 0, sizeof st);
    if (wl_tx_atomic(c) && gpmtx_recover(wl_log(c, log), wl_region(c, region), &st) != 0)
        return -1;
    *committed = wl_tx_committed(c, log);
    note_log(c, log);
    /* undo_s: the undo alone; a workload's restore also reloads what the
     * GPU holds (Table 5 gives both). */
    wl_note(c, "tx_was_active=%d,undone=%llu,undo_s=%.3g", st.was_active,
            (unsigned long long)st.undone, wl_now() - t0);
    return 0;
}
