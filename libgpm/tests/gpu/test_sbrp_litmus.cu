/* SBRP's litmus tests on the GPU: small kernels of two or three threads
 * (P and Q in one block, R in another) persisting words X, Y and Z of PM
 * with gpm/sbrp.cuh's operations. Each is checked two ways:
 *
 *   the model: one instance runs traced, and the outcomes the sbrp model
 *   allows from that trace (every closed set of its persists) must be the
 *   ones SBRP's rules give: at the end of the kernel, and at any crash
 *   point;
 *   the hardware: 1024 instances run untraced, again and again, while a
 *   CPU thread reads PM (host memory standing in for it) and records what
 *   it sees. Under the conservative mapping what the CPU sees is durable
 *   in order, so it must never see an outcome the model forbids at every
 *   crash point. It reads the words in reverse order (Z, Y, then X), so
 *   that a later word seen set with an earlier one clear is a real
 *   reordering, not a read that raced ahead.
 *
 * With LITMUS_TSV set, a row per test goes there: its name, the outcomes
 * at the end and anywhere, and what the CPU saw with counts. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/check_gpu.h"
#include "gpm/check_sbrp.h"
#include "gpm/gpm.h"
#include "gpm/persistency.h"
#include "gpm/sbrp.cuh"

#define SLOT 256       /* an instance's PM: X, Y, Z a line apart */
#define INSTANCES 1024 /* two blocks each, all resident at once */
#define ROUNDS 40
#define NOUT (1 << CHECK_SBRP_WORDS)

enum litmus_id {
    UNORDERED, OFENCE, DFENCE, DFENCE_OWN, SYSTEM_FENCE, MP_BLOCK, MP_BLOCK_ACROSS, MP_DEVICE,
    MP_HALF_BLOCK, TRANSITIVE, REL_BEFORE_ONLY, ACQ_AFTER_ONLY, DFENCE_BRINGS, OFENCE_GROUPS,
    NLITMUS
};

/* Each test: its name, and the outcomes SBRP's rules allow at the end of
 * the kernel and at any crash point (x, y, z; as in libgpm/tests/cpu/
 * test_sbrp.c, whose traces are these programs by hand). */
static const struct {
    const char *name, *at_end, *anywhere;
} litmus[NLITMUS] = {
    {"P: x y (unordered)", "000 100 010 110", "000 100 010 110"},
    {"P: x oFence y", "000 100 110", "000 100 110"},
    {"P: x dFence y", "100 110", "000 100 110"},
    {"P: x; Q: y dFence (a dFence covers its own thread)", "010 110", "000 100 010 110"},
    {"P: x gpm_persist y (a system fence)", "100 110", "000 100 110"},
    {"P: x pRel_block; Q: pAcq_block y (one block)", "000 100 110", "000 100 110"},
    {"P: x pRel_block; R: pAcq_block y (across blocks: too narrow)", "000 100 010 110",
     "000 100 010 110"},
    {"P: x pRel_dev; R: pAcq_dev y", "000 100 110", "000 100 110"},
    {"P: x pRel_dev; R: pAcq_block y (one side too narrow)", "000 100 010 110",
     "000 100 010 110"},
    {"P: x pRel_block; Q: pAcq_block y pRel_dev; R: pAcq_dev z (transitive)",
     "000 100 110 111", "000 100 110 111"},
    {"P: pRel_dev x; R: pAcq_dev y (a release orders what came before it)", "000 100 010 110",
     "000 100 010 110"},
    {"P: x pRel_dev; R: y pAcq_dev z (an acquire orders what comes after it)",
     "000 100 010 110 101 111", "000 100 010 110 101 111"},
    {"P: x pRel_dev; R: pAcq_dev y dFence (a dFence brings what is ordered before)", "110",
     "000 100 110"},
    {"P: x pRel_dev y oFence z (a release cuts no group)", "000 100 010 110 111",
     "000 100 010 110 111"},
};

