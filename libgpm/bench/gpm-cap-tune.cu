/* gpm-cap-tune: measures the knobs of the CAP engines so that their
 * defaults come from data, and puts GPM's bulk copy beside them.
 *
 *   cap-mm          gpm_cap_mm of SIZE bytes with T flush threads (total)
 *   cap-mm-flush    the flush alone after the copy, T threads
 *   cap-eadr        gpm_cap_mm with the fence only
 *   cap-fs          gpm_cap_fs of SIZE bytes with staging chunks of C MiB
 *   cap-gds         the same through GPUDirect Storage (cuFile), with T host
 *                   threads each writing pieces of C MiB, where libcufile
 *                   loads (the row says whether cuFile ran as GDS or in
 *                   its compatibility mode)
 *   gpm-memcpy      gpm_memcpy of SIZE bytes into the mapped file
 *   d2h-registered  cudaMemcpy into the registered mapping (no flush)
 *   d2h-pinned      cudaMemcpy into cudaHostAlloc memory (the link's ceiling)
 *
 * Every repetition copies a pattern of its own, and the CPU checks every
 * word of the destination afterwards (outside the timed region), so stale
 * data cannot pass. Timing: a monotonic clock around the one call.
 *
 * Options: gpm-cap-tune --help. PM files are made (and removed) under
 * GPM_PM_DIR. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/args.h"
#include "gpm/cap.h"
#include "gpm/copy.h"
#include "gpm/gpm.h"
#include "gpm/hd.h"
#include "gpm/platform.h"
#include "gpm/results.h"

#define MAX_LIST 32
#define MAX_REPS 100
#define MIB ((size_t)1 << 20)

GPM_HD uint64_t tune_pattern(uint64_t i, uint64_t seed)
{
    return gpm_mix64(i + seed * 0x9E3779B97F4A7C15ull);
}

__global__ void fill_kernel(uint64_t *p, size_t words, uint64_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = tune_pattern(i, seed);
}

typedef struct options {
    size_t size;
    int reps;
    int threads[MAX_LIST], nthreads;
    int chunks[MAX_LIST], nchunks;
    int gds_threads[MAX_LIST], ngds_threads;
    const char *out;
} options;

#define PROG "gpm-cap-tune"

/* 0 parsed, -1 with the message set, 1 --help printed. */
static int parse(int argc, char **argv, options *o)
{
    long long size;
    struct gpm_flag flags[] = {
        GPM_FLAG_LL("--size", &size, 8, 1ll << 40, "1G", "BYTES",
                    "bytes per copy, a multiple of 8, K/M/G allowed"),
        GPM_FLAG_INT("--reps", &o->reps, 1, MAX_REPS, "5", "N",
                     "timed repetitions after one warm-up, 1..100"),
        GPM_FLAG_INTS("--threads", o->threads, &o->nthreads, MAX_LIST, 1, GPM_FLUSHER_MAX_THREADS,
                      "1,2,4,8,16,32", "LIST", "CAP-mm flush threads"),
        GPM_FLAG_INTS("--chunks-mib", o->chunks, &o->nchunks, MAX_LIST, 1, 1 << 16, "4,16,64,256",
                      "LIST", "CAP-fs staging chunks, and CAP-gds pieces, in MiB"),
        GPM_FLAG_INTS("--gds-threads", o->gds_threads, &o->ngds_threads, MAX_LIST, 1, 64,
                      "1,2,4,8", "LIST", "CAP-gds host threads"),
        GPM_FLAG_STR("--out", &o->out, NULL, "FILE", "append result rows (TSV) to FILE"),
        GPM_FLAGS_END};
    int rc;
    memset(o, 0, sizeof *o);
    if ((rc = gpm_args_parse(PROG, "[options]\nPM files are made (and removed) under GPM_PM_DIR. "
                             "Needs a GPU.", flags, argc, argv)) != 0)
        return rc;
    if (size % 8)
        return gpm_set_error("--size: %lld is not a multiple of 8 bytes: pass e.g. %lld", size,
                             size & ~7ll);
    o->size = (size_t)size;
    return 0;
}

