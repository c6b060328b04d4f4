/* Marks code that runs on both sides: layouts, slot arithmetic, checksums.
 * Written once, compiled by gcc for the CPU tests and tools and by nvcc for
 * the kernels, so the tests exercise exactly what the GPU runs. */
#ifndef GPM_HD_H
#define GPM_HD_H

#ifdef __CUDACC__
#define GPM_HD __host__ __device__ __forceinline__
#else
#define GPM_HD static inline
#endif

#include <stdint.h>

/* splitmix64's finaliser: every input bit affects every output bit. The
 * one hash behind test patterns, generated inputs and random choices. */
GPM_HD uint64_t gpm_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
