/* Checkpointing on a GPU: every mode's copy into PM, restore back into
 * device memory, the bytes on PM, and GPU-side errors; checkpoints and
 * restores on a caller's stream; the CAP-fs way (GPMCP_FILE_IO) with device
 * buffers, in the same file format. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/cap.h"
#include "gpm/check_gpu.h"
#include "gpm/cp.h"
#include "gpm/cp_layout.h"

__host__ __device__ static uint32_t val(uint32_t tag, uint64_t j)
{
    uint32_t x = tag * 2654435761u ^ (uint32_t)j;
    x ^= x >> 13;
    return x * 0x5bd1e995u;
}

__global__ void fill_kernel(uint32_t *p, uint64_t words, uint32_t tag)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < words;
         j += (uint64_t)gridDim.x * blockDim.x)
        p[j] = val(tag, j);
}

static void fresh(const char *name)
{
    char full[4096];
    gpm_resolve_path(name, full, sizeof full);
    unlink(full);
}

static int dev_holds(const uint32_t *dev, uint64_t bytes, uint32_t tag)
{
    uint32_t *h = (uint32_t *)malloc(bytes);
    int ok = h && cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (uint64_t j = 0; ok && j < bytes / 4; j++)
        ok = h[j] == val(tag, j);
    free(h);
    return ok;
}

static int pm_holds(const uint8_t *p, uint64_t bytes, uint32_t tag)
{
    for (uint64_t j = 0; j < bytes / 4; j++)
        if (((const uint32_t *)p)[j] != val(tag, j))
            return 0;
    return 1;
}

static void every_mode_checkpoints_and_restores(void)
{
    static const gpmcp_mode modes[] = {GPMCP_GPM, GPMCP_GPM_NDP, GPMCP_GPM_EADR, GPMCP_CAP_MM,
                                       GPMCP_CAP_EADR};
    const uint64_t sz[2] = {(8u << 20) + 4, 12345 * 4};
    uint32_t *d[2];
    NEED_GPU();
    fresh("gcp-modes");
    gpmcp *cp = gpmcp_create("gcp-modes", sz[0] + sz[1], 4, 1);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    gpm_flusher *fl = gpm_flusher_create(4);
    CHECK(fl != NULL);
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMalloc((void **)&d[b], sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    const gpm_region *r = gpmcp_region(cp);
    const gpmcp_header *h = (const gpmcp_header *)r->host;
    const gpmcp_group *g = gpmcp_group_at(r->host, h, 0);
    const gpmcp_elem *e = gpmcp_elems_of(r->host, h, 0);
    uint32_t tag = 7;
    for (int round = 0; round < 2; round++)
        for (int m = 0; m < 5; m++) {
            gpmcp_how how = {modes[m], round ? fl : NULL, NULL, 0};
            tag++;
            for (int b = 0; b < 2; b++)
                fill_kernel<<<256, 256>>>(d[b], sz[b] / 4, tag + (uint32_t)b);
            CHECK(cudaDeviceSynchronize() == cudaSuccess);
            long long seq = gpmcp_seq(cp, 0);
            CHECKF(gpmcp_checkpoint_how(cp, 0, &how) == 0, "mode %d: %s", m, gpm_last_error());
            CHECK(gpmcp_seq(cp, 0) == seq + 1);
            /* The consistent copy on PM is what the buffers held. */
            uint32_t c = gpmcp_flip_copy(g->flip);
            for (int b = 0; b < 2; b++) {
                uint64_t off = gpmcp_elem_file_off(g, &e[b], c);
                CHECK(off % 128 == 0);
                CHECKF(pm_holds((const uint8_t *)r->host + off, sz[b], tag + (uint32_t)b),
                       "mode %d buffer %d on PM", m, b);
            }
            for (int b = 0; b < 2; b++)
                CHECK(cudaMemset(d[b], 0, sz[b]) == cudaSuccess);
            CHECKF(gpmcp_restore(cp, 0) == 0, "%s", gpm_last_error());
            for (int b = 0; b < 2; b++)
                CHECKF(dev_holds(d[b], sz[b], tag + (uint32_t)b), "mode %d buffer %d restored",
                       m, b);
        }
    gpmcp_close(cp);

    /* Another handle (as after a restart) restores the last checkpoint. */
    cp = gpmcp_open("gcp-modes");
    CHECKF(cp != NULL, "%s", gpm_last_error());
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMemset(d[b], 0, sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    CHECK(gpmcp_seq(cp, 0) == 10);
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(dev_holds(d[0], sz[0], tag) && dev_holds(d[1], sz[1], tag + 1));
    gpmcp_close(cp);
    gpm_flusher_destroy(fl);
    cudaFree(d[0]);
    cudaFree(d[1]);
}

