/* gpm-roofs: the physical bounds of persisting from a GPU on this machine,
 * measured once per platform for the persistence roofline (make roofline).
 *
 * Into a mapped PM file of SIZE bytes (default 1 GiB), each probe at full
 * occupancy (every SM's resident threads) unless it says otherwise:
 *   link-write     coalesced 8-byte stores, one fence per thread at the
 *                  end: the link's write bandwidth B (bytes/s);
 *   persist-seq    the same stores, each followed by a persist: the rate
 *                  of coalesced persists (a warp's 32 words are one run);
 *   persist-rand8  one 8-byte store and its persist per 64-byte line, the
 *                  lines in a scattered order (a bijection, so each line is
 *                  written once): the rate R of random persists;
 *   persist-rand16 the same with 16-byte stores;
 *   write-rand16   the same 16-byte stores, one fence per thread at the
 *                  end: whether the fences or the scatter limit small
 *                  writes spread over the whole file;
 *   persist-stride16 16-byte stores and their persists, one per line, a
 *                  warp's 32 lanes STRIDE bytes apart (64 B to 256 KiB,
 *                  a row each): how the persist rate falls as writes
 *                  spread, between persist-seq's runs and the scatter of
 *                  persist-rand16 (gpKVS's sorted SETs land some KiB
 *                  apart);
 *   fence-latency  one thread: store, persist, next line; seconds each;
 *   write-scatterS records of S = 64, 128 or 320 bytes, each at a
 *                  scattered slot of its own (S bytes; for 320, a power of
 *                  two of them, so 5/8 of the file), a warp a record: S/16
 *                  lanes store 16 bytes each, then every lane persists, one
 *                  fence per warp and record; records/s (a KVS's SET);
 *   write-scatter128-inN a 128-byte record at byte 48 of a slot of N =
 *                  304 bytes (GPHash's value cell: its lines straddle) or
 *                  at byte 128 of N = 384 (the cell on a line of its own);
 *   update-inN     the same record, persisted, then an 8-byte store at
 *                  byte 8 of its slot, persisted (GPHash's update: the
 *                  value, then the swing of its reference): updates/s;
 *   fence-only     every thread persists 64 times with nothing stored:
 *                  the rate of a warp's system fences, alone;
 *   update-half, dev-read128-half, update-beside-reads,
 *   dev-read128-beside-updates  update-in304's updates from half the
 *                  GPU's threads, and independent 128-byte reads of device
 *                  memory of --size bytes from the other half, each alone,
 *                  then both at once on two streams (GPHash's lookups in
 *                  its mirror beside its persists): whether the two share
 *                  a limit (their rates fall together) or overlap;
 *   read-randS     groups of S/16 lanes (one lane for 8) read records of
 *                  S = 8, 64 or 128 bytes at scattered places, each read
 *                  independent, with loads that bypass the caches:
 *                  records/s (GETs served from PM);
 *   read-depS      each group follows a chain of its own, the next record
 *                  the first word of the one just read: dependent reads/s
 *                  (a probe that walks PM);
 *   batch-floor    one synchronous batch of a key-value store with nothing
 *                  to do, on a stream of its own: --batch operations (an op
 *                  byte and a 32-byte key each) copied in from pinned
 *                  memory, one kernel whose threads store a word to PM and
 *                  persist it, 16-byte answers copied back, a stream
 *                  synchronisation; the median of 2000 batches' seconds;
 *   batch-floor-graph the same three operations captured once as a CUDA
 *                  Graph and launched each batch;
 *   d2h-copy       cudaMemcpy of device memory into the registered
 *                  mapping: what CAP-mm's copy moves per second;
 *   cpu-flush      the CPU flush of that mapping with the best of 1..32
 *                  threads: CAP-mm's persist rate;
 *   fs-write       pwrite of host memory into the file and one fsync:
 *                  CAP-fs's persist rate.
 * Every GPU probe writes a pattern of its own and the CPU checks every
 * word it wrote, so a store that never landed cannot pass; a read probe's
 * sum of the words it read must equal the CPU's, and a batch's answers and
 * PM words are checked after it. Rows (one per probe, median of the
 * repetitions) go to --out; params say rate_per_s (persists/s, bytes/s,
 * records/s, reads/s or batches/s) and the counts. Timing: CUDA events
 * around the kernels, a monotonic clock around copies, flushes, writes and
 * batches. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/args.h"
#include "gpm/cap.h"
#include "gpm/gpm.cuh"
#include "gpm/gpm.h"
#include "gpm/hd.h"
#include "gpm/platform.h"
#include "gpm/results.h"

#define PROG "gpm-roofs"
#define MAX_REPS 32
#define LINE 64
/* An odd multiplier: line = (j * SCATTER) mod lines is a bijection over a
 * power-of-two count of lines, and a warp's 32 consecutive j land far
 * apart. */
#define SCATTER 0x9E3779B97F4A7C15ull
#define FENCE_STEPS 16384 /* lines: 1 MiB, the smallest --size */
#define FENCE_EACH 64     /* fence-only's persists a thread */
#define READS (1u << 24)  /* records a read probe reads each repetition, at most */
#define BATCH_WARM 100    /* untimed batches before batch-floor's timed ones */
#define BATCH_TIMED 2000  /* batches whose median is batch-floor's (>= MAX_REPS) */

GPM_HD uint64_t rf_pattern(uint64_t i, uint64_t seed)
{
    return gpm_mix64(i + seed * 0xD1B54A32D192ED03ull);
}

/* A batch-floor operation's answer: its key (4 words), op byte and index
 * mixed; also the word it stores to PM. */
GPM_HD uint64_t rf_answer(const uint64_t *key, uint8_t op, uint64_t i)
{
    return gpm_mix64(key[0] ^ key[1] ^ key[2] ^ key[3] ^ ((uint64_t)op << 56) ^ i);
}

/* Lanes that read a record of RB bytes together: 16 bytes each, or one
 * for an 8-byte record. */
