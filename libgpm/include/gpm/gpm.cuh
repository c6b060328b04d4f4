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

/* Waits until this thread's prior writes are visible to the whole system,
 * i.e. have reached the CPU's memory controllers over PCIe. */
__device__ __forceinline__ void gpm_persist(void)
{
    __threadfence_system();
}

/* Stores that the compiler may neither drop nor merge with later ones: a
 * persist protocol depends on each store reaching PM in program order
 * relative to the fences around it. */
__device__ __forceinline__ void gpm_store_u32(uint32_t *p, uint32_t v)
{
    asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void gpm_store_u64(uint64_t *p, uint64_t v)
{
    asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* 16-byte store; P must be 16-byte aligned. */
__device__ __forceinline__ void gpm_store_v4(uint4 *p, uint4 v)
{
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

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
__device__ __forceinline__ void gpm_memcpy_part(void *dst, const void *src, size_t n,
                                                size_t rank, size_t nthreads)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if ((((uintptr_t)d | (uintptr_t)s) & 15) == 0) {
        size_t nv = n / 16;
        for (size_t i = rank; i < nv; i += nthreads)
            gpm_store_v4((uint4 *)d + i, ((const uint4 *)s)[i]);
        for (size_t i = nv * 16 + rank; i < n; i += nthreads)
            d[i] = s[i];
    } else {
        for (size_t i = rank; i < n; i += nthreads)
            d[i] = s[i];
    }
}

__device__ __forceinline__ void gpm_memset_part(void *dst, uint8_t byte, size_t n,
                                                size_t rank, size_t nthreads)
{
    uint8_t *d = (uint8_t *)dst;
    uint32_t w = byte * 0x01010101u;
    if (((uintptr_t)d & 15) == 0) {
        size_t nv = n / 16;
        for (size_t i = rank; i < nv; i += nthreads)
            gpm_store_v4((uint4 *)d + i, make_uint4(w, w, w, w));
        for (size_t i = nv * 16 + rank; i < n; i += nthreads)
            d[i] = byte;
    } else {
        for (size_t i = rank; i < n; i += nthreads)
            d[i] = byte;
    }
}

/* The calling thread's rank and the grid's size, for the *_part helpers. */
__device__ __forceinline__ size_t gpm_grid_rank(void)
{
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ size_t gpm_grid_threads(void)
{
    return (size_t)gridDim.x * blockDim.x;
}

#endif
