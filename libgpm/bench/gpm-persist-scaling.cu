/* gpm-persist-scaling: how persisting scales with CPU and GPU threads (paper
 * Figure 3, section 3.2 "Parallelism in persisting data").
 *
 * Writes and persists SIZE bytes (default 1 GiB) of a mapped PM file:
 *   cap-mm        the data is produced on the GPU, cudaMemcpy-ed into the
 *                 registered mapping, then T CPU threads (gpm_flusher) each
 *                 flush their equal slice at once;
 *   gpm           N GPU threads store 8 bytes at a time, each store followed
 *                 by gpm_persist(), a warp's 32 stores being 32 consecutive
 *                 words so that they coalesce into whole lines;
 *   gpm-nopersist the same stores with one gpm_persist() per thread at the
 *                 end: what the link carries when nothing waits, the ceiling
 *                 for gpm.
 * Every repetition writes a pattern of its own and the CPU checks every word
 * afterwards, so stale data from an earlier repetition cannot pass.
 * Timing: CUDA events around the kernel (gpm), a monotonic clock around
 * copy + flush (cap-mm); data generation and the check are outside. */
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

#define MAX_LIST 32

/* The value of word I in the repetition with SEED. For a fixed I it is a
 * bijection of SEED (an odd multiplier, then an invertible mix), so a word
 * left from any other repetition never equals the expected one. */
GPM_HD uint64_t ps_pattern(uint64_t i, uint64_t seed)
{
    return gpm_mix64(i + seed * 0xD1B54A32D192ED03ull);
}

enum layout { LAYOUT_WARP, LAYOUT_GRID };

typedef struct options {
    size_t size;
    const char *file;
    const char *out;
    const char *scale;
    int keep, overwrite;
    int cpu[MAX_LIST], ncpu;
    int gpu[MAX_LIST], ngpu;
    int reps;
    int block;
    int layout; /* enum layout, the index of its word */
    double budget_s;      /* per point: fewer repetitions when one takes longer */
    int run_cap, run_gpm, run_ceiling;
} options;

/* ---- kernels ---- */

/* One thread's share. LAYOUT_GRID (the default): the whole grid strides over
 * the file, so at any moment the warps in flight write one compact window of
 * it. LAYOUT_WARP: each warp owns a contiguous run and steps through it 256
 * bytes at a time. Either way a warp's stores at one step are 32 consecutive
 * words. On an H200 (PCIe 5) the grid stride lets per-store persists reach
 * the unpersisted ceiling from 64K threads on, while per-warp runs, spread
 * over thousands of pages at once, fall to 1-3 GB/s between 8K and 256K
 * threads: the persists wait on writes scattered across the whole file. */
__device__ __forceinline__ void ps_write(uint64_t *pm, size_t words, uint64_t seed,
                                         int layout, int per_store)
{
    size_t rank = gpm_grid_rank(), nthreads = gpm_grid_threads();
    size_t begin, end, step;
    if (layout == LAYOUT_WARP) {
        size_t nwarps = nthreads / 32, warp = rank / 32;
        size_t per_warp = ((words + nwarps - 1) / nwarps + 31) & ~(size_t)31;
        begin = warp * per_warp + (rank & 31);
        end = (warp + 1) * per_warp;
        if (end > words)
            end = words;
        step = 32;
    } else {
        begin = rank;
        end = words;
        step = nthreads;
    }
    for (size_t i = begin; i < end; i += step) {
        gpm_store_u64(pm + i, ps_pattern(i, seed));
        if (per_store)
            gpm_persist();
    }
    if (!per_store)
        gpm_persist();
}

__global__ void ps_persist_each_warp(uint64_t *pm, size_t words, uint64_t seed)
{
    ps_write(pm, words, seed, LAYOUT_WARP, 1);
}
__global__ void ps_persist_each_grid(uint64_t *pm, size_t words, uint64_t seed)
{
    ps_write(pm, words, seed, LAYOUT_GRID, 1);
}
__global__ void ps_persist_once_warp(uint64_t *pm, size_t words, uint64_t seed)
{
    ps_write(pm, words, seed, LAYOUT_WARP, 0);
}
__global__ void ps_persist_once_grid(uint64_t *pm, size_t words, uint64_t seed)
{
    ps_write(pm, words, seed, LAYOUT_GRID, 0);
}

/* The CAP-mm input: the same pattern, produced in device memory. */
__global__ void ps_fill(uint64_t *buf, size_t words, uint64_t seed)
{
    for (size_t i = gpm_grid_rank(); i < words; i += gpm_grid_threads())
        buf[i] = ps_pattern(i, seed);
}