GPM_HD unsigned rf_group(unsigned rb)
{
    return rb >= 16 ? rb / 16 : 1;
}

/* ---- kernels ---- */

__global__ void rf_seq(uint64_t *pm, size_t words, uint64_t seed, int per_store)
{
    for (size_t i = gpm_grid_rank(); i < words; i += gpm_grid_threads()) {
        gpm_store_u64(&pm[i], rf_pattern(i, seed));
        if (per_store)
            gpm_persist();
    }
    if (!per_store)
        gpm_persist();
}

__global__ void rf_rand(uint64_t *pm, size_t lines, uint64_t seed, int wide, int per_store)
{
    for (size_t j = gpm_grid_rank(); j < lines; j += gpm_grid_threads()) {
        size_t line = (size_t)((j * SCATTER) & (lines - 1));
        uint64_t v = rf_pattern(line, seed);
        uint64_t *p = pm + line * (LINE / 8);
        if (wide)
            gpm_store_v4((uint4 *)p, make_uint4((unsigned)v, (unsigned)(v >> 32), ~(unsigned)v,
                                                ~(unsigned)(v >> 32)));
        else
            gpm_store_u64(p, v);
        if (per_store)
            gpm_persist();
    }
    if (!per_store)
        gpm_persist();
}

/* Line k % n * per + k / n for k = 0 .. lines-1, n = lines / per: each
 * line once, consecutive k (a warp's lanes) PER lines apart. */
__global__ void rf_stride(uint64_t *pm, size_t lines, size_t per, uint64_t seed)
{
    size_t n = lines / per;
    for (size_t k = gpm_grid_rank(); k < lines; k += gpm_grid_threads()) {
        size_t line = k % n * per + k / n;
        uint64_t v = rf_pattern(line, seed);
        gpm_store_v4((uint4 *)(pm + line * (LINE / 8)),
                     make_uint4((unsigned)v, (unsigned)(v >> 32), ~(unsigned)v, ~(unsigned)(v >> 32)));
        gpm_persist();
    }
}

__global__ void rf_fence(uint64_t *pm, size_t steps, uint64_t seed)
{
    for (size_t k = 0; k < steps; k++) {
        gpm_store_u64(&pm[k * (LINE / 8)], rf_pattern(k, seed));
        gpm_persist();
    }
}

__global__ void rf_fill(uint64_t *buf, size_t words, uint64_t seed)
{
    for (size_t i = gpm_grid_rank(); i < words; i += gpm_grid_threads())
        buf[i] = rf_pattern(i, seed);
}

__device__ uint4 rf_v4(uint64_t a, uint64_t b)
{
    return make_uint4((unsigned)a, (unsigned)(a >> 32), (unsigned)b, (unsigned)(b >> 32));
}

/* Where a scatter probe writes: a record of RB bytes at byte OFF of each
 * slot of SB bytes (16-byte multiples); with SWING, an 8-byte word at byte
 * 8 of the slot after it. */
typedef struct scatter {
    const char *name;
    unsigned rb, sb, off, swing;
} scatter;

/* Warp w writes the record of slot (j * SCATTER) mod SLOTS for j = w,
 * w + warps, ...: RB / 16 lanes store 16 bytes each (word i of the file
 * holds rf_pattern(i)), then every lane persists: one fence per warp and
 * record; with a swing, lane 0 then stores it and persists. */
__global__ void rf_scatter(uint64_t *pm, size_t slots, scatter g, uint64_t seed)
{
    unsigned lane = threadIdx.x % 32;
    size_t warps = gpm_grid_threads() / 32;
    for (size_t j = gpm_grid_rank() / 32; j < slots; j += warps) {
        size_t slot = (size_t)((j * SCATTER) & (slots - 1)) * (g.sb / 8);
        size_t w = slot + g.off / 8 + 2 * lane;
        if (lane < g.rb / 16)
            gpm_store_v4((uint4 *)(pm + w), rf_v4(rf_pattern(w, seed), rf_pattern(w + 1, seed)));
        gpm_persist();
        if (g.swing && lane == 0) {
            gpm_store_u64(pm + slot + 1, rf_pattern(slot + 1, seed));
            gpm_persist();
        }
    }
}

/* fence-only: N persists a thread, nothing stored. */
__global__ void rf_fences(int n)
{
    for (int k = 0; k < n; k++)
        gpm_persist();
}

/* This lane's part of record REC (RB bytes), loaded so that it is fetched
 * again from memory (ld.cv, no cached copy): the sum of its words; *FIRST
 * its first word. */
__device__ uint64_t rf_ld(const uint64_t *rec, unsigned sub, unsigned rb, uint64_t *first)
{
    if (rb < 16)
        return *first = __ldcv((const unsigned long long *)rec);
    uint4 q = __ldcv((const uint4 *)rec + sub);
    *first = q.x | (uint64_t)q.y << 32;
    return *first + (q.z | (uint64_t)q.w << 32);
}

/* Groups of rf_group(RB) lanes read records of RB bytes, adding the words
 * they read into *SUM. Independent (STEPS 0): group j reads record
 * (j * SCATTER) mod RECS, for j below N. Dependent: group g follows its
 * chain from record (g * SCATTER) mod RECS for STEPS records, the next the
 * first word of the one just read. */
__global__ void rf_read(const uint64_t *pm, size_t recs, size_t n, unsigned rb, int steps,
                        unsigned long long *sum)
{
    unsigned g = rf_group(rb), sub = threadIdx.x % g;
    size_t groups = gpm_grid_threads() / g, me = gpm_grid_rank() / g;
    size_t r = (size_t)((me * SCATTER) & (recs - 1));
    uint64_t acc = 0, first;
    if (!steps)
        for (size_t j = me; j < n; j += groups)
            acc += rf_ld(pm + ((j * SCATTER) & (recs - 1)) * (rb / 8), sub, rb, &first);
    for (int k = 0; k < steps; k++) {
        acc += rf_ld(pm + r * (rb / 8), sub, rb, &first);
        r = __shfl_sync(0xffffffffu, first, 0, g) & (recs - 1);
    }
    for (int o = 16; o > 0; o /= 2)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0)
        atomicAdd(sum, (unsigned long long)acc);
}

