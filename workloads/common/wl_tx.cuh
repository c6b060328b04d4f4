/* Device side of a transaction's batch (wl_tx.h: wl_tx_batch): the undo
 * record before a change, and the flag or redo record after it, as the
 * mode's transaction engine needs. */
#ifndef WL_TX_CUH
#define WL_TX_CUH

#include "gpm/tx.cuh"
#include "wl.cuh"
#include "wl_tx.h"

/* cap-delta: records that offset OFF of the region now holds the
 * record_bytes - 8 bytes at SRC (8-byte aligned). A put past the buffer's
 * capacity is counted and not stored: the engine reports it. Outside
 * cap-delta (D.buf NULL) nothing. */
__device__ __forceinline__ void wl_delta_put(wl_delta d, uint64_t off, const void *src)
{
    unsigned long long k;
    uint64_t *dst;
    const uint64_t *s = (const uint64_t *)src;
    if (!d.buf)
        return;
    k = atomicAdd(d.count, 1ull);
    if (k >= d.cap)
        return;
    dst = (uint64_t *)(d.buf + k * d.record_bytes);
    dst[0] = off;
    for (uint32_t i = 1; i < d.record_bytes / 8; i++)
        dst[i] = s[i - 1];
}

/* Before a change of the LEN bytes at offset OFF of the region, whose old
 * value is at OLD: their undo record, where the mode logs (durable when it
 * returns where the mode fences). 0: go on and change them; -1: the log is
 * full: leave them as they are (the batch then fails, and recovery gives
 * back the table as it was before it). */
__device__ __forceinline__ int wl_tx_undo(const wl_txdev *d, uint64_t off, const void *old,
                                          uint32_t len)
{
    if (!d->log.pm)
        return 0;
    if ((d->room && atomicAdd(d->used, 1ull) >= d->room) ||
        gpmtx_log_undo(d->log, -1, off, old, len) != 0) {
        atomicAdd(d->fails, 1ull);
        return -1;
    }
    wl_count(d->o, 0, gpmtx_record_bytes(len) + 4u); /* the record and its tail */
    if (d->log.fenced)
        wl_count(d->o, 1, 2); /* its fences: the record's, the tail's */
    return 0;
}

/* After the change: offset OFF of the device copy now holds the
 * change_bytes at NOW (8-byte aligned). Flags its unit or chunk, or puts
 * it as a redo record, as the engine needs. (Where d->pm is not NULL the
 * kernel also stores the new bytes there, with wl_store_* and wl_persist
 * on d->o, in whatever pattern suits its warps.) */
__device__ __forceinline__ void wl_tx_changed(const wl_txdev *d, uint64_t off, const void *now)
{
    if (d->flags)
        for (uint64_t f = off >> d->shift; f <= (off + d->change_bytes - 1) >> d->shift; f++)
            d->flags[f] = 1u;
    wl_delta_put(d->delta, off, now);
}

#endif
