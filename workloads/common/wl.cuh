/* Device side of the harness: stores of a workload's output that follow the
 * mode, so one kernel serves every mode. Where the mode fences (gpm,
 * gpm-eadr) a store is a gpm_store_* that the compiler may neither drop nor
 * merge, and wl_persist is gpm_persist; elsewhere (gpm-ndp, the CAP modes)
 * they are a plain store and nothing. The flag is uniform across the grid,
 * so the branch costs no divergence. */
#ifndef WL_CUH
#define WL_CUH

#include "gpm/gpm.cuh"
#include "wl.h"

__device__ __forceinline__ void wl_store_u32(wl_out o, uint32_t *p, uint32_t v)
{
    if (o.fence)
        gpm_store_u32(p, v);
    else
        *p = v;
}

__device__ __forceinline__ void wl_store_u64(wl_out o, uint64_t *p, uint64_t v)
{
    if (o.fence)
        gpm_store_u64(p, v);
    else
        *p = v;
}

/* P must be 16-byte aligned. */
__device__ __forceinline__ void wl_store_v4(wl_out o, uint4 *p, uint4 v)
{
    if (o.fence)
        gpm_store_v4(p, v);
    else
        *p = v;
}

/* Blocks of THREADS for ITEMS items, at least one and at most MAX_BLOCKS:
 * the kernels' grid-stride loops take what one launch does not cover. */
static inline unsigned wl_blocks(uint64_t items, unsigned threads, unsigned max_blocks)
{
    uint64_t b = (items + threads - 1) / threads;
    return b < 1 ? 1u : b > max_blocks ? max_blocks : (unsigned)b;
}

__device__ __forceinline__ void wl_persist(wl_out o)
{
    if (o.fence)
        gpm_persist();
}

/* cap-delta: records that offset OFF of the region now holds the
 * record_bytes - 8 bytes at SRC (8-byte aligned). A put past the buffer's
 * capacity is counted and not stored: wl_tx_logged reports it. Outside
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

#endif
