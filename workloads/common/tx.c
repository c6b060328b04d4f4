/* Transactions of the transactional workloads, written once: a batch of
 * changes to a region, made failure-atomic by the engine the mode table
 * names (tx_engines.c), and what every engine shares: the log's sizes,
 * the batch's device handle, the commit point of crash tests, the row's
 * notes. A workload keeps its kernels, its reference and its layout. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/redo.h"
#include "gpm/tx.h"
#include "harness.h"

static struct wl_tx_state *state(struct wl_ctx *c, int tx) { return c->h->obj[tx].tx; }
int wl_tx_atomic(const struct wl_ctx *c) { return c->m->tx->atomic; }
int wl_tx_in_flight(const struct wl_ctx *c) { return c->m->tx->in_flight; }

uint32_t wl_tx_partitions(const struct wl_ctx *c)
{
    return strcmp(wl_str(c, "log"), "conv") == 0 ? (uint32_t)wl_int(c, "partitions") : 0;
}

/* The undo log's bytes: S->records a slot, each of S->change_bytes and its
 * footer. HCL: a slot a thread of the grid; conv: a slot a partition, each
 * holding what the grid's threads that share it log (on the GPU). */
static size_t undo_bytes(const struct wl_ctx *c, const struct wl_tx_sizes *s)
{
    uint32_t parts = wl_tx_partitions(c);
    uint64_t slots = (uint64_t)s->blocks * (uint64_t)s->threads;
    if (parts)
        slots = (uint64_t)parts *
                (c->m->needs_gpu ? gpmlog_conv_share(parts, (uint32_t)s->blocks,
                                                     (uint32_t)s->threads)
                                 : 1);
    return (size_t)(slots * s->records * gpmtx_record_bytes((uint32_t)s->change_bytes));
}

int wl_tx_layout(struct wl_ctx *c, int tx, const struct wl_tx_sizes *s)
{
    struct wl_obj *o = &c->h->obj[tx];
    const char *kind = wl_str(c, "log");
    uint32_t parts = wl_tx_partitions(c);
    size_t chunk;
    if (o->kind != WL_OBJ_LOG && o->kind != WL_OBJ_REDO && o->kind != WL_OBJ_NONE)
        return gpm_set_error("%s: PM object '%s' is not declared WL_OBJ_TX", c->wl->name,
                             o->name);
    if (strcmp(kind, "hcl") != 0 && strcmp(kind, "conv") != 0)
        return gpm_set_error("--log: unknown log '%s': pass hcl or conv", kind);
    if (wl_cap_chunk_arg(c, &chunk) != 0)
        return -1;
    if (s->change_bytes == 0 || s->change_bytes % 8)
        return gpm_set_error("wl_tx_layout: changes of %zu bytes: a multiple of 8, please",
                             s->change_bytes);
    if (!s->unit || (s->unit & (s->unit - 1)) || s->unit < s->change_bytes)
        return gpm_set_error("wl_tx_layout: a unit of %zu bytes: a power of two of at least "
                             "the %zu bytes of a change, please", s->unit, s->change_bytes);
    if (!o->tx && !(o->tx = calloc(1, sizeof *o->tx)))
        return gpm_set_error("out of memory");
    o->tx->sz = *s;
    o->tx->room = c->h->opt.log_room;
    o->tx->room_from = c->h->opt.log_room_from;
    switch (o->kind) {
    case WL_OBJ_LOG:
        if (parts)
            wl_obj_log_conv(c, tx, undo_bytes(c, s), (int)parts);
        else
            wl_obj_log_hcl(c, tx, undo_bytes(c, s), s->blocks, s->threads);
        break;
    case WL_OBJ_REDO:
        wl_obj_region(c, tx, gpm_redo_bytes(s->change_bytes, s->max_changes ? s->max_changes : 1));
        break;
    default: break; /* no log */
    }
    return 0;
}

int wl_tx_unused(struct wl_ctx *c, int tx)
{
    static const char *const flags[] = {"log", "partitions", "cap-chunk"};
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
        if (wl_given(c, flags[k]))
            return gpm_set_error("--%s: mode %s runs %s without transactions (it keeps no "
                                 "log): drop --%s", flags[k], c->m->name, c->wl->name,
                                 flags[k]);
    c->h->obj[tx].kind = WL_OBJ_NONE;
    return 0;
}