/* batch-floor: operation I's key (IN: N keys of 4 words, then N op bytes)
 * and op byte in, its 16-byte answer out, one word stored to PM and
 * persisted. */
__global__ void rf_batch(const uint64_t *in, uint64_t *ans, uint64_t *pm, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t h = rf_answer(in + 4 * (size_t)i, ((const uint8_t *)(in + 4 * (size_t)n))[i], i);
    ans[2 * (size_t)i] = h;
    ans[2 * (size_t)i + 1] = in[4 * (size_t)i] + i;
    gpm_store_u64(&pm[i], h);
    gpm_persist();
}

/* ---- checks: every word a probe wrote ---- */

static size_t bad_seq(const uint64_t *pm, size_t words, uint64_t seed)
{
    size_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (size_t i = 0; i < words; i++)
        bad += pm[i] != rf_pattern(i, seed);
    return bad;
}

static size_t bad_lines(const uint64_t *pm, size_t lines, uint64_t seed, int wide)
{
    size_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (size_t l = 0; l < lines; l++) {
        uint64_t v = rf_pattern(l, seed);
        const uint64_t *p = pm + l * (LINE / 8);
        bad += wide ? p[0] != v || p[1] != ~v : p[0] != v;
    }
    return bad;
}

/* Words of the scatter probe's records (and swings) that differ. */
static size_t bad_records(const uint64_t *pm, size_t slots, const scatter *g, uint64_t seed)
{
    size_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (size_t s = 0; s < slots; s++) {
        size_t slot = s * (g->sb / 8), w = slot + g->off / 8;
        for (size_t i = 0; i < g->rb / 8; i++)
            bad += pm[w + i] != rf_pattern(w + i, seed);
        if (g->swing)
            bad += pm[slot + 1] != rf_pattern(slot + 1, seed);
    }
    return bad;
}

static size_t bad_strided(const uint64_t *pm, size_t steps, uint64_t seed)
{
    size_t bad = 0;
    for (size_t k = 0; k < steps; k++)
        bad += pm[k * (LINE / 8)] != rf_pattern(k, seed);
    return bad;
}

/* Fills the file for a read probe: word i holds rf_pattern(i), but with
 * CHAIN the first word of each record (PER words) is the next record of one
 * cycle through them all, (r * SCATTER + 1) mod recs: a full period, as
 * SCATTER is 1 mod 4 (Hull-Dobell). */
static void fill_reads(uint64_t *pm, size_t words, size_t per, uint64_t seed, int chain)
{
    size_t recs = words / per;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < words; i++)
        pm[i] = chain && i % per == 0 ? (i / per * SCATTER + 1) & (recs - 1) : rf_pattern(i, seed);
}

/* The sum of the words that rf_read reads, read here from the file. */
static uint64_t read_sum(const uint64_t *pm, size_t recs, size_t n, unsigned rb, size_t groups,
                         int steps)
{
    size_t per = rb / 8;
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (size_t j = 0; j < (steps ? groups : n); j++) {
        size_t r = (size_t)((j * SCATTER) & (recs - 1));
        for (int k = 0; k < (steps ? steps : 1); k++) {
            for (size_t w = 0; w < per; w++)
                sum += pm[r * per + w];
            r = (size_t)(pm[r * per] & (recs - 1));
        }
    }
    return sum;
}

typedef struct batchq {
    size_t n;                          /* operations a batch */
    uint64_t *hin, *din, *hans, *dans; /* pinned, device: keys, then op bytes; answers */
    cudaStream_t s;
} batchq;

/* Wrong answers and PM words of the batch in Q. */
static size_t bad_batch(const batchq *q, const uint64_t *pm)
{
    size_t bad = 0;
    const uint8_t *ops = (const uint8_t *)(q->hin + 4 * q->n);
    for (size_t i = 0; i < q->n; i++) {
        uint64_t h = rf_answer(q->hin + 4 * i, ops[i], i);
        bad += q->hans[2 * i] != h || q->hans[2 * i + 1] != q->hin[4 * i] + i || pm[i] != h;
    }
    return bad;
}

/* ---- the probes ---- */

typedef struct probe {
    const char *op, *mode, *unit; /* unit: what rate_per_s counts */
    char name[32];                /* op, where it carries a size */
    double t[BATCH_TIMED];        /* repetitions, or batch-floor's batches */
    int n, threads;
    double per_rep;               /* persists or bytes each repetition */
    double bytes;                 /* bytes written each repetition */
    size_t bad;
    char extra[192];
} probe;

typedef struct ctx {
    size_t size;
    int reps;
    const char *out, *scale;
    gpm_region r;
    gpm_platform plat;
    uint64_t *dev;
    int grid, block, batch;
    const char *probes; /* --probes: names or their beginnings, comma-separated */
    uint64_t seed;
    cudaEvent_t ev[2];
    int failed;
} ctx;

/* The probes, as --probes names them. */
static const char *const probe_names[] = {
    "link-write", "persist-seq", "persist-rand8", "persist-rand16", "write-rand16",
    "fence-latency", "persist-stride16", "write-scatter64", "write-scatter128",
    "write-scatter320", "write-scatter128-in304", "write-scatter128-in384", "update-in304",
    "update-in384", "fence-only", "update-half", "dev-read128-half", "update-beside-reads",
    "dev-read128-beside-updates", "read-rand8", "read-rand64", "read-rand128", "read-dep8",
    "read-dep64", "read-dep128", "batch-floor", "batch-floor-graph", "d2h-copy", "cpu-flush",
    "fs-write", NULL};

/* Whether LIST (comma-separated; NULL: every probe) names probe NAME, or
 * the beginning of its name. */
static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    for (const char *t = list; *t;) {
        size_t n = strcspn(t, ",");
        if (n && strncmp(name, t, n) == 0)
            return 1;
        t += n + (t[n] == ',');
    }
    return 0;
}

