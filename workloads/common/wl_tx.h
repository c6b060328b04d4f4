/* Transactions, for workloads that declare a WL_OBJ_TX object (gpDB,
 * gpKVS, GPHash). */
#ifndef WL_TX_H
#define WL_TX_H

#include "wl.h"
#include "wl_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- transactions (tx.c, tx_engines.c): batches of updates to a region,
 * each failure-atomic the way the mode's transaction engine makes it (the
 * mode table's tx column) ----
 * A transactional workload declares a WL_OBJ_TX object (its log: an undo
 * log, a redo log or nothing, as the engine needs) and WL_TX_PARAMS among
 * its parameters, sets progress_by = WL_BY_TRANSACTIONS, and:
 *
 *   layout():  wl_tx_layout(c, TX, &sizes)    the log, the changes' sizes
 *   setup():   wl_tx_setup(c, TX, mirror, first_changes)
 *   prepare(): wl_tx_reset(c, TX)             no batch committed
 *   run():     wl_tx_batch(c, TX, b, apply)   for each batch B
 *   recover(): wl_tx_recover(c, TX, &done)    then the batches after DONE
 *
 * APPLY(c, b, d) makes batch B's changes, once, when the engine says:
 *   GPU modes (d->gpu): its kernels change MIRROR, the device copy of the
 *     region (same offsets), and for every change call wl_tx_undo before
 *     it and wl_tx_changed after it; where d->pm is not NULL they also
 *     store the new bytes there with wl_store_* (d->o) and wl_persist
 *     (wl.cuh; wl_tx_undo and wl_tx_changed: wl_tx.cuh). Nothing else:
 *     the engine logs, copies, flushes, commits.
 *     APPLY may return with its kernels queued and not waited for, on
 *     c->stream (NULL: the legacy stream): the engine waits where it must.
 *   the CPU counterpart (!d->gpu): it logs each change's old bytes with
 *     wl_tx_host_undo before making it in the region, and makes its
 *     changes durable with wl_pm_persist before it returns.
 * The engines: undo records in-kernel with fences (gpm, gpm-eadr); undo
 * records unfenced, flushed by the CPU before the changes are copied to PM
 * (gpm-ndp); no log, the CAP copy of the changed chunks (the paper's CAP:
 * not failure-atomic, rows say atomic=no); redo records gathered on the
 * GPU, logged and applied by the CPU (cap-delta); the CPU counterpart's
 * undo records (cpu). */
#define WL_TX_PARAMS                                                                    \
    {.flag = "log", .help = "undo log: hcl (a lock-free slot per logging thread) or conv " \
     "(partitions appended under locks)", .type = WL_STR, .sscale = {"hcl", "hcl", "hcl"}},  \
    {.flag = "partitions", .help = "partitions of the conventional log (--log conv)",     \
     .scale = {64, 64, 64}, .min = 1, .max = 1 << 20},                                    \
    {.flag = "cap-chunk", .help = "CAP: bytes persisted around each change: best "         \
     "(measured) or a power of two", .type = WL_STR, .sscale = {"best", "best", "best"}}

/* The sizes of a transactional log, for wl_tx_layout. */
struct wl_tx_sizes {
    int region;           /* the region the batches change */
    uint64_t records;     /* undo logs: the most undo records (of change_bytes each) one
                             logging slot takes in a batch; the harness sizes the log */
    int blocks, threads;  /* the logging grid: an HCL slot a thread (a CPU counterpart: one
                             block of its threads, rounded up to 32); --log conv:
                             --partitions slots, each shared by its part of the grid */
    size_t change_bytes;  /* the bytes one change sets (a multiple of 8): what wl_tx_changed
                             takes, and a redo record holds */
    uint64_t max_changes; /* redo: the most changes one batch makes */
    size_t unit;          /* gpm-ndp: the bytes around a change that are copied to PM and
                             flushed (a power of two, at least change_bytes) */
};
/* Sizes log object TX (WL_OBJ_TX) for the mode's engine, and checks
 * --log, --partitions and --cap-chunk. In layout(). */
int wl_tx_layout(struct wl_ctx *c, int tx, const struct wl_tx_sizes *s);
/* --log conv's partitions, or 0 for HCL: a CPU counterpart runs at most
 * that many logging threads. */
