/* libgpm undo logs, device side. A kernel takes a gpmlog_dev by value (from
 * gpmlog_device()) and calls:
 *
 *   gpmlog_insert(log, src, size, slot)  append an entry and make it durable
 *   gpmlog_read(log, dst, size, slot)    copy the newest entry out
 *   gpmlog_remove(log, size, slot)       drop the newest entry (durably)
 *   gpmlog_clear(log, slot)              drop every entry of the slot
 *
 * SLOT -1 derives it from the calling thread: in HCL the thread's own slot
 * from (block, warp, lane); in a conventional log partition
 * blockIdx % partitions, or the global warp % partitions where there are
 * more partitions than blocks (gpmlog_conv_slot). An explicit SLOT picks a
 * partition (conventional) or another thread's slot (HCL, e.g. a recovery
 * kernel of another shape).
 * Each returns 0, or -1 when the slot is out of range, full, or holds fewer
 * bytes than asked for.
 *
 * Insert order, the whole failure-atomicity argument: the entry's chunks are
 * stored and persisted, then the tail is bumped and persisted. Recovery
 * counts only what the tail covers, so a torn entry is never seen.
 *
 * A handle from gpmlog_device_sbrp() orders each by oFences instead.
 * A handle from gpmlog_device_unfenced() stores in the same order but
 * persists nothing: the CPU makes the log durable afterwards with
 * gpmlog_flush() (see gpm/log.h for the protocol). */
#ifndef GPM_LOG_CUH
#define GPM_LOG_CUH

#include "gpm/gpm.cuh"
#include "gpm/log.h"
#include "gpm/sbrp.cuh"