static int emit(ctx *x, probe *p)
{
    gpm_result res;
    char params[512];
    double med;
    if (!listed(x->probes, p->op))
        return 0;
    gpm_result_point(&res, "roofs", p->op, p->mode, x->scale, x->size, p->threads, p->t, p->n,
                     p->bytes, !p->bad);
    med = res.median_s;
    snprintf(params, sizeof params, "rate_per_s=%.6g,unit=%s,per_rep=%.0f,bad_words=%zu%s%s",
             p->per_rep / med, p->unit, p->per_rep, p->bad, p->extra[0] ? "," : "", p->extra);
    res.params = params;
    if (p->bad)
        x->failed = 1;
    printf("%-15s %-7s %8d %3d %12.6f %14.4g %s/s  %s\n", p->op, p->mode, p->threads, p->n, med,
           p->per_rep / med, p->unit, res.verified);
    fflush(stdout);
    return x->out ? gpm_result_append(x->out, &x->plat, &res) : 0;
}

/* Times KERNEL's launch on the mapping with CUDA events, persists on. */
static int gpu_time(ctx *x, double *t)
{
    float ms = 0;
    cudaError_t e = cudaEventRecord(x->ev[1]);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(x->ev[1]);
    if (gpm_persist_end() != 0)
        return -1;
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (gpm_cuda_ok(e, "a probe kernel") != 0)
        return -1;
    cudaEventElapsedTime(&ms, x->ev[0], x->ev[1]);
    *t = ms / 1e3;
    return 0;
}

static int gpu_start(ctx *x)
{
    if (gpm_persist_begin() != 0)
        return -1;
    return gpm_cuda_ok(cudaEventRecord(x->ev[0]), "cudaEventRecord");
}

enum kind { K_LINK, K_SEQ, K_RAND8, K_RAND16, K_WRAND16, K_FENCE, K_STRIDE16 };