/* ---- host helpers ---- */

/* Every word of the mapping equals the pattern of SEED (all CPU cores). */
static int verify(const uint64_t *pm, size_t words, uint64_t seed)
{
    size_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (size_t i = 0; i < words; i++)
        bad += pm[i] != ps_pattern(i, seed);
    return bad == 0;
}

typedef struct point {
    double t[64];     /* timed repetitions */
    double extra[2][64];
    int n;
    int ok;
} point;

static int reps_for(const options *o, double warm_s)
{
    int n = o->reps;
    if (warm_s > 0 && o->budget_s > 0 && warm_s * n > o->budget_s) {
        n = (int)(o->budget_s / warm_s);
        if (n < 1)
            n = 1;
    }
    return n;
}

static int g_any_fail;

static int emit(const options *o, const gpm_platform *plat, const char *op, const char *mode,
                int threads, const point *p, const char *params)
{
    gpm_result res;
    gpm_result_point(&res, "persist-scaling", op, mode, o->scale, o->size, threads, p->t, p->n,
                     (double)o->size, p->ok);
    res.params = params;
    if (!p->ok)
        g_any_fail = 1;
    printf("%-14s %8d %5d %12.6f %10.3f  %s\n", op, threads, p->n, res.median_s,
           (double)o->size / res.median_s / 1e9, res.verified);
    fflush(stdout);
    if (o->out && gpm_result_append(o->out, plat, &res) != 0)
        return -1;
    return 0;
}

/* ---- the three variants ---- */

static uint64_t g_seed = 1;

/* One CAP-mm repetition: copy + flush, times in T[0] (copy) and T[1]. */
static int cap_once(const options *o, gpm_flusher *f, const gpm_region *r, uint64_t *dev,
                    double t[2], int *ok)
{
    size_t words = o->size / 8;
    uint64_t seed = g_seed++;
    ps_fill<<<1024, 256>>>(dev, words, seed);
    if (gpm_cuda_ok(cudaDeviceSynchronize(), "filling the CAP-mm source") != 0)
        return -1;
    double t0 = gpm_now_s();
    if (gpm_cuda_ok(cudaMemcpy(r->host, dev, o->size, cudaMemcpyDeviceToHost),
                "cudaMemcpy into the PM mapping") != 0)
        return -1;
    double t1 = gpm_now_s();
    if (gpm_flusher_persist(f, r, r->host, o->size, 0) != 0)
        return -1;
    double t2 = gpm_now_s();
    t[0] = t1 - t0;
    t[1] = t2 - t1;
    *ok = *ok && verify((const uint64_t *)r->host, words, seed);
    return 0;
}

static int run_cap(const options *o, const gpm_platform *plat, const gpm_region *r)
{
    uint64_t *dev = NULL;
    if (gpm_cuda_ok(cudaMalloc((void **)&dev, o->size), "cudaMalloc of the CAP-mm source") != 0)
        return -1;
    int rc = 0;
    for (int k = 0; k < o->ncpu && rc == 0; k++) {
        int threads = o->cpu[k];
        gpm_flusher *f = gpm_flusher_create(threads);
        if (!f) {
            rc = -1;
            break;
        }
        point p;
        double warm[2] = {0, 0};
        memset(&p, 0, sizeof p);
        p.ok = 1;
        rc = cap_once(o, f, r, dev, warm, &p.ok);
        p.n = reps_for(o, warm[0] + warm[1]);
        for (int i = 0; i < p.n && rc == 0; i++) {
            double t[2];
            rc = cap_once(o, f, r, dev, t, &p.ok);
            p.t[i] = t[0] + t[1];
            p.extra[0][i] = t[0];
            p.extra[1][i] = t[1];
        }
        gpm_flusher_destroy(f);
        if (rc != 0)
            break;
        char params[256];
        /* The flusher gives small ranges fewer threads: say how many worked. */
        snprintf(params, sizeof params,
                 "copy_median_s=%.6g,flush_median_s=%.6g,flush_threads_used=%d,backend=%s",
                 gpm_median(p.extra[0], p.n), gpm_median(p.extra[1], p.n),
                 gpm_flush_threads_for(o->size, threads), gpm_backend_name(r->backend));
        rc = emit(o, plat, "cap-mm", "cap-mm", threads, &p, params);
    }
    cudaFree(dev);
    return rc;
}

typedef void (*ps_kernel)(uint64_t *, size_t, uint64_t);

