/* libgpm device API: what a kernel uses to write PM and make it durable.
 *
 * A store to PM followed by gpm_persist() is durable once gpm_persist()
 * returns, provided the host bracketed the launch with gpm_persist_begin()
 * and gpm_persist_end() (which handle DDIO where it must be handled). */
#ifndef GPM_GPM_CUH
#define GPM_GPM_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpm/gpm.h"
#include "gpm/trace.h"

/* ---- the trace and the mutants (gpm/trace.h) ----
 * Each compiled file has its own copy of the control block: without
 * relocatable device code no device variable is shared between files, so
 * each registers how to set its copy, and libgpm sets them all. Untraced
 * and unmutated, a store or persist pays one uniform load and branch. */
static __constant__ gpm_dtrace_ctl gpm_dctl_;

static int gpm_dctl_set_(const gpm_dtrace_ctl *c)
{
    return cudaMemcpyToSymbol(gpm_dctl_, c, sizeof *c) == cudaSuccess ? 0 : -1;
}

__attribute__((constructor)) static void gpm_dctl_register_(void)
{
    gpm_dtrace_register(gpm_dctl_set_);
}

/* The record of one store (VAL: its LEN <= 16 bytes) or fence. The ring's
 * slot is free once the host has taken the record SEQ - capacity; the
 * host thread that takes them never waits on the GPU, so a full ring only
 * slows the kernel. */
static __device__ __noinline__ void gpm_drecord(unsigned kind, const void *p, unsigned len,
                                               const void *val, const char *file,
                                               unsigned line)
{
    const gpm_dtrace_ctl *c = &gpm_dctl_;
    unsigned long long seq, t0, t, grid, block, thread;
    gpm_drec *r;
    seq = atomicAdd(c->next, 1ull);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (seq - *c->taken > c->mask) {
        __nanosleep(10000u);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 60000000000ull) { /* a minute: no host takes them */
            atomicAdd(c->lost, 1ull);
            return;
        }
    }
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
    block = blockIdx.x + (unsigned long long)gridDim.x *
                             (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    r = &c->ring[seq & c->mask];
    r->addr = (unsigned long long)p;
    r->thread = 1ull << 63 | (grid & 0x1fffffull) << 42 | (block & 0xffffffffull) << 10 |
                (thread & 0x3ffull);
    r->file = (unsigned long long)file;
    r->line = line;
    r->kind = kind;
    r->len = len;
    for (unsigned i = 0; i < len; i++)
        r->val[i] = ((const unsigned char *)val)[i];
    __threadfence_system(); /* the record before its ready word */
    *(volatile unsigned long long *)&r->ready = seq + 1;
}

/* Is the persist at FILE:LINE the one GPM_MUTATE removes? FILE matches
 * whole trailing path components of the name, as on the host. */
static __device__ __forceinline__ int gpm_dmutated(const char *file, unsigned line)
{
    const char *m = gpm_dctl_.mutate_file;
    unsigned n = 0, k = 0;
    if (gpm_dctl_.mutate_line != line)
        return 0;
    while (file[n])
        n++;
    while (m[k])
        k++;
    if (k == 0 || k > n)
        return 0;
    for (unsigned i = 0; i < k; i++)
        if (file[n - k + i] != m[i])
            return 0;
    return k == n || file[n - k - 1] == '/';
}

#define GPM_DTRACE_STORE(p, v)                                                         \
    do {                                                                               \
        if (gpm_dctl_.ring)                                                            \
            gpm_drecord(GPM_DREC_STORE, (p), sizeof(v), &(v), file, line);             \
    } while (0)

/* Waits until this thread's prior writes are visible to the whole system,
 * i.e. have reached the CPU's memory controllers over PCIe. Each call is a
 * persist point named by its line (gpm_persist() gives it). */
__device__ __forceinline__ void gpm_persist_at(const char *file, unsigned line)
{
    if (gpm_dctl_.on) {
        if (gpm_dmutated(file, line)) {
            /* Removed: recorded where it would have run (GPM_TR_REMOVED). */
            if (gpm_dctl_.ring)
                gpm_drecord(GPM_DREC_REMOVED, NULL, 0, NULL, file, line);
            return;
        }
        __threadfence_system();
        /* After the fence: the thread's stores before it are durable. */
        if (gpm_dctl_.ring)
            gpm_drecord(GPM_DREC_FENCE, NULL, 0, NULL, file, line);
        return;
    }
    __threadfence_system();
}
#define gpm_persist() gpm_persist_at(__FILE__, __LINE__)

/* Stores that the compiler may neither drop nor merge with later ones: a
 * persist protocol depends on each store reaching PM in program order
 * relative to the fences around it. Each takes its caller's line (the
 * macros below), which names it in the trace. */
__device__ __forceinline__ void gpm_store_u32_at(uint32_t *p, uint32_t v, const char *file,
                                                 unsigned line)
{
    asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
    GPM_DTRACE_STORE(p, v);
}

__device__ __forceinline__ void gpm_store_u64_at(uint64_t *p, uint64_t v, const char *file,
                                                 unsigned line)
{
    asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
    GPM_DTRACE_STORE(p, v);
}

