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

#endif