static size_t pow2_floor(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

/* Probe K; PER, for K_STRIDE16, the lines between a warp's lanes. */
static int gpu_probe(ctx *x, enum kind k, size_t per)
{
    static const char *const names[] = {"link-write",       "persist-seq",  "persist-rand8",
                                        "persist-rand16",   "write-rand16", "fence-latency",
                                        "persist-stride16", "write-scatter"};
    int wide = k == K_RAND16 || k == K_WRAND16 || k == K_STRIDE16;
    size_t words = x->size / 8, lines = x->size / LINE;
    uint64_t *pm = (uint64_t *)x->r.dev;
    static probe p;
    memset(&p, 0, sizeof p);
    p.op = names[k];
    p.mode = "gpm";
    p.threads = k == K_FENCE ? 1 : x->grid * x->block;
    /* One warm-up, then the repetitions. */
    for (int i = -1; i < x->reps; i++) {
        uint64_t seed = ++x->seed;
        double t;
        if (gpu_start(x) != 0)
            return -1;
        switch (k) {
        case K_LINK: rf_seq<<<x->grid, x->block>>>(pm, words, seed, 0); break;
        case K_SEQ: rf_seq<<<x->grid, x->block>>>(pm, words, seed, 1); break;
        case K_RAND8: rf_rand<<<x->grid, x->block>>>(pm, lines, seed, 0, 1); break;
        case K_RAND16: rf_rand<<<x->grid, x->block>>>(pm, lines, seed, 1, 1); break;
        case K_WRAND16: rf_rand<<<x->grid, x->block>>>(pm, lines, seed, 1, 0); break;
        case K_FENCE: rf_fence<<<1, 1>>>(pm, FENCE_STEPS, seed); break;
        case K_STRIDE16: rf_stride<<<x->grid, x->block>>>(pm, lines, per, seed); break;
        }
        if (gpu_time(x, &t) != 0)
            return -1;
        p.bad += k == K_LINK || k == K_SEQ ? bad_seq((uint64_t *)x->r.host, words, seed)
                 : k == K_FENCE ? bad_strided((uint64_t *)x->r.host, FENCE_STEPS, seed)
                                : bad_lines((uint64_t *)x->r.host, lines, seed, wide);
        if (i >= 0)
            p.t[p.n++] = t;
    }
    switch (k) {
    case K_LINK: p.unit = "bytes", p.per_rep = p.bytes = (double)x->size; break;
    case K_SEQ: p.unit = "persists", p.per_rep = (double)words, p.bytes = (double)x->size; break;
    case K_RAND8:
    case K_RAND16:
    case K_STRIDE16:
        p.unit = "persists", p.per_rep = (double)lines;
        p.bytes = (double)lines * (wide ? 16 : 8);
        break;
    case K_WRAND16: p.unit = "writes", p.per_rep = (double)lines, p.bytes = lines * 16.0; break;
    case K_FENCE: p.unit = "persists", p.per_rep = FENCE_STEPS, p.bytes = FENCE_STEPS * 8.0; break;
    }
    snprintf(p.extra, sizeof p.extra, "grid=%d,block=%d,store_bytes=%d", k == K_FENCE ? 1 : x->grid,
             k == K_FENCE ? 1 : x->block, wide ? 16 : 8);
    if (k == K_STRIDE16)
        snprintf(p.extra + strlen(p.extra), sizeof p.extra - strlen(p.extra), ",stride_bytes=%zu",
                 per * LINE);
    return emit(x, &p);
}

/* A write-scatter or update probe (G). */
static int scatter_probe(ctx *x, const scatter *g)
{
    size_t slots = pow2_floor(x->size / g->sb);
    static probe p;
    memset(&p, 0, sizeof p);
    p.op = g->name, p.mode = "gpm", p.threads = x->grid * x->block;
    for (int i = -1; i < x->reps; i++) {
        uint64_t seed = ++x->seed;
        double t;
        if (gpu_start(x) != 0)
            return -1;
        rf_scatter<<<x->grid, x->block>>>((uint64_t *)x->r.dev, slots, *g, seed);
        if (gpu_time(x, &t) != 0)
            return -1;
        p.bad += bad_records((const uint64_t *)x->r.host, slots, g, seed);
        if (i >= 0)
            p.t[p.n++] = t;
    }
    p.unit = g->swing ? "updates" : "records", p.per_rep = (double)slots;
    p.bytes = (double)slots * (g->rb + 8.0 * g->swing);
    snprintf(p.extra, sizeof p.extra,
             "grid=%d,block=%d,store_bytes=16,record_bytes=%u,slot_bytes=%u,record_at=%u,"
             "slots=%zu,fences=%s",
             x->grid, x->block, g->rb, g->sb, g->off, slots,
             g->swing ? "record_then_swing" : "warp_per_record");
    return emit(x, &p);
}

/* fence-only: FENCE_EACH persists a thread at full occupancy. */
static int fence_probe(ctx *x)
{
    static probe p;
    memset(&p, 0, sizeof p);
    p.op = "fence-only", p.mode = "gpm", p.threads = x->grid * x->block;
    for (int i = -1; i < x->reps; i++) {
        double t;
        if (gpu_start(x) != 0)
            return -1;
        rf_fences<<<x->grid, x->block>>>(FENCE_EACH);
        if (gpu_time(x, &t) != 0)
            return -1;
        if (i >= 0)
            p.t[p.n++] = t;
    }
    p.unit = "fences", p.per_rep = (double)p.threads / 32 * FENCE_EACH;
    snprintf(p.extra, sizeof p.extra, "grid=%d,block=%d,per_thread=%d,fence=one_per_warp",
             x->grid, x->block, FENCE_EACH);
    return emit(x, &p);
}

/* The four rows of the updates beside device reads (beside_probe). */
static const char *const beside_names[] = {"update-half", "dev-read128-half",
                                           "update-beside-reads", "dev-read128-beside-updates"};

/* A kernel on stream S of half the GPU's blocks: G's updates of SLOTS
 * slots (SEED), or N independent 128-byte reads of RECS records of device
 * memory into *SUM; its seconds from events E on S. */
static cudaError_t half_launch(ctx *x, cudaStream_t s, cudaEvent_t *e, int reads,
                               const scatter *g, size_t slots, size_t recs, size_t n,
                               uint64_t seed, unsigned long long *sum)
{
    cudaError_t err = cudaEventRecord(e[0], s);
    if (err == cudaSuccess && reads)
        rf_read<<<x->grid / 2, x->block, 0, s>>>(x->dev, recs, n, 128, 0, sum);
    else if (err == cudaSuccess)
        rf_scatter<<<x->grid / 2, x->block, 0, s>>>((uint64_t *)x->r.dev, slots, *g, seed);
    return err == cudaSuccess ? cudaEventRecord(e[1], s) : err;
}

/* update-half and dev-read128-half alone, then both at once (the reads
 * launched first, sized to last as long as the updates alone): four rows.
 * The updates' words are checked each time; the reads' sum at once must
 * equal their sum alone. */
static int beside_probe(ctx *x)
{
    static const scatter g = {"update-in304", 128, 304, 48, 1};
    static probe p[4];
    size_t slots = pow2_floor(x->size / g.sb), recs = x->size / 128, n = READS;
    unsigned long long *sum = NULL, got[2] = {0, 0};
    cudaStream_t s[2];
    cudaEvent_t e[2][2];
    int rc = 0;
    if (gpm_cuda_ok(cudaMalloc((void **)&sum, sizeof *sum), "cudaMalloc of the reads' sum") ||
        gpm_cuda_ok(cudaStreamCreateWithFlags(&s[0], cudaStreamNonBlocking), "cudaStreamCreate") ||
        gpm_cuda_ok(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking), "cudaStreamCreate"))
        return -1;
    for (int k = 0; k < 4; k++) {
        cudaEventCreate(&e[k / 2][k % 2]);
        memset(&p[k], 0, sizeof p[k]);
        p[k].op = beside_names[k], p[k].mode = "gpm", p[k].threads = x->grid / 2 * x->block;
    }
    rf_fill<<<x->grid, x->block>>>(x->dev, recs * 16, ++x->seed);
    for (int i = -1; rc == 0 && i < x->reps; i++)
        for (int both = 0; rc == 0 && both < 2; both++) {
            uint64_t seed = ++x->seed;
            float ms[2] = {0, 0};
            cudaError_t err = cudaMemset(sum, 0, sizeof *sum);
            rc = gpm_persist_begin();
            if (rc == 0 && err == cudaSuccess && both)
                err = half_launch(x, s[1], e[1], 1, &g, slots, recs, n, seed, sum);
            if (rc == 0 && err == cudaSuccess)
                err = half_launch(x, s[0], e[0], 0, &g, slots, recs, n, seed, sum);
            if (rc == 0 && err == cudaSuccess && !both) /* the reads alone, after */
                err = cudaStreamSynchronize(s[0]);
            if (rc == 0 && err == cudaSuccess && !both)
                err = half_launch(x, s[1], e[1], 1, &g, slots, recs, n, seed, sum);
            if (err == cudaSuccess)
                err = cudaDeviceSynchronize();
            if (rc == 0 && gpm_persist_end() != 0)
                rc = -1;
            if (rc == 0 && gpm_cuda_ok(err, "update-beside-reads' kernels") != 0)
                rc = -1;
            if (rc != 0)
                break;
            cudaEventElapsedTime(&ms[0], e[0][0], e[0][1]);
            cudaEventElapsedTime(&ms[1], e[1][0], e[1][1]);
            cudaMemcpy(&got[both], sum, sizeof got[both], cudaMemcpyDeviceToHost);
            p[2 * both].bad += bad_records((const uint64_t *)x->r.host, slots, &g, seed);
            p[2 * both + 1].bad += i >= 0 && both && got[1] != got[0]; /* sums that differ */
            if (i < 0 && !both) /* the warm-up sizes the reads to the updates' time */
                n = (size_t)((double)n * ms[0] / (ms[1] > 0 ? ms[1] : 1));
            if (i >= 0)
                p[2 * both].t[p[2 * both].n++] = ms[0] / 1e3,
                p[2 * both + 1].t[p[2 * both + 1].n++] = ms[1] / 1e3;
        }
    for (int k = 0; rc == 0 && k < 4; k++) {
        int reads = k % 2;
        p[k].unit = reads ? "records" : "updates";
        p[k].per_rep = reads ? (double)n : (double)slots;
        p[k].bytes = reads ? 0 : (double)slots * (g.rb + 8.0);
        snprintf(p[k].extra, sizeof p[k].extra, "grid=%d,block=%d,%s,span_bytes=%zu,beside=%s",
                 x->grid / 2, x->block, reads ? "record_bytes=128,of=device_memory"
                 : "record_bytes=128,slot_bytes=304,record_at=48,fences=record_then_swing",
                 x->size, k < 2 ? "none" : reads ? "update-half" : "dev-read128-half");
        rc = emit(x, &p[k]);
    }
    for (int k = 0; k < 4; k++)
        cudaEventDestroy(e[k / 2][k % 2]);
    cudaStreamDestroy(s[0]);
    cudaStreamDestroy(s[1]);
    cudaFree(sum);
    return rc;
}

