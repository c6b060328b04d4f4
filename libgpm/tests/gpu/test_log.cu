/* Undo logs on a real GPU writing to a mapped PM file: HCL and
 * conventional inserts, reads, removes and clears, checked on the host
 * through the shared layout, across a close and reopen. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpm/check_gpu.h"
#include "gpm/log.cuh"
#include "gpm/log.h"

typedef struct entry {
    uint32_t who;
    uint32_t k;
    uint32_t check;
} entry;

static __global__ void hcl_insert3(gpmlog_dev log, int *bad)
{
    uint32_t who = blockIdx.x * blockDim.x + threadIdx.x;
    for (uint32_t k = 0; k < 3; k++) {
        entry e = {who, k, who * 7u + k};
        if (gpmlog_insert(log, &e, sizeof e, -1) != 0)
            atomicAdd(bad, 1);
    }
}

static __global__ void hcl_read_remove(gpmlog_dev log, int *bad)
{
    uint32_t who = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 2; k >= 1; k--) {
        entry e;
        if (gpmlog_read(log, &e, sizeof e, -1) != 0 || e.who != who || e.k != (uint32_t)k ||
            e.check != who * 7u + k)
            atomicAdd(bad, 1);
        if (gpmlog_remove(log, sizeof e, -1) != 0)
            atomicAdd(bad, 1);
    }
}

static __global__ void clear_own(gpmlog_dev log, int *bad)
{
    if (gpmlog_clear(log, -1) != 0)
        atomicAdd(bad, 1);
}

static __global__ void out_of_grid(gpmlog_dev log, int *refused)
{
    entry e = {0, 0, 0};
    if (gpmlog_insert(log, &e, sizeof e, -1) != 0)
        atomicAdd(refused, 1);
}

static __global__ void conv_insert(gpmlog_dev log, uint32_t parts, int *bad)
{
    uint32_t who = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t e[2] = {who, ~who};
    if (gpmlog_insert(log, e, sizeof e, (int)(who % parts)) != 0)
        atomicAdd(bad, 1);
}

static int *dev_counter(void)
{
    int *p = NULL;
    cudaMalloc((void **)&p, sizeof *p);
    cudaMemset(p, 0, sizeof *p);
    return p;
}

static int take_counter(int *p)
{
    int v = -1;
    cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost);
    cudaFree(p);
    return v;
}

enum { BLOCKS = 4, THREADS = 80 }; /* 80 threads: the third warp is half padding */

