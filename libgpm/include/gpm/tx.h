/* Transactions on a libgpm undo log, host side: the commit point, and the
 * recovery that undoes an interrupted transaction. Kernels log old values
 * with gpmtx_log_undo() (gpm/tx.cuh).
 *
 * The log file's header page holds one transaction word,
 * (committed << 1) | active (gpm/tx_layout.h), changed with one 8-byte
 * atomic store that is persisted before the call returns. A transaction:
 *
 *   modes gpm, gpm-eadr (gpmlog_device: every log entry is durable before
 *   its kernel goes on):
 *     gpmtx_begin(log);
 *     kernel: gpmtx_log_undo(dev, -1, off, old, len); store the new bytes;
 *             gpm_persist();                       (inside gpm_persist_begin/end)
 *     gpmtx_commit(log);
 *
 *   mode gpm-ndp (gpmlog_device_unfenced: the CPU flushes):
 *     logging kernel: gpmtx_log_undo(...) only, touching no data;
 *     gpmlog_flush(log, f);
 *     gpmtx_begin(log);     after the flush: see gpmlog_device_unfenced()
 *     update kernel: store the new bytes;
 *     CPU flush of the updated ranges (gpm_flusher_persist);
 *     gpmtx_commit(log);
 *
 * After a crash, gpmtx_recover() puts the target back as it was before the
 * interrupted transaction, or (none active) just empties the log. A process
 * that opens a log calls gpmtx_recover (or gpmtx_reset, for a fresh run)
 * before its first gpmtx_begin: begin refuses otherwise, as the log may
 * hold entries no transaction owns.
 *
 * One rule for the logging code: log a location at most once per
 * transaction, or always from the same slot. Recovery undoes each slot
 * newest first, but slots in no order among themselves, so the same bytes
 * logged by two slots could be restored to the wrong one of their values.
 *
 * All functions return 0, or -1 with a one-line gpm_last_error(), and must
 * not run while a kernel uses LOG. Not thread-safe for one LOG. */
#ifndef GPM_TX_H
#define GPM_TX_H

#include <stdint.h>

#include "gpm/gpm.h"
#include "gpm/log.h"
#include "gpm/tx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What gpmtx_recover did. */
typedef struct gpmtx_stats {
    int was_active;         /* a transaction was active: its records were undone */
    int on_gpu;             /* the recovery kernel ran (0: the CPU recovered) */
    uint64_t committed;     /* committed transactions, as the word says */
    uint64_t undone;        /* records undone */
    uint64_t undone_bytes;  /* old bytes written back into the target */
    uint64_t dropped_bytes; /* log bytes emptied without undo (no transaction active:
                               a commit whose truncate did not happen) */
} gpmtx_stats;

/* Marks transaction committed + 1 active. Fails if one is already active
 * (run gpmtx_recover first) or if LOG was opened and not yet recovered or
 * reset. */
int gpmtx_begin(gpmlog *log);

/* Commits the active transaction: the word becomes ((committed + 1) << 1),
 * persisted, and only then is the log emptied (gpmlog_reset). A crash
 * between the two leaves an inactive word and stale entries, which recovery
 * ignores and truncates. Every update of the transaction must be durable
 * before this call. */
int gpmtx_commit(gpmlog *log);
/* The same, with the log emptied by gpmlog_reset_on(log, STREAM): the
 * tails on PM are zero and durable when it returns, the device copy is
 * zeroed in STREAM's order, so the next transaction's logging kernels must
 * be queued there. NULL: exactly gpmtx_commit. */
int gpmtx_commit_on(gpmlog *log, void *stream);

/* The word's fields, read from PM. */
uint64_t gpmtx_committed(const gpmlog *log);
int gpmtx_active(const gpmlog *log);

/* Empties the log, then sets the word to 0, both durably: what a fresh run
 * calls, with the target about to be rewritten. */
int gpmtx_reset(gpmlog *log);

/* Recovers after a crash. If a transaction is active, every record is
 * checked first, then undone into TARGET (the region the records' offsets
 * refer to): for each slot, newest first, the old bytes are written and
 * persisted, and only then is the record removed (the tail lowered and
 * persisted), so a crash during recovery leaves a log that a second
 * recovery finishes, undoing idempotently. Then the log is emptied and the
 * word becomes (committed << 1). If none is active, the log is emptied.
 *
 * A record that fails its check or lies outside TARGET stops recovery
 * before anything is written, with a message naming the log file and the
 * slot; both files are left as they were.
 *
 * Runs the recovery kernels (one thread per slot: HCL with the log's own
 * grid, conventional one per partition) when LOG has device state and
 * TARGET is registered with CUDA, and the same logic on the CPU otherwise
 * (logs opened GPM_HOST_ONLY). ST may be NULL. */
int gpmtx_recover(gpmlog *log, const gpm_region *target, gpmtx_stats *st);

/* CPU-side gpmtx_log_undo for tools and tests: appends to SLOT the record
 * of the LEN bytes at OLD, which go back to offset OFF of the target on
 * recovery; same layout and persist order as the kernels. */
int gpmtx_host_log_undo(gpmlog *log, uint32_t slot, uint64_t off, const void *old,
                        uint32_t len);

/* Why a record was refused, in words (enum gpmtx_rec_check). */
const char *gpmtx_rec_str(int check);

#ifdef __cplusplus
}
#endif

#endif