/* read-randRB (DEP 0) or read-depRB: the file filled once, then the
 * repetitions, each one's sum of the words read held against the CPU's. */
static int read_probe(ctx *x, int dep, unsigned rb)
{
    size_t words = x->size / 8, recs = words / (rb / 8);
    size_t groups = (size_t)x->grid * x->block / rf_group(rb), n = recs < READS ? recs : READS;
    int steps = dep ? (int)(READS / groups > 16 ? READS / groups : 16) : 0;
    unsigned long long *sum = (unsigned long long *)x->dev, got = 0;
    uint64_t want;
    static probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s%u", dep ? "read-dep" : "read-rand", rb);
    p.op = p.name, p.mode = "gpm", p.threads = x->grid * x->block;
    fill_reads((uint64_t *)x->r.host, words, rb / 8, ++x->seed, dep);
    want = read_sum((uint64_t *)x->r.host, recs, n, rb, groups, steps);
    for (int i = -1; i < x->reps; i++) {
        double t;
        if (gpm_cuda_ok(cudaMemset(sum, 0, sizeof *sum), "cudaMemset of a read's sum") != 0 ||
            gpu_start(x) != 0)
            return -1;
        rf_read<<<x->grid, x->block>>>((const uint64_t *)x->r.dev, recs, n, rb, steps, sum);
        if (gpu_time(x, &t) != 0 ||
            gpm_cuda_ok(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost),
                        "a read's sum") != 0)
            return -1;
        p.bad += got != want; /* repetitions whose sum differs */
        if (i >= 0)
            p.t[p.n++] = t;
    }
    p.unit = dep ? "reads" : "records";
    p.per_rep = dep ? (double)groups * steps : (double)n;
    snprintf(p.extra, sizeof p.extra, "grid=%d,block=%d,record_bytes=%u,group_lanes=%u", x->grid,
             x->block, rb, rf_group(rb));
    if (dep)
        snprintf(p.extra + strlen(p.extra), sizeof p.extra - strlen(p.extra),
                 ",chains=%zu,steps=%d", groups, steps);
    return emit(x, &p);
}

static cudaError_t batch_enqueue(const batchq *q, uint64_t *pm)
{
    cudaError_t e = cudaMemcpyAsync(q->din, q->hin, q->n * 33, cudaMemcpyHostToDevice, q->s);
    if (e == cudaSuccess) {
        rf_batch<<<(unsigned)((q->n + 255) / 256), 256, 0, q->s>>>(q->din, q->dans, pm,
                                                                  (unsigned)q->n);
        e = cudaGetLastError();
    }
    return e != cudaSuccess
               ? e
               : cudaMemcpyAsync(q->hans, q->dans, q->n * 16, cudaMemcpyDeviceToHost, q->s);
}

/* batch-floor (GRAPH 0: stream calls) or batch-floor-graph (one CUDA
 * Graph, captured once): BATCH_WARM batches, then BATCH_TIMED timed one by
 * one, each filled with keys of its own and checked after it. */