static int gpm_once(const options *o, const gpm_region *r, ps_kernel k, int threads,
                    cudaEvent_t ev[2], double *t, int *ok)
{
    size_t words = o->size / 8;
    uint64_t seed = g_seed++;
    int block = threads < o->block ? threads : o->block;
    float ms = 0;
    if (gpm_persist_begin() != 0)
        return -1;
    cudaEventRecord(ev[0]);
    k<<<threads / block, block>>>((uint64_t *)r->dev, words, seed);
    cudaEventRecord(ev[1]);
    cudaError_t e = cudaEventSynchronize(ev[1]);
    if (gpm_persist_end() != 0)
        return -1;
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (gpm_cuda_ok(e, "the persist kernel") != 0)
        return -1;
    cudaEventElapsedTime(&ms, ev[0], ev[1]);
    *t = ms / 1e3;
    *ok = *ok && verify((const uint64_t *)r->host, words, seed);
    return 0;
}

static int run_gpm(const options *o, const gpm_platform *plat, const gpm_region *r,
                   int per_store)
{
    ps_kernel k;
    if (per_store)
        k = o->layout == LAYOUT_WARP ? ps_persist_each_warp : ps_persist_each_grid;
    else
        k = o->layout == LAYOUT_WARP ? ps_persist_once_warp : ps_persist_once_grid;
    cudaEvent_t ev[2];
    cudaEventCreate(&ev[0]);
    cudaEventCreate(&ev[1]);
    int rc = 0;
    for (int j = 0; j < o->ngpu && rc == 0; j++) {
        int threads = o->gpu[j];
        point p;
        double warm = 0;
        memset(&p, 0, sizeof p);
        p.ok = 1;
        rc = gpm_once(o, r, k, threads, ev, &warm, &p.ok);
        p.n = reps_for(o, warm);
        for (int i = 0; i < p.n && rc == 0; i++)
            rc = gpm_once(o, r, k, threads, ev, &p.t[i], &p.ok);
        if (rc != 0)
            break;
        int block = threads < o->block ? threads : o->block;
        char params[256];
        snprintf(params, sizeof params,
                 "block=%d,layout=%s,stores_per_thread=%zu,persist=%s,backend=%s", block,
                 o->layout == LAYOUT_WARP ? "warp" : "grid", o->size / 8 / (size_t)threads,
                 per_store ? "every-store" : "end-of-thread", gpm_backend_name(r->backend));
        rc = emit(o, plat, per_store ? "gpm" : "gpm-nopersist", "gpm", threads, &p, params);
    }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    return rc;
}

/* ---- command line ---- */

#define PROG "gpm-persist-scaling"

