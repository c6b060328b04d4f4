/* Transactions on a real GPU writing to mapped PM files: kernels log undo
 * records (fenced and unfenced), the recovery kernel puts the target back
 * exactly, a committed transaction is kept, damaged records are refused
 * with both files unchanged, and a recovery the CPU began is finished by
 * the GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpm/check_gpu.h"
#include "gpm/gpm.cuh"
#include "gpm/tx.cuh"
#include "gpm/tx.h"

enum { BLOCKS = 6, THREADS = 80, WORDS = 1 << 16, PER_THREAD = 5 };

/* Element I after transaction T (T 0: the initial contents). */
__host__ __device__ static uint32_t value(uint32_t i, uint32_t t)
{
    return (uint32_t)gpm_mix64((uint64_t)t << 32 | i);
}

/* Thread g updates elements g, g + n, ... (n threads): disjoint owners, so
 * each element is logged by one slot. Its first element also gets a
 * 3-byte record of its upper bytes, read straight from PM and logged
 * before the 4-byte one: records of odd sizes at unaligned offsets,
 * overlapping within one slot. DO_UPDATE: store and persist each new value
 * (mode gpm); else log only (mode gpm-ndp's logging kernel). */
static __global__ void tx_kernel(gpmlog_dev log, uint32_t *data, uint32_t t, int do_update,
                                 int parts, int *bad)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    int slot = parts ? (int)(g % (uint32_t)parts) : -1;
    if (gpmtx_log_undo(log, slot, (uint64_t)g * 4u + 1u, (const uint8_t *)(data + g) + 1, 3) !=
        0) {
        atomicAdd(bad, 1);
        return;
    }
    for (uint32_t k = 0; k < PER_THREAD; k++) {
        uint32_t i = g + k * n, old = data[i];
        if (gpmtx_log_undo(log, slot, (uint64_t)i * 4u, &old, 4) != 0) {
            atomicAdd(bad, 1);
            return;
        }
        if (!do_update)
            continue;
        gpm_store_u32(data + i, value(i, t));
        gpm_persist();
    }
}

static __global__ void update_kernel(uint32_t *data, uint32_t t)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    for (uint32_t k = 0; k < PER_THREAD; k++)
        gpm_store_u32(data + g + k * n, value(g + k * n, t));
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

static int make_files(gpmlog *log, gpm_region *t, const char *lname, const char *tname,
                      int parts)
{
    size_t per = (PER_THREAD + 1) * gpmtx_record_bytes(4) + 16;
    int rc = parts ? gpmlog_create_conv(log, lname, (size_t)BLOCKS * THREADS * per + 128u * parts,
                                        parts, 0)
                   : gpmlog_create_hcl(log, lname, (size_t)BLOCKS * 96 * per, BLOCKS, THREADS, 0);
    if (rc != 0 || gpm_map(t, tname, WORDS * 4, GPM_CREATE) != 0)
        return -1;
    for (uint32_t i = 0; i < WORDS; i++)
        ((uint32_t *)t->host)[i] = value(i, 0);
    return gpm_region_persist(t, t->host, t->size);
}

static int target_is(const gpm_region *t, uint32_t tx)
{
    const uint32_t *d = (const uint32_t *)t->host;
    uint32_t n = BLOCKS * THREADS;
    for (uint32_t i = 0; i < WORDS; i++) {
        uint32_t want = i < n * PER_THREAD ? value(i, tx) : value(i, 0);
        if (d[i] != want)
            return 0;
    }
    return 1;
}

/* One transaction t in mode gpm (fenced) or gpm-ndp, committed or not. */
static int transaction(gpmlog *log, gpm_region *t, uint32_t tx, int ndp, int parts, int commit)
{
    int *bad = dev_counter();
    if (!ndp) {
        if (gpmtx_begin(log) != 0 || gpm_persist_begin() != 0)
            return -1;
        tx_kernel<<<BLOCKS, THREADS>>>(gpmlog_device(log), (uint32_t *)t->dev, tx, 1, parts, bad);
        if (cudaDeviceSynchronize() != cudaSuccess || gpm_persist_end() != 0)
            return -1;
    } else {
        tx_kernel<<<BLOCKS, THREADS>>>(gpmlog_device_unfenced(log), (uint32_t *)t->dev, tx, 0,
                                       parts, bad);
        if (cudaDeviceSynchronize() != cudaSuccess || gpmlog_flush(log, NULL) != 0 ||
            gpmtx_begin(log) != 0)
            return -1;
        update_kernel<<<BLOCKS, THREADS>>>((uint32_t *)t->dev, tx);
        if (cudaDeviceSynchronize() != cudaSuccess ||
            gpm_region_persist(t, t->host, t->size) != 0)
            return -1;
    }
    if (take_counter(bad) != 0)
        return gpm_set_error("a kernel could not log");
    return commit ? gpmtx_commit(log) : 0;
}