static int batch_probe(ctx *x, int graph)
{
    static probe p;
    batchq q = {(size_t)x->batch, NULL, NULL, NULL, NULL, NULL};
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    cudaError_t e;
    int rc = gpm_cuda_ok(cudaMallocHost((void **)&q.hin, q.n * 33), "cudaMallocHost of a batch") ||
             gpm_cuda_ok(cudaMallocHost((void **)&q.hans, q.n * 16), "cudaMallocHost of answers") ||
             gpm_cuda_ok(cudaMalloc((void **)&q.din, q.n * 33), "cudaMalloc of a batch") ||
             gpm_cuda_ok(cudaMalloc((void **)&q.dans, q.n * 16), "cudaMalloc of answers") ||
             gpm_cuda_ok(cudaStreamCreateWithFlags(&q.s, cudaStreamNonBlocking),
                         "cudaStreamCreate");
    if (rc == 0 && graph) {
        e = cudaStreamBeginCapture(q.s, cudaStreamCaptureModeThreadLocal);
        if (e == cudaSuccess) {
            cudaError_t e2 = batch_enqueue(&q, (uint64_t *)x->r.dev);
            e = cudaStreamEndCapture(q.s, &g);
            e = e2 != cudaSuccess ? e2 : e;
        }
        if (e == cudaSuccess)
            e = cudaGraphInstantiate(&ge, g, 0);
        rc = gpm_cuda_ok(e, "capturing a batch as a CUDA Graph");
    }
    memset(&p, 0, sizeof p);
    p.op = graph ? "batch-floor-graph" : "batch-floor", p.mode = "gpm", p.unit = "batches";
    if (rc == 0)
        rc = gpm_persist_begin();
    for (int b = -BATCH_WARM; rc == 0 && b < BATCH_TIMED; b++) {
        uint64_t seed = ++x->seed;
        uint8_t *ops = (uint8_t *)(q.hin + 4 * q.n);
        double t0;
        for (size_t i = 0; i < 4 * q.n; i++)
            q.hin[i] = rf_pattern(i, seed);
        for (size_t i = 0; i < q.n; i++)
            ops[i] = (uint8_t)(seed + i);
        t0 = gpm_now_s();
        e = graph ? cudaGraphLaunch(ge, q.s) : batch_enqueue(&q, (uint64_t *)x->r.dev);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(q.s);
        t0 = gpm_now_s() - t0;
        rc = gpm_cuda_ok(e, graph ? "a batch's graph" : "a batch");
        p.bad += rc == 0 ? bad_batch(&q, (const uint64_t *)x->r.host) : 0;
        if (b >= 0)
            p.t[p.n++] = t0;
    }
    if (gpm_persist_end() != 0)
        rc = -1;
    if (ge)
        cudaGraphExecDestroy(ge);
    if (g)
        cudaGraphDestroy(g);
    if (q.s)
        cudaStreamDestroy(q.s);
    cudaFreeHost(q.hin), cudaFreeHost(q.hans), cudaFree(q.din), cudaFree(q.dans);
    if (rc != 0)
        return -1;
    p.threads = x->batch, p.per_rep = 1, p.bytes = (double)q.n * 8;
    snprintf(p.extra, sizeof p.extra,
             "batch=%d,op_bytes=33,answer_bytes=16,batches=%d,warmup=%d,s_per_batch=%.6g,"
             "grid=%zu,block=256",
             x->batch, BATCH_TIMED, BATCH_WARM, gpm_median(p.t, p.n), (q.n + 255) / 256);
    return emit(x, &p);
}

/* d2h-copy, then cpu-flush with the best thread count, then fs-write. */
static int cpu_probes(ctx *x)
{
    static const int counts[] = {1, 2, 4, 8, 16, 32};
    size_t words = x->size / 8;
    probe copy, flush, fs;
    double best_s = 1e30;
    int best = 1;
    gpm_cap_file cf;
    memset(&copy, 0, sizeof copy);
    memset(&flush, 0, sizeof flush);
    memset(&fs, 0, sizeof fs);
    copy.op = "d2h-copy", copy.mode = "cap-mm", copy.unit = "bytes";
    flush.op = "cpu-flush", flush.mode = "cap-mm", flush.unit = "bytes";
    fs.op = "fs-write", fs.mode = "cap-fs", fs.unit = "bytes";
    copy.per_rep = flush.per_rep = fs.per_rep = (double)x->size;
    copy.bytes = flush.bytes = fs.bytes = (double)x->size;
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        gpm_flusher *f = gpm_flusher_create(counts[i]);
        double t0;
        int e;
        if (!f)
            return -1;
        memset(x->r.host, (int)i + 1, x->size); /* dirty lines, as a copy leaves them */
        t0 = gpm_now_s();
        e = gpm_flusher_persist(f, &x->r, x->r.host, x->size, 0);
        t0 = gpm_now_s() - t0;
        gpm_flusher_destroy(f);
        if (e != 0)
            return -1;
        if (t0 < best_s)
            best_s = t0, best = counts[i];
    }
    gpm_flusher *f = gpm_flusher_create(best);
    if (!f)
        return -1;
    for (int i = -1; i < x->reps; i++) {
        uint64_t seed = ++x->seed;
        double t0, t1, t2;
        rf_fill<<<x->grid, x->block>>>(x->dev, words, seed);
        if (gpm_cuda_ok(cudaDeviceSynchronize(), "filling the copy's source") != 0)
            break;
        t0 = gpm_now_s();
        if (gpm_cuda_ok(cudaMemcpy(x->r.host, x->dev, x->size, cudaMemcpyDeviceToHost),
                    "cudaMemcpy into the mapping") != 0)
            break;
        t1 = gpm_now_s();
        if (gpm_flusher_persist(f, &x->r, x->r.host, x->size, 0) != 0)
            break;
        t2 = gpm_now_s();
        copy.bad += bad_seq((uint64_t *)x->r.host, words, seed);
        if (i >= 0) {
            copy.t[copy.n++] = t1 - t0;
            flush.t[flush.n++] = t2 - t1;
        }
    }
    gpm_flusher_destroy(f);
    if (copy.n != x->reps)
        return -1;
    copy.threads = 0;
    flush.threads = best;
    snprintf(flush.extra, sizeof flush.extra, "threads_tried=1..32");
    if (emit(x, &copy) != 0 || emit(x, &flush) != 0)
        return -1;
    /* fs-write: the mapping's bytes (host memory now) through the file. */
    if (gpm_cap_file_open(&cf, x->r.path, x->size, GPM_HOST_ONLY) != 0)
        return -1;
    for (int i = -1; i < x->reps; i++) {
        double t0 = gpm_now_s();
        if (gpm_cap_fs_host(&cf, 0, x->r.host, x->size) != 0) {
            gpm_cap_file_close(&cf);
            return -1;
        }
        if (i >= 0)
            fs.t[fs.n++] = gpm_now_s() - t0;
    }
    gpm_cap_file_close(&cf);
    return emit(x, &fs);
}