uint32_t wl_tx_partitions(const struct wl_ctx *c);
/* In layout(), instead of wl_tx_layout: this mode's batches do not go
 * through transactions (WL_BY_MARKERS_OR_TX's marker modes), so object TX
 * keeps nothing and makes no file, and --log, --partitions and --cap-chunk
 * are refused, naming the mode. */
int wl_tx_unused(struct wl_ctx *c, int tx);

/* What a batch's kernels get (by value: wl_tx.cuh's wl_tx_undo, wl_tx_changed). */
typedef struct wl_delta {
    uint8_t *buf;              /* records: an 8-byte offset, then the bytes set there */
    unsigned long long *count; /* records put; those past cap are dropped, and counted */
    uint32_t record_bytes;
    uint64_t cap;
} wl_delta;
typedef struct wl_txdev {
    int gpu;                  /* 1: kernels apply the batch; 0: the CPU counterpart does */
    wl_out o;                 /* how stores to d.pm are made (fenced or not) and counted */
    uint8_t *pm;              /* the region on PM, where the kernels store each change as
                                 well (gpm, gpm-eadr); NULL: they do not */
    gpmlog_dev log;           /* the undo log (log.pm NULL: none) */
    uint32_t *flags;          /* flags[off >> shift] = 1 for each change (gpm-ndp's units,
                                 CAP's chunks); NULL: none */
    uint32_t shift;
    wl_delta delta;           /* cap-delta: each change as a redo record (buf NULL: none) */
    unsigned long long *fails; /* undo records that did not fit, counted by wl_tx_undo */
    uint64_t change_bytes;
    uint64_t room;            /* tests only: the undo records the batch holds (0: no limit), */
    unsigned long long *used; /* and those taken so far */
} wl_txdev;
typedef int (*wl_tx_apply)(struct wl_ctx *c, uint64_t b, const wl_txdev *d);

/* GPU modes: MIRROR is the region's device copy that the kernels keep
 * (the engines copy changes from it); FIRST_CHANGES lists the first
 * batch's changes for --cap-chunk best (see wl_cap_chunk; called only in
 * CAP modes). The CPU counterpart: both NULL. In setup(). */
int wl_tx_setup(struct wl_ctx *c, int tx, void *mirror,
                int (*first_changes)(struct wl_ctx *c, uint64_t **offsets, size_t *n));
/* A fresh table: no transaction, committed count 0 (prepare()); notes the
 * engine and its log in the row. */
int wl_tx_reset(struct wl_ctx *c, int tx);
/* Batch B through the mode's engine, which calls APPLY once. On success
 * the batch is committed (durable, where the engine is atomic) and counted
 * as a unit of progress. A batch whose undo records did not all fit fails
 * with its changes unmade or logged, its transaction left for recovery. */
int wl_tx_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply);
/* Batches committed since the reset (0 where the engine is not atomic). */
uint64_t wl_tx_committed(struct wl_ctx *c, int tx);
/* Is this mode's engine failure-atomic? */
int wl_tx_atomic(const struct wl_ctx *c);
/* May wl_tx_batch return with the batch's kernels still running (on
 * c->stream)? Only where the engine needs nothing back from them (mode
 * none); every other engine waits for them once a batch. */
int wl_tx_in_flight(const struct wl_ctx *c);
/* After a crash (recover()): puts the region back as it was after the
 * last committed batch, gives their number, and notes what it did. */
int wl_tx_recover(struct wl_ctx *c, int tx, uint64_t *committed);
/* The CPU counterpart: logs the LEN old bytes at offset OFF of the region
 * in log slot SLOT (one a thread), durably, before they change; nothing
 * where the engine keeps no log. 0, or -1 (the slot is full: leave them). */
int wl_tx_host_undo(struct wl_ctx *c, int tx, uint32_t slot, uint64_t off, const void *old,
                    uint32_t len); /* thread-safe for distinct slots */
/* The end of a transactional workload's verify. RC is its check of the
 * output (0 right, 1 wrong, -1 not checked). Where the output is right but
 * W counts the log's marker wrong (the log counts COMMITTED of ALL UNITS,
 * "batches"), the verify fails, saying so; where it fails, W is noted.
 * Returns the verify's result. */
int wl_tx_verified(struct wl_ctx *c, int rc, const struct wl_wrong *w, uint64_t committed,
                   uint64_t all, const char *units);

#ifdef __cplusplus
}
#endif

#endif