/* 0 parsed, -1 with the message set, 1 --help printed. */
static int parse(int argc, char **argv, options *o)
{
    static const char *const layouts[] = {"warp", "grid", NULL};
    static const char *const scales[] = {"tiny", "small", "paper", "custom", NULL};
    static const char *const variants[] = {"cap-mm", "gpm", "gpm-nopersist", NULL};
    long long size;
    int run[MAX_LIST], nrun, rc;
    struct gpm_flag flags[] = {
        GPM_FLAG_LL("--size", &size, 256, 1ll << 40, "1G", "BYTES",
                    "bytes to write and persist, a multiple of 256, K/M/G allowed"),
        GPM_FLAG_STR("--file", &o->file, "persist-scaling.pm", "NAME",
                     "PM file (relative names under GPM_PM_DIR)"),
        GPM_FLAG_SET("--keep", &o->keep, "leave the PM file this run created in place at exit"),
        GPM_FLAG_SET("--overwrite", &o->overwrite,
                     "reuse an existing PM file of that size (its data is lost; the file itself "
                     "is kept)"),
        GPM_FLAG_INTS("--cpu-threads", o->cpu, &o->ncpu, MAX_LIST, 1, GPM_FLUSHER_MAX_THREADS,
                      "1,2,4,8,16,32", "LIST", "CAP-mm flush threads"),
        GPM_FLAG_INTS("--gpu-threads", o->gpu, &o->ngpu, MAX_LIST, 32, 1 << 30, NULL, "LIST",
                      "GPM threads, multiples of 32 and of --block above it (default "
                      "32,64,...,1048576: the powers of 2)"),
        GPM_FLAG_WORDS("--variants", run, &nrun, MAX_LIST, variants, "cap-mm,gpm,gpm-nopersist",
                       "LIST", "the variants to run"),
        GPM_FLAG_INT("--reps", &o->reps, 1, 64, "5", "N",
                     "timed repetitions after one warm-up, 1..64"),
        GPM_FLAG_DOUBLE("--budget", &o->budget_s, 0, 1000000, "60", "SECONDS",
                        "fewer repetitions where one takes longer (0: none)"),
        GPM_FLAG_INT("--block", &o->block, 32, 1024, "512", "N",
                     "GPU threads per block, a multiple of 32 up to 1024"),
        GPM_FLAG_CHOICE("--layout", &o->layout, layouts, "grid", NULL,
                        "grid: the grid strides over the file; warp: each warp owns a "
                        "contiguous run"),
        GPM_FLAG_WORD("--scale", &o->scale, scales, "custom", NULL, "recorded in the rows"),
        GPM_FLAG_STR("--out", &o->out, NULL, "FILE", "append result rows (TSV) to FILE"),
        GPM_FLAGS_END};
    memset(o, 0, sizeof *o);
    if ((rc = gpm_args_parse(PROG, "[options]", flags, argc, argv)) != 0)
        return rc;
    for (int j = 0; j < nrun; j++)
        *(run[j] == 0 ? &o->run_cap : run[j] == 1 ? &o->run_gpm : &o->run_ceiling) = 1;
    if (o->ngpu == 0) /* not given: the default */
        for (int t = 32; t <= 1 << 20; t *= 2)
            o->gpu[o->ngpu++] = t;
    if (size % 256)
        return gpm_set_error("--size: %lld is not a multiple of 256 bytes: pass e.g. 64M or 1G",
                             size);
    o->size = (size_t)size;
    if (o->block % 32)
        return gpm_set_error("--block: %d is not a multiple of 32 (a warp): pass e.g. %d",
                             o->block, (o->block / 32 + 1) * 32);
    /* Checked after every flag: --block may come after --gpu-threads. */
    for (int j = 0; j < o->ngpu; j++) {
        int t = o->gpu[j];
        if (t % 32)
            return gpm_set_error("--gpu-threads: %d is not a multiple of 32 (a warp): pass e.g. "
                                 "%d", t, (t / 32 + 1) * 32);
        if (t > o->block && t % o->block)
            return gpm_set_error("--gpu-threads: %d is not a multiple of --block %d: pass a "
                                 "multiple of %d above it, or change --block", t, o->block,
                                 o->block);
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    gpm_platform plat;
    gpm_region r;

    int prc = parse(argc, argv, &o);
    if (prc != 0)
        return prc > 0 ? 0 : gpm_args_fail(PROG);
    if (gpm_gpu_check() != 0) {
        fprintf(stderr, PROG ": %s: run it on a machine with one\n", gpm_last_error());
        return 1;
    }
    if (gpm_map(&r, o.file, o.size, GPM_CREATE) != 0) {
        fprintf(stderr, "gpm-persist-scaling: %s\n", gpm_last_error());
        return 1;
    }
    if (!r.created && !o.overwrite) {
        fprintf(stderr, "gpm-persist-scaling: %s: exists and would be overwritten: remove it, "
                "choose another --file, or pass --overwrite\n", r.path);
        gpm_unmap(&r);
        return 1;
    }
    gpm_platform_collect(&plat);
    printf("# persist-scaling: %zu bytes on %s (%s), layout %s, block %d\n", o.size, r.path,
           gpm_backend_name(r.backend), o.layout == LAYOUT_WARP ? "warp" : "grid", o.block);
    printf("%-14s %8s %5s %12s %10s  %s\n", "op", "threads", "reps", "median_s", "GB/s",
           "verified");

    int rc = 0;
    if (o.run_cap)
        rc = run_cap(&o, &plat, &r);
    if (rc == 0 && o.run_gpm)
        rc = run_gpm(&o, &plat, &r, 1);
    if (rc == 0 && o.run_ceiling)
        rc = run_gpm(&o, &plat, &r, 0);
    if (rc != 0)
        fprintf(stderr, "gpm-persist-scaling: %s\n", gpm_last_error());

    gpm_unmap(&r);
    /* Only a file this run made is removed: --overwrite reuses, not deletes. */
    if (r.created && !o.keep && unlink(r.path) != 0)
        fprintf(stderr, "gpm-persist-scaling: %s: cannot remove (%s)\n", r.path,
                strerror(errno));
    if (rc != 0)
        return 1;
    if (g_any_fail) {
        fprintf(stderr, "gpm-persist-scaling: verification failed (see verified=fail)\n");
        return 1;
    }
    return 0;
}
