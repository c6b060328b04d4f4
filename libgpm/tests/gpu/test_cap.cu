/* The CAP engines from real device memory: CAP-mm (DMA into the registered
 * mapping + flusher), CAP-eADR (fence only) and CAP-fs (pinned staging +
 * pwrite + fsync), each checked byte for byte through the file. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/cap.h"
#include "gpm/check_gpu.h"
#include "gpm/gpm.h"

#define MIB ((size_t)1 << 20)

__host__ __device__ static uint8_t pat8(size_t i, unsigned seed)
{
    return (uint8_t)(i * 131 + (i >> 11) + seed);
}

__global__ void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = pat8(i, seed);
}

static uint8_t *device_pattern(size_t n, unsigned seed)
{
    uint8_t *d = NULL;
    if (cudaMalloc(&d, n) != cudaSuccess)
        return NULL;
    fill_pattern<<<512, 256>>>(d, n, seed);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        cudaFree(d);
        return NULL;
    }
    return d;
}

/* Every byte of FILE: the pattern in [off, off+n), zero elsewhere. */
static int file_holds(const uint8_t *f, size_t size, size_t off, size_t n, unsigned seed,
                      size_t *where)
{
    for (size_t i = 0; i < size; i++) {
        uint8_t want = i >= off && i < off + n ? pat8(i - off, seed) : 0;
        if (f[i] != want) {
            *where = i;
            return 0;
        }
    }
    return 1;
}

static void cap_mm_from_device_memory(void)
{
    const size_t size = 32 * MIB, off = 4096 + 3, n = 20 * MIB + 13;
    const int threads[] = {1, 4, 16};
    NEED_GPU();
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        char name[64], path[4096];
        gpm_region r;
        size_t where = 0;
        uint8_t *d = device_pattern(n, (unsigned)t);
        gpm_flusher *f = gpm_flusher_create(threads[t]);
        CHECK(d != NULL && f != NULL);
        snprintf(name, sizeof name, "cap-mm-%d", threads[t]);
        CHECKF(gpm_map(&r, name, size, GPM_CREATE) == 0, "%s", gpm_last_error());
        CHECKF(gpm_cap_mm(f, &r, off, d, n, 0) == 0, "%s", gpm_last_error());
        snprintf(path, sizeof path, "%s", r.path);
        gpm_unmap(&r);
        gpm_flusher_destroy(f);
        cudaFree(d);
        size_t file_len = 0;
        uint8_t *file = check_read_file(path, &file_len);
        CHECK(file != NULL && file_len == size);
        int ok = file_holds(file, size, off, n, (unsigned)t, &where);
        free(file);
        CHECKF(ok, "%d threads: byte %zu of the file is wrong", threads[t], where);
    }
}

static void cap_eadr_copies_with_fence_only(void)
{
    const size_t size = 8 * MIB;
    gpm_region r;
    size_t where = 0;
    NEED_GPU();
    uint8_t *d = device_pattern(size, 9);
    gpm_flusher *f = gpm_flusher_create(2);
    CHECK(d != NULL && f != NULL);
    CHECKF(gpm_map(&r, "cap-eadr", size, GPM_CREATE) == 0, "%s", gpm_last_error());
    CHECKF(gpm_cap_mm(f, &r, 0, d, size, 1) == 0, "%s", gpm_last_error());
    CHECK(file_holds((const uint8_t *)r.host, size, 0, size, 9, &where));
    gpm_unmap(&r);
    gpm_flusher_destroy(f);
    cudaFree(d);
}

static void cap_mm_refuses_bad_ranges_and_host_only(void)
{
    gpm_region r;
    NEED_GPU();
    uint8_t *d = device_pattern(MIB, 1);
    gpm_flusher *f = gpm_flusher_create(2);
    CHECK(d != NULL && f != NULL);
    CHECK(gpm_map(&r, "cap-mm-range", MIB, GPM_CREATE) == 0);
    CHECK(gpm_cap_mm(f, &r, 1, d, MIB, 0) == -1);
    CHECK_MSG(gpm_last_error(), "cap-mm-range");
    CHECK_MSG(gpm_last_error(), "runs past");
    CHECK(gpm_cap_mm(f, &r, MIB + 1, d, 0, 0) == -1);
    gpm_unmap(&r);
    CHECK(gpm_map(&r, "cap-mm-range", MIB, GPM_HOST_ONLY) == 0);
    CHECK(gpm_cap_mm(f, &r, 0, d, MIB, 0) == -1);
    CHECK_MSG(gpm_last_error(), "GPM_HOST_ONLY");
    gpm_unmap(&r);
    gpm_flusher_destroy(f);
    cudaFree(d);
}

/* Chunks smaller than the write, and a remainder, so that both staging
 * buffers take turns; then the default chunk (one piece). */
static void cap_fs_from_device_memory(void)
{
    const size_t size = 24 * MIB, off = 5, n = 7 * MIB + 1234;
    const size_t chunks[] = {MIB, 3 * MIB + 64, GPM_CAP_FS_CHUNK_DEFAULT};
    NEED_GPU();
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
        char name[64];
        gpm_cap_file cf;
        size_t where = 0;
        uint8_t *d = device_pattern(n, (unsigned)(c + 20));
        CHECK(d != NULL);
        snprintf(name, sizeof name, "cap-fs-%zu", c);
        CHECKF(gpm_cap_file_open(&cf, name, size, GPM_CREATE) == 0, "%s", gpm_last_error());
        CHECKF(gpm_cap_file_set_chunk(&cf, chunks[c]) == 0, "%s", gpm_last_error());
        CHECKF(gpm_cap_fs(&cf, (off_t)off, d, n) == 0, "%s", gpm_last_error());
        char path[4096];
        snprintf(path, sizeof path, "%s", cf.path);
        gpm_cap_file_close(&cf);
        cudaFree(d);
        size_t file_len = 0;
        uint8_t *file = check_read_file(path, &file_len);
        CHECK(file != NULL && file_len == size);
        int ok = file_holds(file, size, off, n, (unsigned)(c + 20), &where);
        free(file);
        CHECKF(ok, "chunk %zu: byte %zu of the file is wrong", chunks[c], where);
    }
}

static void cap_fs_refuses_past_the_end(void)
{
    gpm_cap_file cf;
    NEED_GPU();
    uint8_t *d = device_pattern(MIB, 3);
    CHECK(d != NULL);
    CHECK(gpm_cap_file_open(&cf, "cap-fs-range", MIB, GPM_CREATE) == 0);
    CHECK(gpm_cap_fs(&cf, 1, d, MIB) == -1);
    CHECK_MSG(gpm_last_error(), "cap-fs-range");
    gpm_cap_file_close(&cf);
    cudaFree(d);
}

int main(void)
{
    RUN(cap_mm_from_device_memory);
    RUN(cap_eadr_copies_with_fence_only);
    RUN(cap_mm_refuses_bad_ranges_and_host_only);
    RUN(cap_fs_from_device_memory);
    RUN(cap_fs_refuses_past_the_end);
    CHECK_EXIT();
}