int wl_tx_setup(struct wl_ctx *c, int tx, void *mirror,
                int (*first_changes)(struct wl_ctx *c, uint64_t **offsets, size_t *n))
{
    struct wl_tx_state *t = state(c, tx);
    if (!t)
        return gpm_set_error("%s: wl_tx_setup before wl_tx_layout", c->wl->name);
    if (c->m->needs_gpu && !mirror)
        return gpm_set_error("%s: wl_tx_setup needs the region's device copy in GPU modes",
                             c->wl->name);
    t->mirror = mirror;
    return c->m->tx->setup ? c->m->tx->setup(c, tx, first_changes) : 0;
}

/* The row says which engine ran the batches, whether they were
 * failure-atomic, and through which log. */
static void note_log(struct wl_ctx *c, int tx)
{
    const struct wl_obj *o = &c->h->obj[tx];
    wl_note(c, "tx=%s,atomic=%s", c->m->tx->name, wl_tx_atomic(c) ? "yes" : "no");
    if (o->kind == WL_OBJ_REDO)
        wl_note(c, "redo_records=%llu", (unsigned long long)o->tx->sz.max_changes);
    else if (o->kind == WL_OBJ_LOG) /* its kind is the --log parameter, already in the row */
        wl_note(c, "log_slots=%d",
                o->log_kind == GPMLOG_HCL ? o->log_blocks * o->log_threads : o->log_parts);
}

int wl_tx_reset(struct wl_ctx *c, int tx)
{
    note_log(c, tx);
    return c->m->tx->reset ? c->m->tx->reset(c, tx) : 0;
}

int wl_tx_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    struct wl_tx_state *t = state(c, tx);
    t->room_now = t->room && b >= t->room_from ? t->room : 0;
    t->room_used = 0;
    /* In the order of the batch's kernels, on their stream: no wait. */
    if (t->fails_dev && wl_dev_zero_on(t->fails_dev, 2 * sizeof *t->fails_dev, c->stream) != 0)
        return -1;
    if (c->m->tx->batch(c, tx, b, apply) != 0)
        return -1;
    wl_progress_add(c, 1);
    return 0;
}

uint64_t wl_tx_committed(struct wl_ctx *c, int tx)
{
    return c->m->tx->committed ? c->m->tx->committed(c, tx) : 0;
}

int wl_tx_recover(struct wl_ctx *c, int tx, uint64_t *committed)
{
    if (!c->m->tx->recover)
        return gpm_set_error("%s: mode %s is not failure-atomic: nothing to recover",
                             c->wl->name, c->m->name);
    if (c->m->tx->recover(c, tx, committed) != 0)
        return -1;
    note_log(c, tx);
    return 0;
}

int wl_tx_host_undo(struct wl_ctx *c, int tx, uint32_t slot, uint64_t off, const void *old,
                    uint32_t len)
{
    double bytes = (double)gpmtx_record_bytes(len) + 4; /* the record, and its tail */
    struct wl_tx_state *t = state(c, tx);
    if (c->h->obj[tx].kind != WL_OBJ_LOG)
        return 0;
    if (t->room_now && __atomic_fetch_add(&t->room_used, 1, __ATOMIC_SEQ_CST) >= t->room_now)
        return gpm_set_error("%s: the batch's log is full", c->h->obj[tx].path);
    if (gpmtx_host_log_undo(&c->h->obj[tx].log, slot, off, old, len) != 0)
        return -1;
#pragma omp atomic
    c->bytes_persisted += bytes;
    return 0;
}

wl_txdev wl_tx_dev_base(struct wl_ctx *c, int tx)
{
    struct wl_tx_state *t = state(c, tx);
    return (wl_txdev){.gpu = c->m->needs_gpu, .o = wl_out_of(c), .fails = t->fails_dev,
                      .change_bytes = t->sz.change_bytes, .room = t->room_now,
                      .used = t->fails_dev ? t->fails_dev + 1 : NULL};
}

void wl_tx_commit_point(struct wl_ctx *c)
{
    /* --kill commit:N: the N-th transaction of the first repetition's
     * timed work (not a load in prepare()) dies here, every change and
     * undo record durable, its commit not. */
    static long long commits;
    if (c->h->opt.kill.kind == WL_KILL_COMMIT && c->rep == 0 && wl_live_timing(c) &&
        ++commits == c->h->opt.kill.commit) {
        fprintf(stderr, "crash: SIGKILL before commit %lld\n", commits);
        fflush(NULL);
        kill(getpid(), SIGKILL);
    }
}