static void run_case(const char *lname, const char *tname, int ndp, int parts)
{
    gpmlog log;
    gpm_region t;
    gpmtx_stats st;
    CHECKF(make_files(&log, &t, lname, tname, parts) == 0, "%s", gpm_last_error());
    CHECKF(transaction(&log, &t, 1, ndp, parts, 1) == 0, "%s", gpm_last_error());
    CHECKF(transaction(&log, &t, 2, ndp, parts, 0) == 0, "%s", gpm_last_error());
    CHECK(target_is(&t, 2));
    gpmlog_close(&log);
    gpm_unmap(&t);
    CHECK(gpmlog_open(&log, lname, 0) == 0);
    CHECK(gpm_map(&t, tname, 0, 0) == 0);
    CHECKF(gpmtx_recover(&log, &t, &st) == 0, "%s", gpm_last_error());
    CHECK(st.on_gpu && st.was_active && st.committed == 1);
    CHECK_EQ_INT(st.undone, BLOCKS * THREADS * (PER_THREAD + 1));
    CHECK(target_is(&t, 1));
    CHECK(!gpmtx_active(&log));
    for (uint32_t s = 0; s < log.g.n_slots; s++)
        CHECK_EQ_INT(gpmlog_tail(&log, s), 0);
    /* the device tails are in step: a new transaction logs from 0 */
    CHECKF(transaction(&log, &t, 3, ndp, parts, 1) == 0, "%s", gpm_last_error());
    CHECK(target_is(&t, 3) && gpmtx_committed(&log) == 2);
    gpmlog_close(&log);
    gpm_unmap(&t);
}

static void gpu_recovery_restores_hcl_fenced(void)
{
    NEED_GPU();
    run_case("gt-hcl", "gt-hcl-t", 0, 0);
}

static void gpu_recovery_restores_conv_fenced(void)
{
    NEED_GPU();
    run_case("gt-conv", "gt-conv-t", 0, 7);
}

static void gpu_recovery_restores_hcl_ndp(void)
{
    NEED_GPU();
    run_case("gt-hcl-ndp", "gt-hcl-ndp-t", 1, 0);
}

static void gpu_recovery_restores_conv_ndp(void)
{
    NEED_GPU();
    run_case("gt-conv-ndp", "gt-conv-ndp-t", 1, 5);
}

static uint8_t *slurp(const char *name, size_t *n)
{
    char full[4096];
    gpm_resolve_path(name, full, sizeof full);
    return check_read_file(full, n);
}

static void gpu_recovery_refuses_a_damaged_record(void)
{
    gpmlog log;
    gpm_region t;
    uint8_t *l0, *t0, *l1, *t1;
    size_t a, b, c, d;
    uint32_t slot;
    NEED_GPU();
    CHECK(make_files(&log, &t, "gt-bad", "gt-bad-t", 0) == 0);
    CHECK(transaction(&log, &t, 1, 0, 0, 0) == 0);
    slot = gpmlog_hcl_slot(&log.g, 4, 1, 9);
    ((uint8_t *)log.region.host)[gpmlog_hcl_chunk_off(&log.g, slot, 2)] ^= 1;
    l0 = slurp("gt-bad", &a);
    t0 = slurp("gt-bad-t", &b);
    CHECK(gpmtx_recover(&log, &t, NULL) == -1);
    CHECK_MSG(gpm_last_error(), "gt-bad");
    CHECK_MSG(gpm_last_error(), "fails its check");
    {
        char want[32];
        snprintf(want, sizeof want, "slot %u:", slot);
        CHECK_MSG(gpm_last_error(), want);
    }
    l1 = slurp("gt-bad", &c);
    t1 = slurp("gt-bad-t", &d);
    CHECK(l0 && l1 && t0 && t1 && a == c && b == d && memcmp(l0, l1, a) == 0 &&
          memcmp(t0, t1, b) == 0);
    free(l0);
    free(l1);
    free(t0);
    free(t1);
    ((uint8_t *)log.region.host)[gpmlog_hcl_chunk_off(&log.g, slot, 2)] ^= 1;
    CHECKF(gpmtx_recover(&log, &t, NULL) == 0, "%s", gpm_last_error());
    CHECK(target_is(&t, 0));
    gpmlog_close(&log);
    gpm_unmap(&t);
}

/* A recovery killed half way on the CPU: some records undone and removed,
 * then the GPU finishes it. */
static void gpu_finishes_a_recovery_begun_on_the_cpu(void)
{
    gpmlog log;
    gpm_region t;
    gpmtx_stats st;
    NEED_GPU();
    CHECK(make_files(&log, &t, "gt-half", "gt-half-t", 0) == 0);
    CHECK(transaction(&log, &t, 1, 0, 0, 0) == 0);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "gt-half", GPM_HOST_ONLY) == 0);
    for (uint32_t s = 0; s < log.g.n_slots; s += 2) {
        uint8_t *base = (uint8_t *)log.region.host;
        uint32_t *tail = (uint32_t *)(base + gpmlog_tail_off(&log.g, s));
        gpmtx_rec r;
        if (*tail == 0 ||
            gpmtx_rec_parse(&log.g, base, s, *tail, t.size, &r) != GPMTX_REC_OK)
            continue;
        gpmtx_rec_undo(&log.g, base, s, &r, (uint8_t *)t.host);
        if (s % 4 == 0)
            *tail = r.start;
    }
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "gt-half", 0) == 0);
    CHECKF(gpmtx_recover(&log, &t, &st) == 0, "%s", gpm_last_error());
    CHECK(st.on_gpu && target_is(&t, 0));
    gpmlog_close(&log);
    gpm_unmap(&t);
}

int main(void)
{
    RUN(gpu_recovery_restores_hcl_fenced);
    RUN(gpu_recovery_restores_conv_fenced);
    RUN(gpu_recovery_restores_hcl_ndp);
    RUN(gpu_recovery_restores_conv_ndp);
    RUN(gpu_recovery_refuses_a_damaged_record);
    RUN(gpu_finishes_a_recovery_begun_on_the_cpu);
    CHECK_EXIT();
}
