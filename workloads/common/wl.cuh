/* Device side of the harness: stores of a workload's output that follow the
 * mode, so one kernel serves every mode. Where the mode fences (gpm,
 * gpm-eadr) a store is a gpm_store_* that the compiler may neither drop nor
 * merge, and wl_persist is gpm_persist; elsewhere (gpm-ndp, the CAP modes)
 * they are a plain store and nothing. The flag is uniform across the grid,
 * so the branch costs no divergence. Where they persist, they also count
 * the bytes stored and the persists made, one atomic a warp into counters
 * spread over the SMs, which the harness sums after the work: no workload
 * counts by hand. */
#ifndef WL_CUH
#define WL_CUH

#include "gpm/gpm.cuh"
#include "gpm/sbrp.cuh"
#include "wl.h"
#include "wl_dev.h"

__device__ __forceinline__ unsigned wl_lane(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned wl_sm(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

/* Adds N for each calling thread to counter K (0 bytes, 1 persists): the
 * warp's threads here now add through their lowest lane. */
__device__ __forceinline__ void wl_count(wl_out o, unsigned k, unsigned n)
{
    unsigned m;
    if (!o.acct)
        return;
    m = __activemask();
    if (wl_lane() == (unsigned)(__ffs(m) - 1))
        atomicAdd(&o.acct[k * WL_ACCT_SLOTS + wl_sm() % WL_ACCT_SLOTS],
                  (unsigned long long)__popc(m) * n);
}

/* wl_store_u32_at, wl_store_u64_at, wl_store_v4_at (P 16-byte aligned). */
#define WL_STORE_AT(name, type)                                                        \
    __device__ __forceinline__ void wl_store_##name##_at(wl_out o, type *p, type v,    \
                                                         const char *file,             \
                                                         unsigned line)                \
    {                                                                                  \
        if (o.fence) {                                                                 \
            gpm_store_##name##_at(p, v, file, line);                                   \
            wl_count(o, 0, sizeof v);                                                  \
        } else {                                                                       \
            gpm_put_##name##_at(p, v, file, line);                                     \
        }                                                                              \
    }
WL_STORE_AT(u32, uint32_t)
WL_STORE_AT(u64, uint64_t)
WL_STORE_AT(v4, uint4)
/* The caller's line names each store and persist in the trace. */
#define wl_store_u32(o, p, v) wl_store_u32_at((o), (p), (v), __FILE__, __LINE__)
#define wl_store_u64(o, p, v) wl_store_u64_at((o), (p), (v), __FILE__, __LINE__)
#define wl_store_v4(o, p, v) wl_store_v4_at((o), (p), (v), __FILE__, __LINE__)

/* gpm_cas_u64, a swap that happened counted as a store where the mode
 * persists in-kernel: the old value. */
__device__ __forceinline__ uint64_t wl_cas_u64_at(wl_out o, uint64_t *p, uint64_t expected,
                                                  uint64_t desired, const char *file,
                                                  unsigned line)
{
    uint64_t old = gpm_cas_u64_at(p, expected, desired, file, line);
    if (o.fence && old == expected)
        wl_count(o, 0, 8);
    return old;
}
#define wl_cas_u64(o, p, e, d) wl_cas_u64_at((o), (p), (e), (d), __FILE__, __LINE__)

/* Blocks of THREADS for ITEMS items, at least one and at most MAX_BLOCKS:
 * the kernels' grid-stride loops take what one launch does not cover. */
static inline unsigned wl_blocks(uint64_t items, unsigned threads, unsigned max_blocks)
{
    uint64_t b = (items + threads - 1) / threads;
    return b < 1 ? 1u : b > max_blocks ? max_blocks : (unsigned)b;
}

/* Persists the thread's stores before it; in the SBRP variant (o.sbrp)
 * only orders them before its later ones (an oFence). */
__device__ __forceinline__ void wl_persist_at(wl_out o, const char *file, unsigned line)
{
    if (o.fence) {
        if (o.sbrp)
            gpm_ofence_at(file, line);
        else
            gpm_persist_at(file, line);
        wl_count(o, 1, 1);
    }
}
#define wl_persist(o) wl_persist_at((o), __FILE__, __LINE__)

/* In the SBRP variant, makes the thread's persists durable (a dFence), as
 * the host's commit after the kernel needs; in the epoch model every
 * wl_persist already has, and this is nothing. */
__device__ __forceinline__ void wl_dfence_at(wl_out o, const char *file, unsigned line)
{
    if (o.sbrp) {
        gpm_dfence_at(file, line);
        wl_count(o, 1, 1);
    }
}
#define wl_dfence(o) wl_dfence_at((o), __FILE__, __LINE__)

/* N more units of progress are durable (the caller persisted them first).
 * The count is in device memory (atomics on host memory are not supported
 * over PCIe); the host learns of the first unit, and of the unit that
 * --kill progress:K names, from one plain store each to mapped host
 * memory. The thread whose units reach that target then waits (up to a
 * second) for the host to kill the process, so the kill lands while its
 * kernel still runs. */
__device__ __forceinline__ void wl_progressed(wl_out o, unsigned long long n)
{
    unsigned long long k;
    if (!o.progress)
        return;
    k = atomicAdd(o.progress, n) + n;
    if (k == n) {
        *(volatile unsigned long long *)&o.signal[0] = 1;
        __threadfence_system();
    }
    if (o.stall_at && k >= o.stall_at && k - n < o.stall_at) {
        unsigned long long t0, t;
        *(volatile unsigned long long *)&o.signal[1] = 1;
        __threadfence_system();
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        do {
            __nanosleep(1000000u);
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        } while (t - t0 < 1000000000ull);
    }
}

#endif