/* 16-byte store; P must be 16-byte aligned. */
__device__ __forceinline__ void gpm_store_v4_at(uint4 *p, uint4 v, const char *file,
                                                unsigned line)
{
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
    GPM_DTRACE_STORE(p, v);
}
#define gpm_store_u32(p, v) gpm_store_u32_at((p), (v), __FILE__, __LINE__)
#define gpm_store_u64(p, v) gpm_store_u64_at((p), (v), __FILE__, __LINE__)
#define gpm_store_v4(p, v) gpm_store_v4_at((p), (v), __FILE__, __LINE__)

/* Plain stores into PM (the compiler may merge or reorder them: for
 * stores whose durability the CPU's flush or a later persist provides),
 * seen by the trace. */
#define GPM_PUT_AT(name, type)                                                         \
    __device__ __forceinline__ void name##_at(type *p, type v, const char *file,       \
                                              unsigned line)                           \
    {                                                                                  \
        *p = v;                                                                        \
        GPM_DTRACE_STORE(p, v);                                                        \
    }
GPM_PUT_AT(gpm_put_u8, uint8_t)
GPM_PUT_AT(gpm_put_u32, uint32_t)
GPM_PUT_AT(gpm_put_u64, uint64_t)
GPM_PUT_AT(gpm_put_v4, uint4)
#define gpm_put_u8(p, v) gpm_put_u8_at((p), (v), __FILE__, __LINE__)
#define gpm_put_u32(p, v) gpm_put_u32_at((p), (v), __FILE__, __LINE__)
#define gpm_put_u64(p, v) gpm_put_u64_at((p), (v), __FILE__, __LINE__)
#define gpm_put_v4(p, v) gpm_put_v4_at((p), (v), __FILE__, __LINE__)

/* Compare-and-swap of an 8-byte word of PM, atomic among the GPU's threads:
 * the old value (EXPECTED where it swapped). Like a store, a swap is
 * durable once a later gpm_persist of this thread returns; until then a
 * crash may keep the word's old value. The trace records a swap that
 * happened as a store of DESIRED, which is how gpm-check's models treat it. */
__device__ __forceinline__ uint64_t gpm_cas_u64_at(uint64_t *p, uint64_t expected,
                                                   uint64_t desired, const char *file,
                                                   unsigned line)
{
    uint64_t old = atomicCAS((unsigned long long *)p, (unsigned long long)expected,
                             (unsigned long long)desired);
    if (old == expected)
        GPM_DTRACE_STORE(p, desired);
    return old;
}
#define gpm_cas_u64(p, e, d) gpm_cas_u64_at((p), (e), (d), __FILE__, __LINE__)

__device__ __forceinline__ uint32_t gpm_load_u32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ uint64_t gpm_load_u64(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* Grid-wide copy/fill for use inside a kernel: thread (rank of NTHREADS)
 * does its share with 16-byte stores where DST and SRC allow, so a warp's
 * stores coalesce into whole 128-byte lines. Not followed by a persist:
 * call gpm_persist() after it where durability is needed. */
__device__ __forceinline__ void gpm_memcpy_part_at(void *dst, const void *src, size_t n,
                                                   size_t rank, size_t nthreads,
                                                   const char *file, unsigned line)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if ((((uintptr_t)d | (uintptr_t)s) & 15) == 0) {
        size_t nv = n / 16;
        for (size_t i = rank; i < nv; i += nthreads)
            gpm_store_v4_at((uint4 *)d + i, ((const uint4 *)s)[i], file, line);
        for (size_t i = nv * 16 + rank; i < n; i += nthreads)
            gpm_put_u8_at(d + i, s[i], file, line);
    } else {
        for (size_t i = rank; i < n; i += nthreads)
            gpm_put_u8_at(d + i, s[i], file, line);
    }
}
#define gpm_memcpy_part(dst, src, n, rank, nthreads)                                   \
    gpm_memcpy_part_at((dst), (src), (n), (rank), (nthreads), __FILE__, __LINE__)

__device__ __forceinline__ void gpm_memset_part_at(void *dst, uint8_t byte, size_t n,
                                                   size_t rank, size_t nthreads,
                                                   const char *file, unsigned line)
{
    uint8_t *d = (uint8_t *)dst;
    uint32_t w = byte * 0x01010101u;
    if (((uintptr_t)d & 15) == 0) {
        size_t nv = n / 16;
        for (size_t i = rank; i < nv; i += nthreads)
            gpm_store_v4_at((uint4 *)d + i, make_uint4(w, w, w, w), file, line);
        for (size_t i = nv * 16 + rank; i < n; i += nthreads)
            gpm_put_u8_at(d + i, byte, file, line);
    } else {
        for (size_t i = rank; i < n; i += nthreads)
            gpm_put_u8_at(d + i, byte, file, line);
    }
}
#define gpm_memset_part(dst, byte, n, rank, nthreads)                                  \
    gpm_memset_part_at((dst), (byte), (n), (rank), (nthreads), __FILE__, __LINE__)

/* The calling thread's rank and the grid's size, for the *_part helpers. */
__device__ __forceinline__ size_t gpm_grid_rank(void)
{
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ size_t gpm_grid_threads(void)
{
    return (size_t)gridDim.x * blockDim.x;
}

/* Host code: 0 if E is cudaSuccess, else -1 with gpm_last_error() "WHAT:
 * <CUDA's error string>". */
static inline int gpm_cuda_ok(cudaError_t e, const char *what)
{
    return e == cudaSuccess ? 0 : gpm_set_error("%s: %s", what, cudaGetErrorString(e));
}

#endif