__device__ __forceinline__ uint32_t gpmlog_linear_thread(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ uint32_t gpmlog_linear_block(void)
{
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

/* The slot SLOT names, or the caller's own; UINT32_MAX if out of range. */
__device__ __forceinline__ uint32_t gpmlog_slot_of(const gpmlog_dev *log, int slot)
{
    uint32_t s;
    if (slot >= 0) {
        s = (uint32_t)slot;
    } else if (log->g.kind == GPMLOG_HCL) {
        uint32_t t = gpmlog_linear_thread(), b = gpmlog_linear_block();
        if (b >= log->g.blocks || t >= log->g.threads)
            return UINT32_MAX;
        s = gpmlog_hcl_slot(&log->g, b, t / GPMLOG_WARP, t % GPMLOG_WARP);
    } else {
        uint32_t wpb = gpmlog_warps_per_block(blockDim.x * blockDim.y * blockDim.z);
        s = gpmlog_conv_slot(log->g.n_slots, gridDim.x * gridDim.y * gridDim.z, wpb,
                             gpmlog_linear_block(), gpmlog_linear_thread() / GPMLOG_WARP);
    }
    return s < log->g.n_slots ? s : UINT32_MAX;
}

__device__ __forceinline__ uint32_t *gpmlog_pm_tail(const gpmlog_dev *log, uint32_t s)
{
    return (uint32_t *)(log->pm + gpmlog_tail_off(&log->g, s));
}

__device__ __forceinline__ uint32_t *gpmlog_pm_word(const gpmlog_dev *log, uint32_t s,
                                                   uint32_t pos)
{
    uint64_t off = log->g.kind == GPMLOG_HCL ? gpmlog_hcl_chunk_off(&log->g, s, pos / 4u)
                                             : gpmlog_conv_off(&log->g, s, pos);
    return (uint32_t *)(log->pm + off);
}

/* Persists the calling thread's prior stores, if the handle is fenced (an
 * SBRP handle's orders them before its later ones): a macro, so that each
 * use is its own persist point (gpm/trace.h). */
#define gpmlog_fence(log)                                                              \
    do {                                                                               \
        if ((log)->fenced == GPMLOG_OFENCES)                                           \
            gpm_ofence();                                                              \
        else if ((log)->fenced)                                                        \
            gpm_persist();                                                             \
    } while (0)

/* Moves the tail of a slot the caller owns: PM (persisted if fenced), then
 * the device copy. */
__device__ __forceinline__ int gpmlog_set_tail_owned(const gpmlog_dev *log, uint32_t s,
                                                     uint32_t t)
{
    gpm_store_u32(gpmlog_pm_tail(log, s), t);
    gpmlog_fence(log);
    gpm_store_u32(log->tails + s, t);
    return 0;
}

/* The slot body of an insert, with the slot already owned by the caller. */
__device__ __forceinline__ int gpmlog_append_owned(const gpmlog_dev *log, uint32_t s,
                                                   const void *src, uint32_t size)
{
    uint32_t t = gpm_load_u32(log->tails + s);
    uint32_t n = gpmlog_round4(size);
    if (size == 0 || n > log->g.slot_bytes - t)
        return -1;
    /* Lane L of a warp stores its chunk k while the other lanes store
     * theirs: HCL places them in one 128-byte line. */
    for (uint32_t k = 0; k < n / 4u; k++)
        gpm_store_u32(gpmlog_pm_word(log, s, t + 4u * k), gpmlog_chunk_of(src, size, k));
    gpmlog_fence(log);
    return gpmlog_set_tail_owned(log, s, t + n);
}

/* Waiting for a partition lock: exponential backoff (sm_70+), so that
 * thousands of waiters do not saturate the atomic unit that the holder
 * needs to release the lock. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define GPMLOG_BACKOFF(ns)                                                             \
    do {                                                                               \
        __nanosleep(ns);                                                               \
        if ((ns) < 2048u)                                                              \
            (ns) *= 2u;                                                                \
    } while (0)
#else
#define GPMLOG_BACKOFF(ns) ((void)(ns))
#endif

/* Runs BODY on partition S under its spin lock (test, then test-and-set).
 * The whole critical section sits inside the branch that won the lock, so
 * lanes of one warp that lose never spin while the winner waits to be
 * scheduled (no deadlock even where a warp's threads run in lockstep). */
#define GPMLOG_LOCKED(log, s, body)                                                    \
    do {                                                                               \
        int gpmlog_done_ = 0;                                                          \
        unsigned gpmlog_ns_ = 32u;                                                     \
        while (!gpmlog_done_) {                                                        \
            if (gpm_load_u32((const uint32_t *)((log)->locks + (s))) == 0 &&           \
                atomicCAS((log)->locks + (s), 0, 1) == 0) {                            \
                __threadfence();                                                       \
                body;                                                                  \
                __threadfence();                                                       \
                atomicExch((log)->locks + (s), 0);                                     \
                gpmlog_done_ = 1;                                                      \
            } else {                                                                   \
                GPMLOG_BACKOFF(gpmlog_ns_);                                            \
            }                                                                          \
        }                                                                              \
    } while (0)

__device__ __forceinline__ int gpmlog_insert(gpmlog_dev log, const void *src, uint32_t size,
                                             int slot)
{
    uint32_t s = gpmlog_slot_of(&log, slot);
    int rc = -1;
    if (s == UINT32_MAX)
        return -1;
    if (log.g.kind == GPMLOG_HCL)
        return gpmlog_append_owned(&log, s, src, size);
    GPMLOG_LOCKED(&log, s, rc = gpmlog_append_owned(&log, s, src, size));
    return rc;
}

/* Copies the newest SIZE-byte entry of the slot into DST. */
__device__ __forceinline__ int gpmlog_read(gpmlog_dev log, void *dst, uint32_t size, int slot)
{
    uint32_t s = gpmlog_slot_of(&log, slot), t, n = gpmlog_round4(size);
    uint8_t *d = (uint8_t *)dst;
    if (s == UINT32_MAX || size == 0)
        return -1;
    t = gpm_load_u32(log.tails + s);
    if (t < n)
        return -1;
    for (uint32_t k = 0; k < n / 4u; k++) {
        uint32_t w = gpm_load_u32(gpmlog_pm_word(&log, s, t - n + 4u * k));
        for (uint32_t i = 0; i < 4u && 4u * k + i < size; i++)
            d[4u * k + i] = (uint8_t)(w >> (8u * i));
    }
    return 0;
}

__device__ __forceinline__ int gpmlog_remove(gpmlog_dev log, uint32_t size, int slot)
{
    uint32_t s = gpmlog_slot_of(&log, slot), n = gpmlog_round4(size);
    int rc = -1;
    if (s == UINT32_MAX || size == 0)
        return -1;
    if (log.g.kind == GPMLOG_HCL) {
        uint32_t t = gpm_load_u32(log.tails + s);
        return t < n ? -1 : gpmlog_set_tail_owned(&log, s, t - n);
    }
    GPMLOG_LOCKED(&log, s, {
        uint32_t t = gpm_load_u32(log.tails + s);
        rc = t < n ? -1 : gpmlog_set_tail_owned(&log, s, t - n);
    });
    return rc;
}

__device__ __forceinline__ int gpmlog_clear(gpmlog_dev log, int slot)
{
    uint32_t s = gpmlog_slot_of(&log, slot);
    int rc = -1;
    if (s == UINT32_MAX)
        return -1;
    if (log.g.kind == GPMLOG_HCL)
        return gpmlog_set_tail_owned(&log, s, 0);
    GPMLOG_LOCKED(&log, s, rc = gpmlog_set_tail_owned(&log, s, 0));
    return rc;
}

#endif
