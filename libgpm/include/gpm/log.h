/* libgpm undo logs, host side: create, open, inspect and reset a PM-resident
 * log that kernels append to with the device API in gpm/log.cuh.
 *
 *   gpmlog_create_conv(log, path, size, n_partitions, flags)
 *       N partitions, each appended under a lock: small metadata logged by
 *       one thread of a block.
 *   gpmlog_create_hcl(log, path, size, blocks, threads, flags)
 *       hierarchical coalesced logging: one lock-free slot per thread of a
 *       BLOCKS x THREADS grid, entries striped so a warp fills whole lines.
 *   gpmlog_open(log, path, flags) / gpmlog_close(log)
 *
 * SIZE is the data capacity of the whole log, divided evenly among the
 * partitions or threads. FLAGS is 0, or GPM_HOST_ONLY for CPU tools and tests
 * (no CUDA: the device API is then unavailable). create never touches an
 * existing file; open validates the header and every tail and writes
 * nothing. All return 0, or -1 with a one-line gpm_last_error(). */
#ifndef GPM_LOG_H
#define GPM_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpm/cap.h"
#include "gpm/gpm.h"
#include "gpm/log_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a kernel receives, by value (see gpm/log.cuh). */
enum { GPMLOG_PERSISTS = 1, GPMLOG_OFENCES };
typedef struct gpmlog_dev {
    uint8_t *pm;       /* device pointer to the start of the log file */
    uint32_t *tails;   /* device-memory copy of the tails (PM holds the truth) */
    int *locks;        /* one spin lock per conventional partition, device memory */
    int fenced;        /* GPMLOG_PERSISTS: each operation persists (gpm_persist);
                          GPMLOG_OFENCES: orders by SBRP's oFence (gpm/sbrp.cuh);
                          0: plain stores that the CPU makes durable afterwards
                          (gpmlog_flush) */
    gpmlog_geom g;
} gpmlog_dev;

typedef struct gpmlog {
    gpm_region region;
    gpmlog_header hdr;
    gpmlog_geom g;
    uint32_t *tails_dev;  /* NULL with GPM_HOST_ONLY */
    int *locks_dev;
    int tx_clean;         /* no stale entries can be in the log: it was created, reset,
                             recovered or committed since it was opened (gpm/tx.h) */
} gpmlog;

int gpmlog_create_conv(gpmlog *log, const char *path, size_t size, int n_partitions, int flags);
int gpmlog_create_hcl(gpmlog *log, const char *path, size_t size, int blocks, int threads,
                      int flags);
int gpmlog_open(gpmlog *log, const char *path, int flags);
/* Unmaps and frees; the file stays. Safe on a zeroed or closed log. */
void gpmlog_close(gpmlog *log);

/* The handle kernels take: every insert, remove and clear persists its
 * entry and its tail before returning (modes gpm and gpm-eadr). */
gpmlog_dev gpmlog_device(const gpmlog *log);

/* The same log for a kernel written for SBRP: each operation orders its
 * entry before its tail, and both before the thread's later persists, by
 * an oFence, which makes nothing durable by itself: the kernel's dFence
 * (or a later persist that needs them) does. */
gpmlog_dev gpmlog_device_sbrp(const gpmlog *log);

/* The same log without fences (mode gpm-ndp: DDIO stays on and the CPU
 * makes kernel stores durable): operations store entries and tails on PM
 * and keep the device copy of the tails in step, but persist nothing. An
 * undo log written this way protects data only once the CPU has flushed it:
 *
 *   1. logging kernel, unfenced: logs the old values, touches no data;
 *   2. gpmlog_flush(log, f): every logged entry and tail is durable;
 *   3. update kernel, unfenced: stores the new values;
 *   4. the CPU flushes the updated ranges (gpm_flusher_persist).
 *
 * The log is durable before any data is touched. A transaction (gpm/tx.h)
 * begins between 2 and 3: before the flush, a tail may reach PM ahead of
 * its entry (a cache line written back early), and recovery must not
 * trust such a log; it then finds the transaction inactive and only
 * truncates. */
gpmlog_dev gpmlog_device_unfenced(const gpmlog *log);

/* Makes durable, from the CPU, every entry that the tails cover and the
 * tails themselves, with one drain per flushing thread (F: a pool of CPU
 * threads; NULL: the calling thread alone). Call after the kernels that
 * wrote LOG unfenced have finished (cudaDeviceSynchronize) and with none
 * running. Fails, flushing nothing, if a tail is not one the log could
 * hold. */
int gpmlog_flush(gpmlog *log, gpm_flusher *f);

/* Empties every slot: every tail on PM zero and durable when it returns
 * (the entries stay but no longer count; only the lines that held a
 * non-zero tail are written and flushed), and the device copy zeroed,
 * waited for. Call with no kernel using LOG, and with every tail store
 * already durable (each handle's protocol makes it so: see above). */
int gpmlog_reset(gpmlog *log);
/* The same, with the device copy zeroed on STREAM (a cudaStream_t passed
 * as void *) and not waited for: the kernels queued on STREAM afterwards
 * see zero tails, and so does work on the legacy stream if STREAM is a
 * blocking one; other streams must wait for STREAM first. PM is as
 * gpmlog_reset leaves it. NULL: exactly gpmlog_reset. */
int gpmlog_reset_on(gpmlog *log, void *stream);

/* Bytes in use in SLOT, as persisted on PM. */
uint32_t gpmlog_tail(const gpmlog *log, uint32_t slot);

/* CPU-side append with the same layout and order as the kernels (entry,
 * persist, tail, persist): for tools and tests on machines without a GPU.
 * Only with no kernel using LOG. */
int gpmlog_host_insert(gpmlog *log, uint32_t slot, const void *src, uint32_t size);

/* Why a header is rejected, in words. */
const char *gpmlog_check_str(int check);

/* Prints what the log file at PATH holds (geometry, tails, entries per slot).
 * Returns 0 printed, 1 not a log file, -1 error (gpm_last_error). */
int gpmlog_inspect(FILE *out, const char *path);

#ifdef __cplusplus
}
#endif

#endif