__device__ void pause_ns(unsigned ns)
{
    if (ns)
        __nanosleep(ns);
}

/* Waits, without acquiring, until F is set (a relaxed load at device
 * scope: the acquire that follows is the one the test is about). */
__device__ void wait_set(const unsigned *f)
{
    unsigned v;
    do
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(f) : "memory");
    while (v == 0);
}

/* Instance I: blocks 2I and 2I+1, P = (2I, 0), Q = (2I, 32), R = (2I+1, 0).
 * GAP: the pause between a thread's operations, so that the CPU can see
 * the states between them; each instance starts at its own time. */
__global__ void litmus_kernel(int id, uint8_t *pm, unsigned *flags, unsigned gap)
{
    unsigned i = blockIdx.x / 2;
    int p = blockIdx.x % 2 == 0 && threadIdx.x == 0, q = blockIdx.x % 2 == 0 && threadIdx.x == 32,
        r = blockIdx.x % 2 == 1 && threadIdx.x == 0;
    uint64_t *x = (uint64_t *)(pm + (uint64_t)i * SLOT), *y = x + 8, *z = x + 16;
    unsigned *f = flags + 2 * i, *g = f + 1;
    if (!p && !q && !r)
        return;
    pause_ns(gap ? (i * 7919u) % 100000u : 0);
    switch (id) {
    case UNORDERED:
        if (p) {
            gpm_store_u64(x, 1);
            pause_ns(gap);
            gpm_store_u64(y, 1);
        }
        break;
    case OFENCE:
    case DFENCE:
    case SYSTEM_FENCE:
        if (p) {
            gpm_store_u64(x, 1);
            if (id == OFENCE)
                gpm_ofence();
            else if (id == DFENCE)
                gpm_dfence();
            else
                gpm_persist();
            pause_ns(gap);
            gpm_store_u64(y, 1);
        }
        break;
    case DFENCE_OWN:
        if (p)
            gpm_store_u64(x, 1);
        if (q) {
            gpm_store_u64(y, 1);
            gpm_dfence();
        }
        break;
    case MP_BLOCK:
    case MP_BLOCK_ACROSS:
    case MP_DEVICE:
    case MP_HALF_BLOCK:
    case DFENCE_BRINGS: {
        int consumer = id == MP_BLOCK ? q : r;
        if (p) {
            gpm_store_u64(x, 1);
            pause_ns(gap);
            if (id == MP_BLOCK || id == MP_BLOCK_ACROSS)
                gpm_prel_block(f, 1u);
            else
                gpm_prel_dev(f, 1u);
        } else if (consumer) {
            wait_set(f);
            if (id == MP_DEVICE || id == DFENCE_BRINGS)
                gpm_pacq_dev(f);
            else
                gpm_pacq_block(f);
            gpm_store_u64(y, 1);
            if (id == DFENCE_BRINGS)
                gpm_dfence();
        }
        break;
    }
    case TRANSITIVE:
        if (p) {
            gpm_store_u64(x, 1);
            pause_ns(gap);
            gpm_prel_block(f, 1u);
        } else if (q) {
            wait_set(f);
            gpm_pacq_block(f);
            gpm_store_u64(y, 1);
            pause_ns(gap);
            gpm_prel_dev(g, 1u);
        } else {
            wait_set(g);
            gpm_pacq_dev(g);
            gpm_store_u64(z, 1);
        }
        break;
    case REL_BEFORE_ONLY:
        if (p) {
            gpm_prel_dev(f, 1u);
            pause_ns(gap);
            gpm_store_u64(x, 1);
        } else if (r) {
            wait_set(f);
            gpm_pacq_dev(f);
            gpm_store_u64(y, 1);
        }
        break;
    case ACQ_AFTER_ONLY:
        if (p) {
            gpm_store_u64(x, 1);
            pause_ns(gap);
            gpm_prel_dev(f, 1u);
        } else if (r) {
            gpm_store_u64(y, 1);
            wait_set(f);
            gpm_pacq_dev(f);
            gpm_store_u64(z, 1);
        }
        break;
    case OFENCE_GROUPS:
        if (p) {
            gpm_store_u64(x, 1);
            gpm_prel_dev(f, 1u);
            pause_ns(gap);
            gpm_store_u64(y, 1);
            gpm_ofence();
            pause_ns(gap);
            gpm_store_u64(z, 1);
        }
        break;
    }
}

