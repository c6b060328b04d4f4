/* The trace of kernels' stores and fences (gpm/trace.h): a kernel stores
 * into a traced mapping, fences, stores again; the trace must hold every
 * store to PM (none to device memory) with its bytes, thread and line, each
 * thread's fence after its stores, sites named by their source lines, and
 * replay to the file byte for byte. GPM_MUTATE must remove a kernel's
 * persist, which the model then sees. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/check_gpu.h"
#include "gpm/copy.h"
#include "gpm/gpm.cuh"
#include "gpm/gpm.h"
#include "gpm/persistency.h"

#define THREADS 64
#define DATA_OFF 0
#define MARK_OFF 4096
#define COPY_OFF 8192
#define COPY_BYTES 100 /* six 16-byte stores and four single bytes */

static const unsigned persist_line = __LINE__ + 8; /* the kernel's gpm_persist */

/* Thread i: its data word, a persist, then its marker, never persisted;
 * and a store to device memory, which is not PM. */
__global__ void data_then_marker(uint8_t *pm, uint32_t *scratch)
{
    uint32_t i = threadIdx.x;
    gpm_store_u64((uint64_t *)(pm + DATA_OFF) + i, 0x1000ull + i);
    gpm_persist();
    gpm_store_u32((uint32_t *)(pm + MARK_OFF) + i, 0xa0u + i);
    gpm_store_u32(scratch + i, i);
}

static int fresh_dir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/gpm-trace-device-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

/* Runs the kernel and a 100-byte gpm_memcpy under a trace of DIR. */
static int traced_run(const char *dir, const char *name)
{
    gpm_region r;
    uint32_t *scratch;
    uint8_t *src;
    uint8_t bytes[COPY_BYTES];
    int rc;
    for (int i = 0; i < COPY_BYTES; i++)
        bytes[i] = (uint8_t)(3 * i + 1);
    if (gpm_trace_open(dir) != 0 || gpm_map(&r, name, 3 * 4096, GPM_CREATE) != 0)
        return -1;
    rc = cudaMalloc(&scratch, THREADS * 4) == cudaSuccess &&
                 cudaMalloc(&src, COPY_BYTES) == cudaSuccess &&
                 cudaMemcpy(src, bytes, COPY_BYTES, cudaMemcpyHostToDevice) == cudaSuccess
             ? 0
             : -1;
    if (rc == 0)
        rc = gpm_trace_begin();
    if (rc == 0)
        rc = gpm_persist_begin();
    if (rc == 0) {
        data_then_marker<<<1, THREADS>>>((uint8_t *)r.dev, scratch);
        rc = cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
    }
    if (rc == 0)
        rc = gpm_memcpy((uint8_t *)r.dev + COPY_OFF, src, COPY_BYTES);
    if (gpm_persist_end() != 0)
        rc = -1;
    if (gpm_trace_end() != 0)
        rc = -1;
    cudaFree(scratch);
    cudaFree(src);
    gpm_unmap(&r);
    return rc;
}

static int in(uint64_t off, uint64_t lo, uint64_t n) { return off >= lo && off < lo + n; }