static int parse(int argc, char **argv, ctx *x, const char **file)
{
    static const char *const scales[] = {"tiny", "small", "paper", "custom", NULL};
    long long size;
    struct gpm_flag flags[] = {
        GPM_FLAG_LL("--size", &size, 1 << 20, 1ll << 40, "1G", "BYTES",
                    "the PM file the probes write, a power of two from 1M"),
        GPM_FLAG_STR("--file", file, "roofs.pm", "NAME",
                     "PM file (relative names under GPM_PM_DIR); an existing one is refused, "
                     "and the file is removed at exit"),
        GPM_FLAG_INT("--reps", &x->reps, 1, MAX_REPS, "5", "N",
                     "timed repetitions after one warm-up, 1..32"),
        GPM_FLAG_INT("--batch", &x->batch, 1, 1 << 20, "4096", "N",
                     "batch-floor's operations a batch, 1..1M"),
        GPM_FLAG_WORD("--scale", &x->scale, scales, "custom", NULL, "recorded in the rows"),
        GPM_FLAG_STR("--probes", &x->probes, NULL, "LIST",
                     "only these probes: names or their beginnings, comma-separated (e.g. "
                     "write-scatter,fence-only; default: every probe)"),
        GPM_FLAG_STR("--out", &x->out, NULL, "FILE", "append result rows (TSV) to FILE"),
        GPM_FLAGS_END};
    int rc;
    if ((rc = gpm_args_parse(PROG, "[options]", flags, argc, argv)) != 0)
        return rc;
    if (size & (size - 1))
        return gpm_set_error("--size: %lld is not a power of two: pass e.g. 64M or 1G", size);
    x->size = (size_t)size;
    if ((size_t)x->batch * 8 > x->size)
        return gpm_set_error("--batch %d: its PM words (8 bytes each) exceed --size %zu: pass a "
                             "smaller --batch or a larger --size", x->batch, x->size);
    for (const char *t = x->probes; t && *t;) {
        size_t n = strcspn(t, ",");
        int known = 0;
        for (int i = 0; probe_names[i] && n; i++)
            known |= strncmp(probe_names[i], t, n) == 0;
        if (!known)
            return gpm_set_error("--probes: '%.*s' names no probe: pass probes' names or "
                                 "their beginnings, e.g. write-scatter,read-dep8,batch-floor",
                                 (int)n, t);
        t += n + (t[n] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const scatter scatters[] = {
        {"write-scatter64", 64, 64, 0, 0},           {"write-scatter128", 128, 128, 0, 0},
        {"write-scatter320", 320, 320, 0, 0},        {"write-scatter128-in304", 128, 304, 48, 0},
        {"write-scatter128-in384", 128, 384, 128, 0}, {"update-in304", 128, 304, 48, 1},
        {"update-in384", 128, 384, 128, 1}};
    static const char *const kinds[] = {"link-write",   "persist-seq",   "persist-rand8",
                                        "persist-rand16", "write-rand16", "fence-latency"};
    static const unsigned read_bytes[] = {8, 64, 128};
    static ctx x;
    const char *file;
    cudaDeviceProp prop;
    int rc = parse(argc, argv, &x, &file);
    if (rc != 0)
        return rc > 0 ? 0 : gpm_args_fail(PROG);
    if (gpm_gpu_check() != 0) {
        fprintf(stderr, PROG ": %s: run it on a machine with one\n", gpm_last_error());
        return 1;
    }
    if (x.out && gpm_result_check_out(x.out) != 0)
        return gpm_args_fail(PROG);
    if (gpm_map(&x.r, file, x.size, GPM_CREATE) != 0) {
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
        return 1;
    }
    if (!x.r.created) {
        fprintf(stderr, PROG ": %s: exists and would be overwritten: remove it, or choose "
                "another --file\n", x.r.path);
        gpm_unmap(&x.r);
        return 1;
    }
    /* Full occupancy: every SM's resident threads, 512 a block. */
    cudaGetDeviceProperties(&prop, 0);
    x.block = 512;
    x.grid = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / x.block);
    gpm_platform_collect(&x.plat);
    rc = gpm_cuda_ok(cudaMalloc((void **)&x.dev, x.size), "cudaMalloc of the copy's source") ||
         gpm_cuda_ok(cudaEventCreate(&x.ev[0]), "cudaEventCreate") ||
         gpm_cuda_ok(cudaEventCreate(&x.ev[1]), "cudaEventCreate");
    printf("# roofs: %zu bytes on %s (%s), %d x %d GPU threads\n", x.size, x.r.path,
           gpm_backend_name(x.r.backend), x.grid, x.block);
    for (int k = K_LINK; rc == 0 && k <= K_FENCE; k++)
        if (listed(x.probes, kinds[k]))
            rc = gpu_probe(&x, (enum kind)k, 0);
    for (size_t per = 1; rc == 0 && per <= 4096 && per <= x.size / LINE; per *= 8)
        if (listed(x.probes, "persist-stride16"))
            rc = gpu_probe(&x, K_STRIDE16, per);
    for (size_t i = 0; rc == 0 && i < sizeof scatters / sizeof *scatters; i++)
        if (listed(x.probes, scatters[i].name))
            rc = scatter_probe(&x, &scatters[i]);
    if (rc == 0 && listed(x.probes, "fence-only"))
        rc = fence_probe(&x);
    for (int k = 0; rc == 0 && k < 4; k++)
        if (listed(x.probes, beside_names[k])) { /* one run makes all four rows */
            rc = beside_probe(&x);
            break;
        }
    for (int i = 0; rc == 0 && i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "%s%u", i / 3 ? "read-dep" : "read-rand", read_bytes[i % 3]);
        if (listed(x.probes, name))
            rc = read_probe(&x, i / 3, read_bytes[i % 3]);
    }
    for (int graph = 0; rc == 0 && graph < 2; graph++)
        if (listed(x.probes, graph ? "batch-floor-graph" : "batch-floor"))
            rc = batch_probe(&x, graph);
    if (rc == 0 && (listed(x.probes, "d2h-copy") || listed(x.probes, "cpu-flush") ||
                    listed(x.probes, "fs-write")))
        rc = cpu_probes(&x);
    if (rc != 0)
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
    cudaFree(x.dev);
    gpm_unmap(&x.r);
    if (unlink(x.r.path) != 0)
        fprintf(stderr, PROG ": %s: cannot remove (%s)\n", x.r.path, strerror(errno));
    if (rc == 0 && x.failed)
        fprintf(stderr, PROG ": a probe's stores did not all land (see verified=fail)\n");
    return rc != 0 || x.failed;
}