static void hcl_insert_read_remove_reopen(void)
{
    gpmlog log;
    int *bad;
    NEED_GPU();
    CHECKF(gpmlog_create_hcl(&log, "gl-hcl", 64 * 1024, BLOCKS, THREADS, 0) == 0, "%s",
           gpm_last_error());
    bad = dev_counter();
    gpm_persist_begin();
    hcl_insert3<<<BLOCKS, THREADS>>>(gpmlog_device(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    gpm_persist_end();
    CHECK_EQ_INT(take_counter(bad), 0);
    for (uint32_t b = 0; b < BLOCKS; b++)
        for (uint32_t t = 0; t < 96; t++) {
            uint32_t s = gpmlog_hcl_slot(&log.g, b, t / 32, t % 32);
            CHECKF(gpmlog_tail(&log, s) == (t < THREADS ? 36u : 0u), "block %u thread %u tail %u",
                   b, t, gpmlog_tail(&log, s));
            if (t < THREADS) {
                entry e;
                gpmlog_copy_out(&log.g, (const uint8_t *)log.region.host, s, 12, &e, sizeof e);
                CHECK(e.who == b * THREADS + t && e.k == 1);
            }
        }
    /* The raw line: chunk 0 of warp 1 of block 2 holds its 32 lanes' first
     * words, in lane order, in one aligned 128-byte line. */
    {
        uint64_t off = gpmlog_hcl_chunk_off(&log.g, gpmlog_hcl_slot(&log.g, 2, 1, 0), 0);
        const uint32_t *line = (const uint32_t *)((const uint8_t *)log.region.host + off);
        CHECK(off % 128 == 0);
        for (uint32_t l = 0; l < 32; l++)
            CHECK_EQ_INT(line[l], 2 * THREADS + 32 + l);
    }
    gpmlog_close(&log);

    /* Reopen: the device tails come back from PM. */
    CHECKF(gpmlog_open(&log, "gl-hcl", 0) == 0, "%s", gpm_last_error());
    bad = dev_counter();
    gpm_persist_begin();
    hcl_read_remove<<<BLOCKS, THREADS>>>(gpmlog_device(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    gpm_persist_end();
    CHECK_EQ_INT(take_counter(bad), 0);
    CHECK_EQ_INT(gpmlog_tail(&log, gpmlog_hcl_slot(&log.g, 3, 2, 15)), 12);

    bad = dev_counter();
    clear_own<<<BLOCKS, THREADS>>>(gpmlog_device(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 0);
    for (uint32_t s = 0; s < log.g.n_slots; s++)
        CHECK_EQ_INT(gpmlog_tail(&log, s), 0);

    /* Threads outside the log's grid are refused, not aliased. */
    bad = dev_counter();
    out_of_grid<<<BLOCKS + 2, THREADS>>>(gpmlog_device(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 2 * THREADS);
    gpmlog_close(&log);
}

static void hcl_full_slot_is_refused(void)
{
    gpmlog log;
    int *bad;
    NEED_GPU();
    /* 24 bytes per thread: two 12-byte entries fit, the third does not. */
    CHECK(gpmlog_create_hcl(&log, "gl-full", 24 * 32, 1, 32, 0) == 0);
    CHECK_EQ_INT(log.g.slot_bytes, 24);
    bad = dev_counter();
    hcl_insert3<<<1, 32>>>(gpmlog_device(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 32);
    CHECK_EQ_INT(gpmlog_tail(&log, 0), 24);
    gpmlog_close(&log);
}

/* Many threads append to few partitions at once: every entry lands whole,
 * exactly once, and the tails add up. */
static void conv_concurrent_appends_are_whole(void)
{
    enum { PARTS = 8, B = 64, T = 128 };
    gpmlog log;
    int *bad;
    uint8_t *seen;
    NEED_GPU();
    CHECKF(gpmlog_create_conv(&log, "gl-conv", PARTS * 16 * 1024, PARTS, 0) == 0, "%s",
           gpm_last_error());
    bad = dev_counter();
    gpm_persist_begin();
    conv_insert<<<B, T>>>(gpmlog_device(&log), PARTS, bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    gpm_persist_end();
    CHECK_EQ_INT(take_counter(bad), 0);
    seen = (uint8_t *)calloc(B * T, 1);
    for (uint32_t p = 0; p < PARTS; p++) {
        uint32_t tail = gpmlog_tail(&log, p);
        CHECK_EQ_INT(tail, B * T / PARTS * 8);
        for (uint32_t pos = 0; pos < tail; pos += 8) {
            uint32_t e[2];
            gpmlog_copy_out(&log.g, (const uint8_t *)log.region.host, p, pos, e, 8);
            CHECKF(e[1] == ~e[0] && e[0] < B * T && e[0] % PARTS == p && !seen[e[0]],
                   "partition %u at %u: entry {%u, %u}", p, pos, e[0], e[1]);
            seen[e[0]] = 1;
        }
    }
    free(seen);
    gpmlog_close(&log);
}

static __global__ void hcl_read_first(gpmlog_dev log, int *bad)
{
    uint32_t who = blockIdx.x * blockDim.x + threadIdx.x;
    entry e;
    if (gpmlog_read(log, &e, sizeof e, -1) != 0 || e.who != who || e.k != 0)
        atomicAdd(bad, 1);
}

/* Mode gpm-ndp: the same operations unfenced, made durable by the CPU;
 * the device copy of the tails stays in step with PM throughout. */
static void unfenced_log_flushed_by_the_cpu(void)
{
    gpmlog log;
    int *bad;
    NEED_GPU();
    CHECKF(gpmlog_create_hcl(&log, "gl-ndp", 64 * 1024, BLOCKS, THREADS, 0) == 0, "%s",
           gpm_last_error());
    bad = dev_counter();
    hcl_insert3<<<BLOCKS, THREADS>>>(gpmlog_device_unfenced(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 0);
    CHECKF(gpmlog_flush(&log, NULL) == 0, "%s", gpm_last_error());
    for (uint32_t b = 0; b < BLOCKS; b++)
        for (uint32_t t = 0; t < THREADS; t++) {
            uint32_t s = gpmlog_hcl_slot(&log.g, b, t / 32, t % 32);
            entry e;
            CHECK_EQ_INT(gpmlog_tail(&log, s), 36);
            gpmlog_copy_out(&log.g, (const uint8_t *)log.region.host, s, 24, &e, sizeof e);
            CHECK(e.who == b * THREADS + t && e.k == 2 && e.check == e.who * 7u + 2);
        }
    bad = dev_counter();
    hcl_read_remove<<<BLOCKS, THREADS>>>(gpmlog_device_unfenced(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 0);
    CHECK(gpmlog_flush(&log, NULL) == 0);
    CHECK_EQ_INT(gpmlog_tail(&log, gpmlog_hcl_slot(&log.g, 1, 0, 7)), 12);
    bad = dev_counter();
    hcl_read_first<<<BLOCKS, THREADS>>>(gpmlog_device(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 0);
    bad = dev_counter();
    clear_own<<<BLOCKS, THREADS>>>(gpmlog_device_unfenced(&log), bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 0);
    CHECK(gpmlog_flush(&log, NULL) == 0);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "gl-ndp", 0) == 0);
    for (uint32_t s = 0; s < log.g.n_slots; s++)
        CHECK_EQ_INT(gpmlog_tail(&log, s), 0);
    gpmlog_close(&log);
}

static void conv_unfenced_appends_flushed_with_a_pool(void)
{
    enum { PARTS = 8, B = 32, T = 128 };
    gpmlog log;
    gpm_flusher *f;
    int *bad;
    NEED_GPU();
    CHECK(gpmlog_create_conv(&log, "gl-conv-ndp", PARTS * 16 * 1024, PARTS, 0) == 0);
    f = gpm_flusher_create(4);
    CHECK(f);
    bad = dev_counter();
    conv_insert<<<B, T>>>(gpmlog_device_unfenced(&log), PARTS, bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_EQ_INT(take_counter(bad), 0);
    CHECKF(gpmlog_flush(&log, f) == 0, "%s", gpm_last_error());
    gpm_flusher_destroy(f);
    for (uint32_t p = 0; p < PARTS; p++)
        CHECK_EQ_INT(gpmlog_tail(&log, p), B * T / PARTS * 8);
    gpmlog_close(&log);
}

int main(void)
{
    RUN(hcl_insert_read_remove_reopen);
    RUN(hcl_full_slot_is_refused);
    RUN(conv_concurrent_appends_are_whole);
    RUN(unfenced_log_flushed_by_the_cpu);
    RUN(conv_unfenced_appends_flushed_with_a_pool);
    CHECK_EXIT();
}
