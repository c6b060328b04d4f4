/* The CAP engines from real device memory: CAP-mm (DMA into the registered
 * mapping + flusher), CAP-eADR (fence only) and CAP-fs (pinned staging +
 * pwrite + fsync), each checked byte for byte through the file; and their
 * vectored forms on a caller's stream; CAP-gds (cuFile), where libcufile
 * loads. This program defines fsync, so
 * libgpm's calls land here first and are counted. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/cap.h"
#include "gpm/check_gpu.h"
#include "gpm/gpm.h"

#define MIB ((size_t)1 << 20)

static int fsyncs;

extern "C" int fsync(int fd)
{
    fsyncs++;
    return (int)syscall(SYS_fsync, fd);
}

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

/* Spins about SPIN clock cycles in every block, then writes the pattern:
 * work still running on a stream when the host calls the engine. */
__global__ void slow_fill(uint8_t *p, size_t n, unsigned seed, long long spin)
{
    if (threadIdx.x == 0) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) {
        }
    }
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = pat8(i, seed);
}

/* Scattered ranges of one source buffer, in no order: range I takes the
 * bytes [v.src - base, +len) of the pattern. */
static int scattered(gpm_range *v, int n, size_t size, const uint8_t *d, size_t dlen)
{
    size_t at = 4096;
    for (int i = 0; i < n; i++) {
        size_t len = (size_t)(i * 7919 % 300000) + (i % 3 == 0 ? 2 * MIB : 1);
        size_t src = (size_t)(i * 104729) % (dlen - len);
        if (at + len > size)
            return i;
        v[i].off = at;
        v[i].len = len;
        v[i].src = d + src;
        at += len + (size_t)(i % 5) * 97;
    }
    return n;
}

/* What FILE must hold: each range's source bytes at its offset, zero
 * elsewhere. */
static int file_holds_ranges(const uint8_t *f, size_t size, const gpm_range *v, int n,
                             const uint8_t *d, unsigned seed, size_t *where)
{
    uint8_t *want = (uint8_t *)calloc(size, 1);
    int ok = want != NULL;
    for (int i = 0; ok && i < n; i++)
        for (size_t k = 0; k < v[i].len; k++)
            want[v[i].off + k] = pat8((size_t)((const uint8_t *)v[i].src - d) + k, seed);
    for (size_t i = 0; ok && i < size; i++)
        if (f[i] != want[i]) {
            *where = i;
            ok = 0;
        }
    free(want);
    return ok;
}

static void cap_mm_ranges_follow_the_callers_stream(void)
{
    const size_t size = 48 * MIB, dlen = 8 * MIB;
    gpm_range v[40];
    gpm_region r;
    cudaStream_t st;
    uint8_t *d;
    size_t where = 0;
    NEED_GPU();
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMalloc(&d, dlen) == cudaSuccess);
    gpm_flusher *f = gpm_flusher_create(4);
    CHECK(f != NULL);
    CHECKF(gpm_map(&r, "cap-mm-ranges", size, GPM_CREATE) == 0, "%s", gpm_last_error());
    int n = scattered(v, 40, size, d, dlen);
    /* Reversed, so that the list is not in address order. */
    for (int i = 0; i < n / 2; i++) {
        gpm_range t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    slow_fill<<<264, 256, 0, st>>>(d, dlen, 31, 50000000);
    CHECKF(gpm_cap_mm_ranges(f, &r, v, n, 0, st) == 0, "%s", gpm_last_error());
    CHECK(file_holds_ranges((const uint8_t *)r.host, size, v, n, d, 31, &where));
    /* A bad range refuses the list before any copy. */
    gpm_range bad[2] = {{0, 4096, d}, {size - 1, 2, d}};
    CHECK(gpm_cap_mm_ranges(f, &r, bad, 2, 0, st) == -1);
    CHECK_MSG(gpm_last_error(), "range 1 of 2");
    CHECK(((const uint8_t *)r.host)[0] == 0);
    char path[4096];
    snprintf(path, sizeof path, "%s", r.path);
    gpm_unmap(&r);
    size_t len = 0;
    uint8_t *file = check_read_file(path, &len);
    CHECK(file != NULL && len == size);
    int ok = file_holds_ranges(file, size, v, n, d, 31, &where);
    free(file);
    CHECKF(ok, "byte %zu of the file is wrong", where);
    gpm_flusher_destroy(f);
    cudaFree(d);
    cudaStreamDestroy(st);
}

/* The staging must wait for a kernel still running on the caller's
 * non-blocking stream (which the staging stream does not follow by itself),
 * chunks run across range boundaries, and the list costs one fsync. */
