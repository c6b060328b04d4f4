/* The device API end to end: kernels store to a mapped PM file with
 * gpm_store_* and gpm_persist inside gpm_persist_begin/end, and
 * gpm_memcpy/gpm_memset (and their _on forms on a stream) fill it; every
 * byte is then checked in the file itself, read with read() after the
 * mapping is gone. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/check_gpu.h"
#include "gpm/copy.h"
#include "gpm/gpm.cuh"
#include "gpm/gpm.h"

#define MIB ((size_t)1 << 20)

__host__ __device__ static uint32_t pat32(size_t i)
{
    return (uint32_t)(i * 2654435761u) ^ 0xa5a5a5a5u;
}

__host__ __device__ static uint64_t pat64(size_t i)
{
    return (uint64_t)i * 0x9e3779b97f4a7c15ull ^ 0x0123456789abcdefull;
}

__host__ __device__ static uint8_t pat8(size_t i)
{
    return (uint8_t)(i * 131 + (i >> 9) + 7);
}

/* Three equal parts of the file, written with 4-, 8- and 16-byte stores. */
__global__ void store_kernel(uint8_t *pm, size_t part)
{
    size_t rank = gpm_grid_rank(), nth = gpm_grid_threads();
    uint32_t *a = (uint32_t *)pm;
    uint64_t *b = (uint64_t *)(pm + part);
    uint4 *c = (uint4 *)(pm + 2 * part);
    for (size_t i = rank; i < part / 4; i += nth)
        gpm_store_u32(a + i, pat32(i));
    for (size_t i = rank; i < part / 8; i += nth)
        gpm_store_u64(b + i, pat64(i));
    for (size_t i = rank; i < part / 16; i += nth) {
        uint4 v = make_uint4(pat32(4 * i), pat32(4 * i + 1), pat32(4 * i + 2),
                             pat32(4 * i + 3));
        gpm_store_v4(c + i, v);
    }
    gpm_persist();
}

/* Reads the stores back through PM with the volatile loads; counts misses. */
__global__ void load_kernel(const uint8_t *pm, size_t part, unsigned long long *bad)
{
    size_t rank = gpm_grid_rank(), nth = gpm_grid_threads();
    unsigned long long miss = 0;
    for (size_t i = rank; i < part / 4; i += nth)
        miss += gpm_load_u32((const uint32_t *)pm + i) != pat32(i);
    for (size_t i = rank; i < part / 8; i += nth)
        miss += gpm_load_u64((const uint64_t *)(pm + part) + i) != pat64(i);
    if (miss)
        atomicAdd(bad, miss);
}

