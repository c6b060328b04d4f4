/* SBRP's operations in kernels (gpm/sbrp.cuh), message passing: a thread
 * persists X and releases a flag in GPU memory; another, in another block
 * (device scope) or another warp of the block (block scope), acquires the
 * flag, persists Y and dFences. The kernels must finish with both stored,
 * and the trace must hold the release and the acquire with their threads,
 * scopes and flag, between the stores in each thread's order, as the
 * sbrp model reads them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/check_gpu.h"
#include "gpm/gpm.h"
#include "gpm/persistency.h"
#include "gpm/sbrp.cuh"

#define X_OFF 0
#define Y_OFF 128

/* Thread 0 of block 0 writes X and releases; the consumer (block 1's
 * thread 0 at device scope, block 0's thread 32 at block scope) acquires,
 * writes Y and dFences. */
__global__ void message_passing(uint8_t *pm, unsigned *flag, int device_scope)
{
    int producer = blockIdx.x == 0 && threadIdx.x == 0;
    int consumer = device_scope ? blockIdx.x == 1 && threadIdx.x == 0
                                : blockIdx.x == 0 && threadIdx.x == 32;
    if (producer) {
        gpm_store_u64((uint64_t *)(pm + X_OFF), 0x11ull);
        if (device_scope)
            gpm_prel_dev(flag, 1u);
        else
            gpm_prel_block(flag, 1u);
    } else if (consumer) {
        if (device_scope)
            while (gpm_pacq_dev(flag) != 1u)
                ;
        else
            while (gpm_pacq_block(flag) != 1u)
                ;
        gpm_store_u64((uint64_t *)(pm + Y_OFF), 0x22ull);
        gpm_ofence();
        gpm_dfence();
    }
}

static int run(const char *dir, int device_scope, uint64_t out[2])
{
    gpm_region r;
    unsigned *flag = NULL;
    char name[64];
    int rc;
    snprintf(name, sizeof name, "sbrp-mp-%d", device_scope);
    if (gpm_trace_open(dir) != 0 || gpm_map(&r, name, 4096, GPM_CREATE) != 0)
        return -1;
    rc = cudaMalloc(&flag, sizeof *flag) == cudaSuccess &&
                 cudaMemset(flag, 0, sizeof *flag) == cudaSuccess
             ? gpm_trace_begin()
             : gpm_set_error("cudaMalloc failed");
    if (rc == 0 && (rc = gpm_persist_begin()) == 0) {
        message_passing<<<device_scope ? 2 : 1, 64>>>((uint8_t *)r.dev, flag, device_scope);
        rc = cudaDeviceSynchronize() == cudaSuccess ? 0 : gpm_set_error("the kernel failed");
        if (gpm_persist_end() != 0)
            rc = -1;
    }
    if (gpm_trace_end() != 0)
        rc = -1;
    memcpy(&out[0], (uint8_t *)r.host + X_OFF, 8);
    memcpy(&out[1], (uint8_t *)r.host + Y_OFF, 8);
    cudaFree(flag);
    gpm_unmap(&r);
    return rc;
}

static uint64_t first(const gpm_ptrace *t, uint32_t kind, uint64_t off)
{
    for (uint64_t k = 0; k < t->nev; k++)
        if (t->ev[k].kind == kind && (kind != GPM_TR_STORE || t->ev[k].off == off))
            return k;
    return GPM_NEVER;
}

/* The consumer's acquire that read the flag set: its last before K (the
 * spin's earlier ones read it clear). */
static uint64_t last_acquire_before(const gpm_ptrace *t, uint64_t k)
{
    uint64_t a = GPM_NEVER;
    for (uint64_t e = 0; e < k && e < t->nev; e++)
        if (t->ev[e].kind == GPM_TR_PACQ)
            a = e;
    return a;
}

static void message_passing_is_traced_as_sbrp(void)
{
    NEED_GPU();
    for (int scope = 0; scope < 2; scope++) {
        char dir[256];
        gpm_ptrace t;
        uint64_t out[2] = {0, 0}, x, rel, acq, y, of, df;
        snprintf(dir, sizeof dir, "/tmp/gpm-sbrp-device-XXXXXX");
        CHECK(mkdtemp(dir) != NULL);
        CHECKF(run(dir, scope, out) == 0, "%s", gpm_last_error());
        CHECK_EQ_INT(out[0], 0x11);
        CHECK_EQ_INT(out[1], 0x22);
        CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
        x = first(&t, GPM_TR_STORE, X_OFF);
        rel = first(&t, GPM_TR_PREL, 0);
        y = first(&t, GPM_TR_STORE, Y_OFF);
        acq = last_acquire_before(&t, y);
        of = first(&t, GPM_TR_OFENCE, 0);
        df = first(&t, GPM_TR_DFENCE, 0);
        CHECKF(x != GPM_NEVER && rel != GPM_NEVER && acq != GPM_NEVER && y != GPM_NEVER &&
                   of != GPM_NEVER && df != GPM_NEVER,
               "scope %d: an event is missing", scope);
        if (x == GPM_NEVER || rel == GPM_NEVER || acq == GPM_NEVER || y == GPM_NEVER ||
            of == GPM_NEVER || df == GPM_NEVER) {
            gpm_ptrace_free(&t);
            continue;
        }
        CHECK(x < rel && rel < acq && acq < y && y < of && of < df);
        CHECK(t.ev[x].thread == t.ev[rel].thread && t.ev[y].thread == t.ev[acq].thread &&
              t.ev[rel].thread != t.ev[acq].thread);
        CHECK_EQ_INT(t.ev[rel].aux, scope ? GPM_SCOPE_DEVICE : GPM_SCOPE_BLOCK);
        CHECK_EQ_INT(t.ev[acq].aux, scope ? GPM_SCOPE_DEVICE : GPM_SCOPE_BLOCK);
        /* The flag is in GPU memory: both name it by its address. */
        CHECK(t.ev[rel].off == t.ev[acq].off && t.ev[rel].obj == t.ev[acq].obj);
        gpm_ptrace_free(&t);
    }
}

int main(void)
{
    RUN(message_passing_is_traced_as_sbrp);
    CHECK_EXIT();
}