/* The CPU's watch of PM. GEN is odd while the host clears PM between
 * rounds (a sequence lock): a state read across a clear, y from before it
 * and x after, is not the kernels', and is dropped. */
struct observer {
    const volatile uint64_t *pm;
    int stop;
    unsigned gen;
    long long seen[NOUT];
};

/* Reads every instance's Z, Y and X, in that order, until told to stop. */
static void *observe(void *arg)
{
    struct observer *o = (struct observer *)arg;
    while (!__atomic_load_n(&o->stop, __ATOMIC_SEQ_CST)) {
        for (unsigned i = 0; i < INSTANCES; i++) {
            const volatile uint64_t *w = o->pm + (uint64_t)i * (SLOT / 8);
            unsigned g = __atomic_load_n(&o->gen, __ATOMIC_SEQ_CST);
            int k = (w[16] != 0) << 2;
            k |= (w[8] != 0) << 1;
            k |= w[0] != 0;
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            if (g % 2 == 0 && __atomic_load_n(&o->gen, __ATOMIC_SEQ_CST) == g)
                o->seen[k]++;
        }
    }
    return NULL;
}

/* Clears N instances' words and flags. */
static int clear(gpm_region *r, unsigned *flags, unsigned n)
{
    memset(r->host, 0, (size_t)n * SLOT);
    return cudaMemset(flags, 0, 2 * n * sizeof *flags) == cudaSuccess
               ? 0
               : gpm_set_error("cudaMemset failed");
}

static int launch(int id, gpm_region *r, unsigned *flags, unsigned n, unsigned gap)
{
    litmus_kernel<<<2 * n, 64>>>(id, (uint8_t *)r->dev, flags, gap);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : gpm_set_error("the litmus kernel failed");
}

/* The model's outcomes for litmus ID from one traced instance: at the end,
 * and the union over every crash point. */
static int model(int id, const char *dir, gpm_region *r, unsigned *flags, int end[NOUT],
                 int anywhere[NOUT])
{
    static const uint64_t off[CHECK_SBRP_WORDS] = {0, 64, 128};
    gpm_ptrace t;
    int rc = clear(r, flags, 1) == 0 ? gpm_trace_begin() : -1;
    if (rc == 0 && (rc = gpm_persist_begin()) == 0) {
        rc = launch(id, r, flags, 1, 0);
        if (gpm_persist_end() != 0)
            rc = -1;
    }
    if (gpm_trace_end() != 0 || rc != 0)
        return -1;
    if (gpm_ptrace_load(&t, dir) != 0)
        return -1;
    rc = check_sbrp_outcomes(&t, ~0ull, off, CHECK_SBRP_WORDS, end);
    for (uint64_t c = 0; rc == 0 && c <= t.nev; c++)
        rc = check_sbrp_outcomes(&t, c, off, CHECK_SBRP_WORDS, anywhere);
    gpm_ptrace_free(&t);
    return rc;
}