/* Spins about SPIN cycles per block, then fills: a producer still running
 * on the stream when the checkpoint is called. */
__global__ void slow_fill(uint32_t *p, uint64_t words, uint32_t tag, long long spin)
{
    if (threadIdx.x == 0) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) {
        }
    }
    __syncthreads();
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < words;
         j += (uint64_t)gridDim.x * blockDim.x)
        p[j] = val(tag, j);
}

/* On a non-blocking stream, which the legacy default stream does not
 * order: the checkpoint must follow the producer queued there, and the
 * restore must follow a clearing queued there. */
static void checkpoint_and_restore_follow_the_callers_stream(void)
{
    static const gpmcp_mode modes[] = {GPMCP_GPM, GPMCP_GPM_NDP, GPMCP_GPM_EADR, GPMCP_CAP_MM,
                                       GPMCP_CAP_EADR};
    const uint64_t sz[2] = {(6u << 20) + 12, 4444 * 4};
    uint32_t *d[2];
    cudaStream_t st;
    NEED_GPU();
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    fresh("gcp-stream");
    gpmcp *cp = gpmcp_create("gcp-stream", sz[0] + sz[1], 2, 1);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    gpm_flusher *fl = gpm_flusher_create(4);
    CHECK(fl != NULL);
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMalloc((void **)&d[b], sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    const gpm_region *r = gpmcp_region(cp);
    const gpmcp_header *h = (const gpmcp_header *)r->host;
    const gpmcp_group *g = gpmcp_group_at(r->host, h, 0);
    const gpmcp_elem *e = gpmcp_elems_of(r->host, h, 0);
    for (int m = 0; m < 5; m++) {
        gpmcp_how how = {modes[m], fl, st, 0};
        uint32_t tag = 300 + (uint32_t)m;
        for (int b = 0; b < 2; b++)
            slow_fill<<<128, 256, 0, st>>>(d[b], sz[b] / 4, tag + 10 * (uint32_t)b, 20000000);
        CHECKF(gpmcp_checkpoint_how(cp, 0, &how) == 0, "mode %d: %s", m, gpm_last_error());
        uint32_t c = gpmcp_flip_copy(g->flip);
        for (int b = 0; b < 2; b++)
            CHECKF(pm_holds((const uint8_t *)r->host + gpmcp_elem_file_off(g, &e[b], c), sz[b],
                            tag + 10 * (uint32_t)b),
                   "mode %d buffer %d on PM", m, b);
        for (int b = 0; b < 2; b++)
            slow_fill<<<128, 256, 0, st>>>(d[b], sz[b] / 4, 999, 20000000);
        CHECKF(gpmcp_restore_on(cp, 0, st) == 0, "%s", gpm_last_error());
        for (int b = 0; b < 2; b++)
            CHECKF(dev_holds(d[b], sz[b], tag + 10 * (uint32_t)b), "mode %d buffer %d restored",
                   m, b);
    }
    gpmcp_close(cp);
    gpm_flusher_destroy(fl);
    cudaFree(d[0]);
    cudaFree(d[1]);
    cudaStreamDestroy(st);
}

/* gpmcp_checkpoint_start queues the copy and returns; the previous
 * checkpoint stays the consistent one until gpmcp_checkpoint_finish, after
 * which PM holds the new one: in the GPU's fenced modes, with a capped grid
 * on a stream of the caller's, and in a CPU mode (which copies in start). */
static void checkpoint_in_two_halves(void)
{
    static const gpmcp_mode modes[] = {GPMCP_GPM, GPMCP_GPM_EADR, GPMCP_CAP_MM};
    const uint64_t sz = (8u << 20) + 4;
    uint32_t *d;
    cudaStream_t st;
    NEED_GPU();
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d, sz) == cudaSuccess);
    for (int m = 0; m < 3; m++) {
        gpmcp_how how = {modes[m], NULL, st, 4};
        fresh("gcp-halves");
        gpmcp *cp = gpmcp_create("gcp-halves", sz, 1, 1);
        CHECKF(cp != NULL, "%s", gpm_last_error());
        CHECK(gpmcp_register(cp, d, sz, 0) == 0);
        const gpm_region *r = gpmcp_region(cp);
        const gpmcp_header *h = (const gpmcp_header *)r->host;
        const gpmcp_group *g = gpmcp_group_at(r->host, h, 0);
        const gpmcp_elem *e = gpmcp_elems_of(r->host, h, 0);
        slow_fill<<<128, 256, 0, st>>>(d, sz / 4, 500, 0);
        CHECKF(gpmcp_checkpoint_how(cp, 0, &how) == 0, "mode %d: %s", m, gpm_last_error());
        slow_fill<<<128, 256, 0, st>>>(d, sz / 4, 600, 20000000);
        CHECKF(gpmcp_checkpoint_start(cp, 0, &how) == 0, "mode %d: %s", m, gpm_last_error());
        CHECKF(gpmcp_seq(cp, 0) == 1, "mode %d: seq %lld before finish", m, gpmcp_seq(cp, 0));
        CHECK(pm_holds((const uint8_t *)r->host +
                           gpmcp_elem_file_off(g, &e[0], gpmcp_flip_copy(g->flip)),
                       sz, 500));
        CHECKF(gpmcp_checkpoint_finish(cp, 0, &how) == 0, "mode %d: %s", m, gpm_last_error());
        CHECKF(gpmcp_seq(cp, 0) == 2, "mode %d: seq %lld after finish", m, gpmcp_seq(cp, 0));
        CHECKF(pm_holds((const uint8_t *)r->host +
                            gpmcp_elem_file_off(g, &e[0], gpmcp_flip_copy(g->flip)),
                        sz, 600),
               "mode %d: the new checkpoint on PM", m);
        gpmcp_close(cp);
    }
    cudaFree(d);
    cudaStreamDestroy(st);
}