__global__ void fill_pattern(uint8_t *p, size_t n)
{
    for (size_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        p[i] = pat8(i);
}

static void stores_and_persist_reach_the_file(void)
{
    const size_t part = 4 * MIB, size = 3 * part;
    gpm_region r;
    unsigned long long *bad, nbad = 0;
    NEED_GPU();
    CHECKF(gpm_map(&r, "dev-store", size, GPM_CREATE) == 0, "%s", gpm_last_error());
    CHECK(r.dev != NULL);
    CHECKF(gpm_persist_begin() == 0, "%s", gpm_last_error());
    store_kernel<<<264, 256>>>((uint8_t *)r.dev, part);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECKF(gpm_persist_end() == 0, "%s", gpm_last_error());

    CHECK(cudaMalloc(&bad, sizeof *bad) == cudaSuccess);
    CHECK(cudaMemset(bad, 0, sizeof *bad) == cudaSuccess);
    load_kernel<<<264, 256>>>((const uint8_t *)r.dev, part, bad);
    CHECK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(bad);
    CHECK_EQ_INT(nbad, 0);

    char path[4096];
    snprintf(path, sizeof path, "%s", r.path);
    gpm_unmap(&r);
    size_t f_len = 0;
    uint8_t *f = check_read_file(path, &f_len);
    CHECK(f != NULL && f_len == size);
    for (size_t i = 0; i < part / 4; i++)
        CHECKF(((uint32_t *)f)[i] == pat32(i), "u32 word %zu", i);
    for (size_t i = 0; i < part / 8; i++)
        CHECKF(((uint64_t *)(f + part))[i] == pat64(i), "u64 word %zu", i);
    for (size_t i = 0; i < part / 4; i++)
        CHECKF(((uint32_t *)(f + 2 * part))[i] == pat32(i), "v4 word %zu", i);
    free(f);

    /* And the same bytes through a host-only mapping. */
    CHECK(gpm_map(&r, "dev-store", size, GPM_HOST_ONLY) == 0);
    CHECK(((uint64_t *)((uint8_t *)r.host + part))[12345] == pat64(12345));
    gpm_unmap(&r);
}

/* gpm_memcpy at an aligned and a misaligned destination, gpm_memset over a
 * middle range; bytes outside the ranges must stay zero. */
static void memcpy_and_memset_reach_the_file(void)
{
    const size_t size = 24 * MIB, n1 = 8 * MIB + 48, off2 = 10 * MIB + 3, n2 = MIB + 7;
    const size_t off3 = 16 * MIB + 5, n3 = 3 * MIB + 1;
    gpm_region r;
    uint8_t *src;
    NEED_GPU();
    CHECKF(gpm_map(&r, "dev-copy", size, GPM_CREATE) == 0, "%s", gpm_last_error());
    CHECK(cudaMalloc(&src, n1) == cudaSuccess);
    fill_pattern<<<256, 256>>>(src, n1);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(gpm_persist_begin() == 0);
    CHECKF(gpm_memcpy(r.dev, src, n1) == 0, "%s", gpm_last_error());
    CHECKF(gpm_memcpy((uint8_t *)r.dev + off2, src, n2) == 0, "%s", gpm_last_error());
    CHECKF(gpm_memset((uint8_t *)r.dev + off3, 0x3c, n3) == 0, "%s", gpm_last_error());
    CHECK(gpm_memcpy(r.dev, src, 0) == 0);
    CHECK(gpm_persist_end() == 0);
    cudaFree(src);

    char path[4096];
    snprintf(path, sizeof path, "%s", r.path);
    gpm_unmap(&r);
    size_t f_len = 0;
    uint8_t *f = check_read_file(path, &f_len);
    CHECK(f != NULL && f_len == size);
    for (size_t i = 0; i < size; i++) {
        uint8_t want = 0;
        if (i < n1)
            want = pat8(i);
        else if (i >= off2 && i < off2 + n2)
            want = pat8(i - off2);
        else if (i >= off3 && i < off3 + n3)
            want = 0x3c;
        CHECKF(f[i] == want, "byte %zu is %#x, expected %#x", i, f[i], want);
    }
    free(f);
}

/* Spins about SPIN cycles per block, then writes the pattern: a producer
 * still running on the stream when the copy is issued. */
__global__ void slow_pattern(uint8_t *p, size_t n, long long spin)
{
    if (threadIdx.x == 0) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) {
        }
    }
    __syncthreads();
    for (size_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        p[i] = pat8(i);
}

/* On a non-blocking stream the copy must follow the producer queued there
 * (the legacy default stream would not order them), and the bytes are in
 * the file when the calls return. */
static void memcpy_on_and_memset_on_follow_their_stream(void)
{
    const size_t size = 16 * MIB, n1 = 6 * MIB + 5, off2 = 9 * MIB + 1, n2 = 2 * MIB + 3;
    gpm_region r;
    uint8_t *src;
    cudaStream_t st;
    NEED_GPU();
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    CHECKF(gpm_map(&r, "dev-copy-on", size, GPM_CREATE) == 0, "%s", gpm_last_error());
    CHECK(cudaMalloc(&src, n1) == cudaSuccess);
    CHECK(cudaMemset(src, 0, n1) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(gpm_persist_begin() == 0);
    slow_pattern<<<264, 256, 0, st>>>(src, n1, 50000000);
    CHECKF(gpm_memcpy_on(r.dev, src, n1, st) == 0, "%s", gpm_last_error());
    CHECKF(gpm_memset_on((uint8_t *)r.dev + off2, 0x5e, n2, st) == 0, "%s", gpm_last_error());
    CHECK(gpm_memset_on(r.dev, 1, 0, st) == 0);
    CHECK(gpm_persist_end() == 0);
    cudaFree(src);
    char path[4096];
    snprintf(path, sizeof path, "%s", r.path);
    gpm_unmap(&r);
    cudaStreamDestroy(st);
    size_t f_len = 0;
    uint8_t *f = check_read_file(path, &f_len);
    CHECK(f != NULL && f_len == size);
    for (size_t i = 0; i < size; i++) {
        uint8_t want = i < n1 ? pat8(i) : i >= off2 && i < off2 + n2 ? 0x5e : 0;
        CHECKF(f[i] == want, "byte %zu is %#x, expected %#x", i, f[i], want);
    }
    free(f);
}

int main(void)
{
    RUN(stores_and_persist_reach_the_file);
    RUN(memcpy_and_memset_reach_the_file);
    RUN(memcpy_on_and_memset_on_follow_their_stream);
    CHECK_EXIT();
}