static void litmus_on_the_gpu(void)
{
    char dir[256], end_s[128], any_s[128], seen_s[512];
    const char *tsv = getenv("LITMUS_TSV");
    FILE *out = NULL;
    gpm_region r;
    unsigned *flags = NULL;
    long long mid_states = 0;
    NEED_GPU();
    snprintf(dir, sizeof dir, "/tmp/gpm-sbrp-litmus-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    CHECKF(gpm_trace_open(dir) == 0, "%s", gpm_last_error());
    CHECKF(gpm_map(&r, "sbrp-litmus", (size_t)INSTANCES * SLOT, GPM_CREATE) == 0, "%s",
           gpm_last_error());
    CHECK(cudaMalloc(&flags, 2 * INSTANCES * sizeof *flags) == cudaSuccess);
    if (tsv) {
        CHECKF((out = fopen(tsv, "w")) != NULL, "LITMUS_TSV=%s: cannot write it", tsv);
        fprintf(out, "litmus\tallowed_at_end\tallowed_anywhere\tobserved\tforbidden_seen\n");
    }
    for (int id = 0; id < NLITMUS; id++) {
        int end[NOUT] = {0}, anywhere[NOUT] = {0}, final;
        long long forbidden = 0;
        struct observer o;
        pthread_t th;
        CHECKF(model(id, dir, &r, flags, end, anywhere) == 0, "%s: %s", litmus[id].name,
               gpm_last_error());
        check_sbrp_string(end, CHECK_SBRP_WORDS, end_s, sizeof end_s);
        check_sbrp_string(anywhere, CHECK_SBRP_WORDS, any_s, sizeof any_s);
        CHECKF(strcmp(end_s, litmus[id].at_end) == 0, "%s: the model allows %s at the end, "
               "SBRP's rules %s", litmus[id].name, end_s, litmus[id].at_end);
        CHECKF(strcmp(any_s, litmus[id].anywhere) == 0, "%s: the model allows %s at some crash "
               "point, SBRP's rules %s", litmus[id].name, any_s, litmus[id].anywhere);
        memset(&o, 0, sizeof o);
        o.pm = (const volatile uint64_t *)r.host;
        CHECK(pthread_create(&th, NULL, observe, &o) == 0);
        for (int k = 0; k < ROUNDS; k++) {
            int rc;
            __atomic_add_fetch(&o.gen, 1, __ATOMIC_SEQ_CST); /* odd: clearing */
            rc = clear(&r, flags, INSTANCES);
            __atomic_add_fetch(&o.gen, 1, __ATOMIC_SEQ_CST);
            if (rc != 0 || launch(id, &r, flags, INSTANCES, 20000) != 0)
                break;
        }
        __atomic_store_n(&o.stop, 1, __ATOMIC_SEQ_CST);
        pthread_join(th, NULL);
        CHECKF(cudaGetLastError() == cudaSuccess, "%s: %s", litmus[id].name, gpm_last_error());
        /* The state every instance ends in: x, y (and z where written). */
        final = (((const uint64_t *)r.host)[16] != 0) << 2 | 3;
        seen_s[0] = '\0';
        for (int k = 0; k < NOUT; k++) {
            if (!o.seen[k])
                continue;
            forbidden += anywhere[k] ? 0 : o.seen[k];
            mid_states += k != 0 && k != final ? o.seen[k] : 0;
            snprintf(seen_s + strlen(seen_s), sizeof seen_s - strlen(seen_s), "%s%d%d%d:%lld",
                     seen_s[0] ? " " : "", k & 1, k >> 1 & 1, k >> 2 & 1, o.seen[k]);
        }
        printf("# %s: allowed at the end %s, anywhere %s; the CPU saw %s\n", litmus[id].name,
               end_s, any_s, seen_s);
        if (out)
            fprintf(out, "%s\t%s\t%s\t%s\t%lld\n", litmus[id].name, end_s, any_s, seen_s,
                    forbidden);
        CHECKF(forbidden == 0, "%s: the CPU saw %lld forbidden states (%s; allowed %s)",
               litmus[id].name, forbidden, seen_s, any_s);
    }
    /* The observer did see states between a kernel's stores: otherwise it
     * would have tested nothing. */
    CHECKF(mid_states > 0, "the CPU never saw a state between two stores");
    if (out)
        fclose(out);
    cudaFree(flags);
    gpm_unmap(&r);
}

int main(void)
{
    RUN(litmus_on_the_gpu);
    CHECK_EXIT();
}