static void kernel_stores_and_fences_are_traced(void)
{
    char dir[256], report[4096];
    gpm_ptrace t;
    uint64_t *d = NULL, *n_ = NULL, data[THREADS], fence[THREADS], copied = 0;
    uint64_t mark[THREADS];
    NEED_GPU();
    CHECK(fresh_dir(dir, sizeof dir) == 0);
    CHECKF(traced_run(dir, "trace-dev") == 0, "%s", gpm_last_error());
    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    CHECK(t.ended);
    for (int i = 0; i < THREADS; i++)
        data[i] = fence[i] = mark[i] = GPM_NEVER;
    for (uint64_t k = 0; k < t.nev; k++) {
        const gpm_trace_rec *e = &t.ev[k];
        if (e->kind == GPM_TR_STORE) {
            CHECK_EQ_INT(e->aux, GPM_TR_GPU);
            CHECK(e->thread >> 63);
            if (in(e->off, DATA_OFF, 8 * THREADS)) {
                uint32_t i = (uint32_t)((e->off - DATA_OFF) / 8);
                uint64_t v;
                CHECK_EQ_INT(e->len, 8);
                memcpy(&v, t.bytes + t.data[k], 8);
                CHECK_EQ_INT(v, 0x1000 + i);
                CHECK_EQ_INT(e->thread & 0x3ff, i);
                CHECKF(strstr(gpm_ptrace_site(&t, k), "test_trace_device.cu:") != NULL,
                       "site %s", gpm_ptrace_site(&t, k));
                data[i] = k;
            } else if (in(e->off, MARK_OFF, 4 * THREADS)) {
                mark[(e->off - MARK_OFF) / 4] = k;
            } else {
                CHECKF(in(e->off, COPY_OFF, COPY_BYTES), "a store at %llu",
                       (unsigned long long)e->off);
                copied += e->len;
            }
        } else if (e->kind == GPM_TR_FENCE && (e->thread & 0x3ff) < THREADS &&
                   strstr(gpm_ptrace_site(&t, k), "test_trace_device.cu:")) {
            char want[64];
            snprintf(want, sizeof want, "test_trace_device.cu:%u", persist_line);
            CHECKF(strstr(gpm_ptrace_site(&t, k), want), "fence site %s, not %s",
                   gpm_ptrace_site(&t, k), want);
            fence[e->thread & 0x3ff] = k;
        }
    }
    CHECK_EQ_INT(copied, COPY_BYTES);
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(gpm_durability(&t, GPM_MODEL_NDP, &n_) == 0);
    for (int i = 0; i < THREADS; i++) {
        CHECKF(data[i] != GPM_NEVER && mark[i] != GPM_NEVER && fence[i] != GPM_NEVER,
               "thread %d: a store or its fence is missing", i);
        CHECK(data[i] < fence[i] && fence[i] < mark[i]);
        CHECK_EQ_INT(d[data[i]], fence[i]); /* strict: durable at its thread's fence */
        CHECK(d[mark[i]] == GPM_NEVER);
        CHECK(n_[data[i]] == GPM_NEVER); /* ndp: only the CPU's flush */
    }
    free(d);
    free(n_);
    CHECKF(gpm_replay_check(&t, report, sizeof report) == 0, "%s", report);
    gpm_ptrace_free(&t);
}

static void a_mutant_removes_the_kernels_persist(void)
{
    char dir[256], site[64];
    gpm_ptrace t;
    uint64_t *d = NULL, stores = 0;
    NEED_GPU();
    CHECK(fresh_dir(dir, sizeof dir) == 0);
    snprintf(site, sizeof site, "test_trace_device.cu:%u", persist_line);
    setenv("GPM_MUTATE", site, 1);
    CHECKF(gpm_trace_device_mutant() == 0, "%s", gpm_last_error());
    CHECKF(traced_run(dir, "trace-dev-mutant") == 0, "%s", gpm_last_error());
    unsetenv("GPM_MUTATE");
    CHECK(gpm_trace_device_mutant() == 0);
    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    for (uint64_t k = 0; k < t.nev; k++) {
        CHECKF(!(t.ev[k].kind == GPM_TR_FENCE && strstr(gpm_ptrace_site(&t, k), site)),
               "the mutated persist %s still ran", site);
        if (t.ev[k].kind == GPM_TR_STORE && in(t.ev[k].off, DATA_OFF, 8 * THREADS)) {
            CHECK(d[k] == GPM_NEVER);
            stores++;
        }
    }
    CHECK_EQ_INT(stores, THREADS);
    free(d);
    /* Each thread's removed fence is recorded where it would have run:
     * restored, it makes that thread's stores durable again. */
    t.restore_removed = 1;
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    stores = 0;
    for (uint64_t k = 0; k < t.nev; k++)
        if (t.ev[k].kind == GPM_TR_STORE && in(t.ev[k].off, DATA_OFF, 8 * THREADS)) {
            CHECKF(d[k] != GPM_NEVER && t.ev[d[k]].kind == GPM_TR_REMOVED &&
                       t.ev[d[k]].aux == GPM_TR_FENCE && t.ev[d[k]].thread == t.ev[k].thread &&
                       strstr(gpm_ptrace_site(&t, d[k]), site),
                   "store %llu: durable at %llu once the removed fences are restored",
                   (unsigned long long)k, (unsigned long long)d[k]);
            stores++;
        }
    CHECK_EQ_INT(stores, THREADS);
    free(d);
    gpm_ptrace_free(&t);
}

int main(void)
{
    RUN(kernel_stores_and_fences_are_traced);
    RUN(a_mutant_removes_the_kernels_persist);
    CHECK_EXIT();
}
