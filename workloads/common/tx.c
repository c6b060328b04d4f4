/* Transactions of the transactional workloads, written once: a batch of
 * updates to a region, undo-logged in a log object, made failure-atomic by
 * libgpm's commit protocol (gpm/tx.h) in the order each mode needs, and
 * undone after a crash. The CAP modes log nothing: as in the paper, they
 * are not failure-atomic (the row says atomic=no). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpm/log_layout.h"
#include "gpm/tx.h"
#include "wl.h"

static const char *const log_kinds[] = {"hcl", "conv", NULL};

int wl_tx_atomic(const struct wl_ctx *c)
{
    return c->m->kernels_write_pm || c->m->engine == WL_ENGINE_CPU;
}

/* The row says whether the run was failure-atomic, and through which log. */
static void note_log(struct wl_ctx *c, int log)
{
    const struct wl_obj *o = &c->obj[log];
    if (!wl_tx_atomic(c))
        wl_note(c, "atomic=no");
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
    note_log(c, log);
    return wl_tx_atomic(c) ? gpmtx_reset(wl_log(c, log)) : 0;
}

/* Modes whose log records are durable as they are appended begin before
 * the batch logs; gpm-ndp begins once the CPU has flushed the log. */
static int begins_early(const struct wl_ctx *c)
{
    return c->m->fences || c->m->engine == WL_ENGINE_CPU;
}

int wl_tx_begin(struct wl_ctx *c, int log)
{
    return wl_tx_atomic(c) && begins_early(c) ? gpmtx_begin(wl_log(c, log)) : 0;
}

int wl_tx_logged(struct wl_ctx *c, int log)
{
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
    return wl_tx_atomic(c) ? gpmtx_commit(wl_log(c, log)) : 0;
}

uint64_t wl_tx_committed(struct wl_ctx *c, int log)
{
    return wl_tx_atomic(c) ? gpmtx_committed(wl_log(c, log)) : 0;
}

int wl_tx_recover(struct wl_ctx *c, int log, int region, uint64_t *committed)
{
    gpmtx_stats st;
    memset(&st, 0, sizeof st);
    if (wl_tx_atomic(c) && gpmtx_recover(wl_log(c, log), wl_region(c, region), &st) != 0)
        return -1;
    *committed = wl_tx_committed(c, log);
    note_log(c, log);
    wl_note(c, "tx_was_active=%d,undone=%llu", st.was_active, (unsigned long long)st.undone);
    return 0;
}
