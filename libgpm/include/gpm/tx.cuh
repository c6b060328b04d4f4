/* Transactions on a libgpm undo log, device side (the host side and the
 * protocol are in gpm/tx.h):
 *
 *   gpmtx_log_undo(log, slot, off, old, len)
 *       appends the undo record of the LEN bytes at OLD, which recovery
 *       writes back at byte OFF of the target region. SLOT -1: the caller's
 *       own slot (as gpmlog_insert). Returns 0, or -1 when the slot is out
 *       of range or full, or LEN is 0: then nothing was logged, and the
 *       caller must not touch the data.
 *
 * With a fenced handle (gpmlog_device) the record and its tail are durable
 * when the call returns; the caller then stores the new bytes and calls
 * gpm_persist(). With an unfenced handle (gpmlog_device_unfenced) nothing
 * is persisted: the CPU flushes the log (gpmlog_flush) before any kernel
 * touches the data. */
#ifndef GPM_TX_CUH
#define GPM_TX_CUH

#include "gpm/log.cuh"
#include "gpm/tx_layout.h"

/* The record body, with the slot owned by the caller: payload and footer
 * chunks, (persist), tail. Lanes of a warp appending records of one size
 * store each chunk into one 128-byte line (HCL). */
__device__ __forceinline__ int gpmtx_append_owned(const gpmlog_dev *log, uint32_t s,
                                                  uint64_t off, const void *old, uint32_t len)
{
    uint32_t t = gpm_load_u32(log->tails + s), n, k;
    uint64_t h;
    if (len == 0 || len > GPMTX_MAX_LEN ||
        gpmtx_record_bytes(len) > log->g.slot_bytes - t)
        return -1;
    n = gpmlog_round4(len);
    h = gpmtx_check_begin(off, len);
    for (k = 0; k < n / 4u; k++) {
        uint32_t w = gpmtx_old_word(old, len, k);
        gpm_store_u32(gpmlog_pm_word(log, s, t + 4u * k), w);
        h = gpmtx_check_step(h, w);
    }
    for (k = 0; k < 4u; k++)
        gpm_store_u32(gpmlog_pm_word(log, s, t + n + 4u * k),
                      gpmtx_footer_word(off, len, gpmtx_check_end(h), k));
    gpmlog_fence(log);
    return gpmlog_set_tail_owned(log, s, t + n + GPMTX_FOOTER_BYTES);
}

__device__ __forceinline__ int gpmtx_log_undo(gpmlog_dev log, int slot, uint64_t off,
                                              const void *old, uint32_t len)
{
    uint32_t s = gpmlog_slot_of(&log, slot);
    int rc = -1;
    if (s == UINT32_MAX)
        return -1;
    if (log.g.kind == GPMLOG_HCL)
        return gpmtx_append_owned(&log, s, off, old, len);
    GPMLOG_LOCKED(&log, s, rc = gpmtx_append_owned(&log, s, off, old, len));
    return rc;
}

#endif