static int fill(uint64_t *d, size_t size, uint64_t seed)
{
    fill_kernel<<<1024, 256>>>(d, size / 8, seed);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

/* Every word of P must hold the pattern of SEED. */
static int verify(const void *p, size_t size, uint64_t seed)
{
    const uint64_t *w = (const uint64_t *)p;
    long long bad = 0;
    const long long words = (long long)(size / 8);
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (long long i = 0; i < words; i++)
        bad += w[i] != tune_pattern((uint64_t)i, seed);
    return bad == 0;
}

typedef struct series {
    double t[MAX_REPS];
    int n;
    int ok;
} series;

static int g_any_fail;

static void emit(const options *o, const gpm_platform *plat, const char *op, const char *mode,
                 int threads, const char *params, const series *s)
{
    gpm_result res;
    gpm_result_point(&res, "cap-tune", op, mode, "custom", o->size, threads, s->t, s->n,
                     (double)o->size, s->ok);
    res.params = params;
    if (!s->ok)
        g_any_fail = 1;
    printf("%-16s %-10s threads=%-3d %-14s median %10.6f s %7.2f GB/s (min %.6f max %.6f) %s\n",
           op, mode, threads, params, res.median_s, o->size / res.median_s / 1e9, res.min_s, res.max_s,
           res.verified);
    fflush(stdout);
    if (o->out && gpm_result_append(o->out, plat, &res) != 0)
        fprintf(stderr, "gpm-cap-tune: %s\n", gpm_last_error());
}

/* One warm-up (first touch of every page) then REPS timed repetitions. */
#define REPEAT(o, s, seedbase, body, check)                                            \
    do {                                                                               \
        (s).n = 0;                                                                     \
        (s).ok = 1;                                                                    \
        for (int rep_ = -1; rep_ < (o)->reps; rep_++) {                                \
            uint64_t seed = (seedbase) + (uint64_t)(rep_ + 2);                         \
            double t0_;                                                                \
            if (fill(dev, (o)->size, seed) != 0)                                       \
                return fail("filling device memory");                                  \
            t0_ = gpm_now_s();                                                         \
            if ((body) != 0)                                                           \
                return fail(gpm_last_error());                                         \
            if (rep_ >= 0)                                                             \
                (s).t[(s).n++] = gpm_now_s() - t0_;                                    \
            (s).ok &= verify((check), (o)->size, seed);                                \
        }                                                                              \
    } while (0)

static int fail(const char *what)
{
    fprintf(stderr, "gpm-cap-tune: %s\n", what);
    return -1;
}

static uint64_t *dev;

/* A private PM file name, so that no file of the user's is written. */
static void tune_file(char *out, size_t len, const char *what)
{
    snprintf(out, len, "cap-tune-%s-%ld", what, (long)getpid());
}

/* CAP-mm, its flush alone and CAP-eADR with the K-th thread count. */
static int cap_mm_threads(const options *o, const gpm_platform *plat, const gpm_region *r,
                          int k, gpm_flusher *f)
{
    series s;
    const char *params = "";
    REPEAT(o, s, 1000u * k, gpm_cap_mm(f, r, 0, dev, o->size, 0), r->host);
    emit(o, plat, "cap-mm", "cap-mm", o->threads[k], params, &s);
    /* The flush alone, after an untimed copy: what the threads change. */
    s.n = 0;
    s.ok = 1;
    for (int rep = -1; rep < o->reps; rep++) {
        uint64_t seed = 500000u + 1000u * k + (uint64_t)(rep + 2);
        double t0;
        if (fill(dev, o->size, seed) != 0 ||
            cudaMemcpy(r->host, dev, o->size, cudaMemcpyDefault) != cudaSuccess)
            return fail("copying to the mapping");
        t0 = gpm_now_s();
        if (gpm_flusher_persist(f, r, r->host, o->size, 0) != 0)
            return fail(gpm_last_error());
        if (rep >= 0)
            s.t[s.n++] = gpm_now_s() - t0;
        s.ok &= verify(r->host, o->size, seed);
    }
    emit(o, plat, "cap-mm-flush", "cap-mm", o->threads[k], params, &s);
    if (k == 0) {
        REPEAT(o, s, 900000u, gpm_cap_mm(f, r, 0, dev, o->size, 1), r->host);
        emit(o, plat, "cap-eadr", "cap-eadr", 0, params, &s);
    }
    return 0;
}

/* gpm_memcpy inside the DDIO bracket, which is closed even when the copy
 * fails. */
static int gpm_copy_bracketed(void *dst_pm, const void *src, size_t n)
{
    int rc;
    if (gpm_persist_begin() != 0)
        return -1;
    rc = gpm_memcpy(dst_pm, src, n);
    if (gpm_persist_end() != 0)
        rc = -1;
    return rc;
}

/* Every CAP-mm point, then GPM's bulk copy and the plain DMA into the same
 * registered file. */
static int cap_mm_points(const options *o, const gpm_platform *plat, const gpm_region *r)
{
    series s;
    const char *params = "";
    for (int k = 0; k < o->nthreads; k++) {
        gpm_flusher *f = gpm_flusher_create(o->threads[k]);
        int rc;
        if (!f)
            return fail(gpm_last_error());
        rc = cap_mm_threads(o, plat, r, k, f);
        gpm_flusher_destroy(f);
        if (rc != 0)
            return -1;
    }
    REPEAT(o, s, 2000000u, gpm_copy_bracketed(r->dev, dev, o->size), r->host);
    emit(o, plat, "gpm-memcpy", "gpm", 0, params, &s);
    REPEAT(o, s, 3000000u,
           (cudaMemcpy(r->host, dev, o->size, cudaMemcpyDeviceToHost) != cudaSuccess), r->host);
    emit(o, plat, "d2h-registered", "cap-mm", 0, params, &s);
    return 0;
}

static int run_cap_mm(const options *o, const gpm_platform *plat)
{
    gpm_region r;
    char name[64];
    int rc;
    tune_file(name, sizeof name, "mm");
    if (gpm_map(&r, name, o->size, GPM_CREATE) != 0)
        return fail(gpm_last_error());
    if (!r.created) {
        fprintf(stderr, "gpm-cap-tune: %s exists: remove it or set GPM_PM_DIR\n", r.path);
        gpm_unmap(&r);
        return -1;
    }
    rc = cap_mm_points(o, plat, &r);
    gpm_unmap(&r);
    unlink(r.path);
    return rc;
}

static int d2h_pinned_points(const options *o, const gpm_platform *plat, void *pinned)
{
    series s;
    REPEAT(o, s, 4000000u,
           (cudaMemcpy(pinned, dev, o->size, cudaMemcpyDeviceToHost) != cudaSuccess), pinned);
    emit(o, plat, "d2h-pinned", "none", 0, "", &s);
    return 0;
}

static int run_d2h_pinned(const options *o, const gpm_platform *plat)
{
    void *pinned = NULL;
    int rc;
    if (cudaHostAlloc(&pinned, o->size, cudaHostAllocDefault) != cudaSuccess)
        return fail("cudaHostAlloc of the pinned buffer");
    rc = d2h_pinned_points(o, plat, pinned);
    cudaFreeHost(pinned);
    return rc;
}

static int cap_fs_points(const options *o, const gpm_platform *plat, gpm_cap_file *cf,
                         const gpm_region *view)
{
    series s;
    for (int k = 0; k < o->nchunks; k++) {
        char params[64];
        if (gpm_cap_file_set_chunk(cf, (size_t)o->chunks[k] * MIB) != 0)
            return fail(gpm_last_error());
        snprintf(params, sizeof params, "chunk_mib=%d", o->chunks[k]);
        REPEAT(o, s, 5000000u + 1000u * k, gpm_cap_fs(cf, 0, dev, o->size), view->host);
        emit(o, plat, "cap-fs", "cap-fs", 1, params, &s);
    }
    return 0;
}

typedef int (*file_points_fn)(const options *o, const gpm_platform *plat, gpm_cap_file *cf,
                              const gpm_region *view);

/* A private file opened with FLAGS (gpm_cap_file_open's), POINTS run on it
 * with a read-only view of the same file for the checks, then removed. */
static int run_file(const options *o, const gpm_platform *plat, const char *what, int flags,
                    file_points_fn points)
{
    gpm_cap_file cf;
    gpm_region view;
    char name[64], full[4096];
    struct stat st;
    int rc;
    tune_file(name, sizeof name, what);
    if (gpm_resolve_path(name, full, sizeof full) != 0)
        return fail(gpm_last_error());
    if (stat(full, &st) == 0) {
        fprintf(stderr, "gpm-cap-tune: %s exists: remove it or set GPM_PM_DIR\n", full);
        return -1;
    }
    if (gpm_cap_file_open(&cf, full, o->size, GPM_CREATE | flags) != 0)
        return fail(gpm_last_error());
    if (gpm_map(&view, cf.path, o->size, GPM_HOST_ONLY) != 0) {
        rc = fail(gpm_last_error());
    } else {
        rc = points(o, plat, &cf, &view);
        gpm_unmap(&view);
    }
    unlink(cf.path);
    gpm_cap_file_close(&cf);
    return rc;
}

static int run_cap_fs(const options *o, const gpm_platform *plat)
{
    return run_file(o, plat, "fs", 0, cap_fs_points);
}

static int cap_gds_points(const options *o, const gpm_platform *plat, gpm_cap_file *cf,
                          const gpm_region *view)
{
    series s;
    for (int t = 0; t < o->ngds_threads; t++)
        for (int k = 0; k < o->nchunks; k++) {
            char params[160];
            cf->gds_threads = o->gds_threads[t];
            if (gpm_cap_file_set_chunk(cf, (size_t)o->chunks[k] * MIB) != 0)
                return fail(gpm_last_error());
            snprintf(params, sizeof params, "piece_mib=%d,cufile=%s", o->chunks[k],
                     gpm_gds_way(&cf->gds));
            REPEAT(o, s, 6000000u + 1000u * (t * MAX_LIST + k), gpm_cap_fs(cf, 0, dev, o->size),
                   view->host);
            emit(o, plat, "cap-gds", "cap-gds", o->gds_threads[t], params, &s);
        }
    return 0;
}

/* CAP-gds where cuFile can write files here; elsewhere one line says why
 * not. */
static int run_cap_gds(const options *o, const gpm_platform *plat)
{
    char why[768];
    if (!gpm_gds_usable(gpm_pm_dir(), why, sizeof why)) {
        printf("# cap-gds skipped: %s\n", why);
        return 0;
    }
    return run_file(o, plat, "gds", GPM_CAP_GDS, cap_gds_points);
}

int main(int argc, char **argv)
{
    options o;
    gpm_platform plat;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? 0 : gpm_args_fail(PROG);
    if (gpm_gpu_check() != 0) {
        fprintf(stderr, PROG ": %s: run it on a machine with one\n", gpm_last_error());
        return 1;
    }
    gpm_platform_collect(&plat);
    if (cudaMalloc((void **)&dev, o.size) != cudaSuccess)
    {
        fail("cudaMalloc of the source buffer");
        return 1;
    }
    printf("# gpm-cap-tune: %zu bytes, %d reps, PM dir %s\n", o.size, o.reps, gpm_pm_dir());
    if (run_d2h_pinned(&o, &plat) != 0 || run_cap_mm(&o, &plat) != 0 ||
        run_cap_fs(&o, &plat) != 0 || run_cap_gds(&o, &plat) != 0)
        return 1;
    cudaFree(dev);
    if (g_any_fail) {
        fprintf(stderr, "gpm-cap-tune: verification failed (see verified=fail)\n");
        return 1;
    }
    return 0;
}