/* The CAP-fs way with device buffers: never registered, staged through
 * pinned memory (an element larger than the staging chunks), restored by
 * pread; the file is the same format the mapped ways read and write. */
static void file_io_checkpoints_and_restores_device_buffers(void)
{
    const uint64_t sz[2] = {(40u << 20) + 36, 777 * 4};
    const gpmcp_how cap_fs = {GPMCP_CAP_FS, NULL, NULL, 0};
    uint32_t *d[2];
    cudaStream_t st;
    static uint32_t host_buf[64];
    NEED_GPU();
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    fresh("gcp-fileio");
    gpmcp *cp = gpmcp_create_flags("gcp-fileio", sz[0] + sz[1], 2, 2, GPMCP_FILE_IO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_region(cp)->dev == NULL);
    CHECK(gpmcp_register(cp, host_buf, sizeof host_buf, 1) == -1);
    CHECK_MSG(gpm_last_error(), "not GPU memory");
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMalloc((void **)&d[b], sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    CHECK(gpmcp_checkpoint(cp, 0) == -1); /* GPMCP_GPM on a FILE_IO handle */
    CHECK_MSG(gpm_last_error(), "GPMCP_FILE_IO");
    const gpm_region *r = gpmcp_region(cp);
    const gpmcp_header *h = (const gpmcp_header *)r->host;
    const gpmcp_group *g = gpmcp_group_at(r->host, h, 0);
    const gpmcp_elem *e = gpmcp_elems_of(r->host, h, 0);
    for (uint32_t i = 1; i <= 3; i++) {
        gpmcp_how how = {GPMCP_CAP_FS, NULL, i == 2 ? NULL : st, 0};
        for (int b = 0; b < 2; b++)
            slow_fill<<<128, 256, 0, st>>>(d[b], sz[b] / 4, 50 * i + (uint32_t)b, 20000000);
        if (!how.stream)
            CHECK(cudaStreamSynchronize(st) == cudaSuccess);
        CHECKF(gpmcp_checkpoint_how(cp, 0, &how) == 0, "%s", gpm_last_error());
        CHECK(gpmcp_seq(cp, 0) == i);
        /* The host-only mapping sees what pwrite wrote (one page cache). */
        uint32_t c = gpmcp_flip_copy(g->flip);
        for (int b = 0; b < 2; b++)
            CHECKF(pm_holds((const uint8_t *)r->host + gpmcp_elem_file_off(g, &e[b], c), sz[b],
                            50 * i + (uint32_t)b),
                   "checkpoint %u buffer %d in the file", i, b);
        for (int b = 0; b < 2; b++)
            CHECK(cudaMemsetAsync(d[b], 0, sz[b], st) == cudaSuccess);
        CHECKF(gpmcp_restore_on(cp, 0, st) == 0, "%s", gpm_last_error());
        for (int b = 0; b < 2; b++)
            CHECKF(dev_holds(d[b], sz[b], 50 * i + (uint32_t)b), "checkpoint %u buffer %d "
                   "restored", i, b);
    }
    gpmcp_close(cp);

    /* The mapped way restores it, checkpoints on, and the CAP-fs way
     * restores that. */
    cp = gpmcp_open("gcp-fileio");
    CHECKF(cp != NULL, "%s", gpm_last_error());
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMemset(d[b], 0, sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    CHECK(gpmcp_checkpoint_how(cp, 0, &cap_fs) == -1);
    CHECK_MSG(gpm_last_error(), "needs the file opened with GPMCP_FILE_IO");
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(dev_holds(d[0], sz[0], 150) && dev_holds(d[1], sz[1], 151));
    fill_kernel<<<256, 256>>>(d[0], sz[0] / 4, 7), fill_kernel<<<256, 256>>>(d[1], sz[1] / 4, 8);
    CHECK(gpmcp_checkpoint(cp, 0) == 0);
    gpmcp_close(cp);
    cp = gpmcp_open_flags("gcp-fileio", GPMCP_FILE_IO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMemset(d[b], 0, sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    CHECK(gpmcp_seq(cp, 0) == 4);
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(dev_holds(d[0], sz[0], 7) && dev_holds(d[1], sz[1], 8));
    CHECK(gpmcp_reset(cp) == 0);
    CHECK(gpmcp_seq(cp, 0) == 0);
    CHECK(gpmcp_restore(cp, 0) == -1);
    gpmcp_close(cp);
    cudaFree(d[0]);
    cudaFree(d[1]);
    cudaStreamDestroy(st);
    fresh("gcp-fileio");
}

/* The CAP-gds way (GPMCP_FILE_IO | GPM_CAP_GDS): cuFile writes the copies
 * from the device buffers and reads them back; the file is the one CAP-fs
 * reads. */
static void gds_checkpoints_and_restores_device_buffers(void)
{
    const uint64_t sz[2] = {(24u << 20) + 36, 777 * 4};
    uint32_t *d[2];
    cudaStream_t st;
    char why[240];
    NEED_GPU();
    if (!gpm_gds_usable(gpm_pm_dir(), why, sizeof why))
        SKIP(why); /* a GPU machine where cuFile cannot write files here */
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    fresh("gcp-gds");
    gpmcp *cp = gpmcp_create_flags("gcp-gds", sz[0] + sz[1], 2, 1, GPMCP_FILE_IO | GPM_CAP_GDS);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_gds_way(cp) != NULL);
    printf("cuFile: %s\n", gpmcp_gds_way(cp));
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMalloc((void **)&d[b], sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    const gpm_region *r = gpmcp_region(cp);
    const gpmcp_header *h = (const gpmcp_header *)r->host;
    const gpmcp_group *g = gpmcp_group_at(r->host, h, 0);
    const gpmcp_elem *e = gpmcp_elems_of(r->host, h, 0);
    for (uint32_t i = 1; i <= 2; i++) {
        gpmcp_how how = {GPMCP_CAP_FS, NULL, st, 0};
        for (int b = 0; b < 2; b++)
            slow_fill<<<128, 256, 0, st>>>(d[b], sz[b] / 4, 70 * i + (uint32_t)b, 20000000);
        CHECKF(gpmcp_checkpoint_how(cp, 0, &how) == 0, "%s", gpm_last_error());
        CHECK(gpmcp_seq(cp, 0) == i);
        uint32_t c = gpmcp_flip_copy(g->flip);
        for (int b = 0; b < 2; b++)
            CHECKF(pm_holds((const uint8_t *)r->host + gpmcp_elem_file_off(g, &e[b], c), sz[b],
                            70 * i + (uint32_t)b),
                   "checkpoint %u buffer %d in the file", i, b);
        for (int b = 0; b < 2; b++)
            CHECK(cudaMemsetAsync(d[b], 0, sz[b], st) == cudaSuccess);
        CHECKF(gpmcp_restore_on(cp, 0, st) == 0, "%s", gpm_last_error());
        for (int b = 0; b < 2; b++)
            CHECKF(dev_holds(d[b], sz[b], 70 * i + (uint32_t)b), "checkpoint %u buffer %d "
                   "restored", i, b);
    }
    gpmcp_close(cp);
    cp = gpmcp_open_flags("gcp-gds", GPMCP_FILE_IO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_gds_way(cp) == NULL);
    for (int b = 0; b < 2; b++) {
        CHECK(cudaMemset(d[b], 0, sz[b]) == cudaSuccess);
        CHECK(gpmcp_register(cp, d[b], sz[b], 0) == 0);
    }
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(dev_holds(d[0], sz[0], 140) && dev_holds(d[1], sz[1], 141));
    gpmcp_close(cp);
    cudaFree(d[0]);
    cudaFree(d[1]);
    cudaStreamDestroy(st);
    fresh("gcp-gds");
}

static void host_memory_is_refused(void)
{
    static uint32_t host_buf[256];
    NEED_GPU();
    fresh("gcp-host");
    gpmcp *cp = gpmcp_create("gcp-host", 4096, 1, 1);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, host_buf, sizeof host_buf, 0) == -1);
    CHECK_MSG(gpm_last_error(), "not GPU memory");
    gpmcp_close(cp);
}

/* Informational: how fast a large group is checkpointed and restored. */
static void large_checkpoint_bandwidth(void)
{
    const uint64_t sz = 256ull << 20;
    uint32_t *d;
    struct timespec t0, t1, t2;
    NEED_GPU();
    fresh("gcp-big");
    gpmcp *cp = gpmcp_create("gcp-big", sz, 1, 1);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(cudaMalloc((void **)&d, sz) == cudaSuccess);
    fill_kernel<<<1024, 256>>>(d, sz / 4, 99);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(gpmcp_register(cp, d, sz, 0) == 0);
    CHECK(gpmcp_checkpoint(cp, 0) == 0); /* first touch of the pages */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(gpmcp_checkpoint(cp, 0) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double c = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(cudaMemset(d, 0, sz) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    CHECK(dev_holds(d, sz, 99));
    double rs = (t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9;
    printf("# 256 MiB: checkpoint %.3f ms (%.1f GB/s), restore %.3f ms (%.1f GB/s)\n", c * 1e3,
           sz / c / 1e9, rs * 1e3, sz / rs / 1e9);
    gpmcp_close(cp);

    /* The same file the CAP-fs way: opening registers nothing. */
    const gpmcp_how cap_fs = {GPMCP_CAP_FS, NULL, NULL, 0};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cp = gpmcp_open_flags("gcp-big", GPMCP_FILE_IO);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    double op = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(gpmcp_register(cp, d, sz, 0) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(gpmcp_checkpoint_how(cp, 0, &cap_fs) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    c = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(cudaMemset(d, 0, sz) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(gpmcp_restore(cp, 0) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    CHECK(dev_holds(d, sz, 99));
    rs = (t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9;
    printf("# 256 MiB CAP-fs: open %.3f ms, checkpoint %.3f ms (%.1f GB/s), restore %.3f ms "
           "(%.1f GB/s)\n", op * 1e3, c * 1e3, sz / c / 1e9, rs * 1e3, sz / rs / 1e9);
    gpmcp_close(cp);
    cudaFree(d);
    fresh("gcp-big");
}

int main(void)
{
    RUN(every_mode_checkpoints_and_restores);
    RUN(checkpoint_and_restore_follow_the_callers_stream);
    RUN(checkpoint_in_two_halves);
    RUN(file_io_checkpoints_and_restores_device_buffers);
    RUN(gds_checkpoints_and_restores_device_buffers);
    RUN(host_memory_is_refused);
    RUN(large_checkpoint_bandwidth);
    CHECK_EXIT();
}