static void cap_fs_ranges_wait_for_the_callers_stream_and_fsync_once(void)
{
    const size_t size = 48 * MIB, dlen = 8 * MIB;
    const size_t chunks[] = {MIB, 3 * MIB + 64, GPM_CAP_FS_CHUNK_DEFAULT};
    gpm_range v[40];
    cudaStream_t st;
    uint8_t *d;
    NEED_GPU();
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMalloc(&d, dlen) == cudaSuccess);
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
        char name[64], path[4096];
        gpm_cap_file cf;
        size_t where = 0;
        snprintf(name, sizeof name, "cap-fs-ranges-%zu", c);
        CHECKF(gpm_cap_file_open(&cf, name, size, GPM_CREATE) == 0, "%s", gpm_last_error());
        CHECK(gpm_cap_file_set_chunk(&cf, chunks[c]) == 0);
        int n = scattered(v, 40, size, d, dlen);
        CHECK(cudaMemsetAsync(d, 0, dlen, st) == cudaSuccess);
        slow_fill<<<264, 256, 0, st>>>(d, dlen, (unsigned)(40 + c), 50000000);
        fsyncs = 0;
        CHECKF(gpm_cap_fs_ranges(&cf, v, n, st) == 0, "%s", gpm_last_error());
        CHECK_EQ_INT(fsyncs, 1);
        snprintf(path, sizeof path, "%s", cf.path);
        gpm_cap_file_close(&cf);
        size_t len = 0;
        uint8_t *file = check_read_file(path, &len);
        CHECK(file != NULL && len == size);
        int ok = file_holds_ranges(file, size, v, n, d, (unsigned)(40 + c), &where);
        free(file);
        CHECKF(ok, "chunk %zu: byte %zu of the file is wrong", chunks[c], where);
    }
    cudaFree(d);
    cudaStreamDestroy(st);
}

/* CAP-gds: the same scattered ranges at odd offsets and lengths, written
 * by cuFile with one and several threads and pieces smaller than a range;
 * it must wait for the caller's stream too, and fsync once. */
static void cap_gds_ranges_wait_for_the_callers_stream_and_fsync_once(void)
{
    const size_t size = 48 * MIB, dlen = 8 * MIB;
    const struct {
        int threads;
        size_t piece;
    } how[] = {{1, GPM_GDS_PIECE_DEFAULT}, {4, MIB + 4096}, {3, 64 * 1024 + 8}};
    gpm_range v[40];
    cudaStream_t st;
    uint8_t *d;
    char why[240];
    NEED_GPU();
    if (!gpm_gds_usable(gpm_pm_dir(), why, sizeof why))
        SKIP(why); /* a GPU machine where cuFile cannot write files here */
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMalloc(&d, dlen) == cudaSuccess);
    for (size_t c = 0; c < sizeof how / sizeof *how; c++) {
        char name[64], path[4096];
        gpm_cap_file cf;
        size_t where = 0;
        snprintf(name, sizeof name, "cap-gds-ranges-%zu", c);
        CHECKF(gpm_cap_file_open(&cf, name, size, GPM_CREATE | GPM_CAP_GDS) == 0, "%s",
               gpm_last_error());
        CHECK(cf.use_gds && cf.stage[0] == NULL);
        printf("cuFile: %s\n", gpm_gds_way(&cf.gds));
        cf.gds_threads = how[c].threads;
        CHECK(gpm_cap_file_set_chunk(&cf, how[c].piece) == 0);
        int n = scattered(v, 40, size, d, dlen);
        CHECK(cudaMemsetAsync(d, 0, dlen, st) == cudaSuccess);
        slow_fill<<<264, 256, 0, st>>>(d, dlen, (unsigned)(60 + c), 50000000);
        fsyncs = 0;
        CHECKF(gpm_cap_fs_ranges(&cf, v, n, st) == 0, "%s", gpm_last_error());
        CHECK_EQ_INT(fsyncs, 1);
        /* Host ranges still go by pwrite, beside cuFile's descriptor. */
        static const char word[] = "flip";
        CHECKF(gpm_cap_fs_host(&cf, (off_t)(size - 5), word, 4) == 0, "%s", gpm_last_error());
        snprintf(path, sizeof path, "%s", cf.path);
        gpm_cap_file_close(&cf);
        size_t len = 0;
        uint8_t *file = check_read_file(path, &len);
        CHECK(file != NULL && len == size);
        CHECK(memcmp(file + size - 5, word, 4) == 0);
        memset(file + size - 5, 0, 4);
        int ok = file_holds_ranges(file, size, v, n, d, (unsigned)(60 + c), &where);
        free(file);
        CHECKF(ok, "%d threads, %zu-byte pieces: byte %zu of the file is wrong",
               how[c].threads, how[c].piece, where);
    }
    cudaFree(d);
    cudaStreamDestroy(st);
}

int main(void)
{
    RUN(cap_mm_from_device_memory);
    RUN(cap_eadr_copies_with_fence_only);
    RUN(cap_mm_refuses_bad_ranges_and_host_only);
    RUN(cap_fs_from_device_memory);
    RUN(cap_fs_refuses_past_the_end);
    RUN(cap_mm_ranges_follow_the_callers_stream);
    RUN(cap_fs_ranges_wait_for_the_callers_stream_and_fsync_once);
    RUN(cap_gds_ranges_wait_for_the_callers_stream_and_fsync_once);
    CHECK_EXIT();
}
