/* gpm-log-scaling: latency of inserting undo-log entries as the number of
 * concurrent logging threads grows, HCL against conventional partitioned
 * logging (paper Figure 11b, section 6 "Importance of HCL in logging").
 *
 * For each thread count N, one kernel of N threads in which every thread
 * inserts one ENTRY-byte entry (store the entry, persist, bump and persist
 * its tail):
 *   hcl   each thread in its own slot, from (block, warp, lane), no lock;
 *   conv  thread g appends to partition g % P under its lock, once for
 *         every partition count P of --partitions up to N (more partitions
 *         than threads would leave some empty: those are skipped, and the
 *         output says so), so that the report can hold HCL against
 *         conventional logging at its best partition count, not at one
 *         arbitrary count.
 * Latency = the kernel, timed with CUDA events; the log is emptied (outside
 * the timing) before each repetition, and after each the CPU checks that
 * every thread's entry of that repetition is in the log exactly once.
 * Options: gpm-log-scaling --help. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/args.h"
#include "gpm/gpm.cuh"
#include "gpm/log.cuh"
#include "gpm/log.h"
#include "gpm/platform.h"
#include "gpm/results.h"

#define MAX_LIST 32
#define MAX_ENTRY 256
#define MAX_REPS 64

typedef struct options {
    int threads[MAX_LIST], nthreads;
    int parts[MAX_LIST], nparts; /* conventional logging's partition counts */
    int reps, entry, block;
    const char *scale, *out;
} options;

/* Entry of thread G in repetition REP: G, REP, then a pattern of both. */
__host__ __device__ static inline uint32_t entry_word(uint32_t g, uint32_t rep, uint32_t k)
{
    if (k == 0)
        return g;
    if (k == 1)
        return rep;
    return (g * 2654435761u) ^ (rep * 40503u) ^ (k * 0x9E3779B9u);
}

static __global__ void insert_one(gpmlog_dev log, uint32_t n, uint32_t entry, uint32_t parts,
                                  uint32_t rep, int *bad)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t e[MAX_ENTRY / 4];
    if (g >= n)
        return;
    for (uint32_t k = 0; k < entry / 4; k++)
        e[k] = entry_word(g, rep, k);
    if (gpmlog_insert(log, e, entry, log.g.kind == GPMLOG_HCL ? -1 : (int)(g % parts)) != 0)
        atomicAdd(bad, 1);
}

/* Every thread's entry of REP is in the log once, whole. */
static int verify(const gpmlog *log, uint32_t n, uint32_t entry, uint32_t rep)
{
    const uint8_t *base = (const uint8_t *)log->region.host;
    uint32_t e[MAX_ENTRY / 4];
    uint8_t *seen = (uint8_t *)calloc(n, 1);
    uint32_t found = 0;
    int ok = seen != NULL;
    for (uint32_t s = 0; ok && s < log->g.n_slots; s++) {
        uint32_t tail = gpmlog_tail(log, s);
        for (uint32_t pos = 0; ok && pos + entry <= tail; pos += entry) {
            gpmlog_copy_out(&log->g, base, s, pos, e, entry);
            if (e[0] >= n || e[1] != rep || seen[e[0]]) {
                ok = 0;
                break;
            }
            for (uint32_t k = 2; k < entry / 4; k++)
                if (e[k] != entry_word(e[0], rep, k))
                    ok = 0;
            seen[e[0]] = 1;
            found++;
        }
        if (tail % entry)
            ok = 0;
    }
    free(seen);
    return ok && found == n;
}

/* One (variant, thread count) point; PARTS is the conventional log's
 * partition count (ignored for HCL). 0 ok, 1 unverified, -1 error. */
static int run_point(const options *o, const gpm_platform *plat, int hcl, int n, int parts)
{
    char name[256], params[256];
    gpmlog log;
    int tpb = n < o->block ? n : o->block, blocks = (n + tpb - 1) / tpb, rc, all_ok = 1;
    size_t per = (size_t)gpmlog_round4((uint32_t)o->entry);
    double t[MAX_REPS];
    cudaEvent_t ev[2];
    int *bad = NULL;

    snprintf(name, sizeof name, "log-scaling-%d-%s-%d-%d", (int)getpid(), hcl ? "hcl" : "conv",
             n, hcl ? 0 : parts);
    if (hcl)
        rc = gpmlog_create_hcl(&log, name, (size_t)blocks * gpmlog_warps_per_block(tpb) * 32 * per,
                               blocks, tpb, 0);
    else
        rc = gpmlog_create_conv(&log, name,
                                (size_t)parts * (((size_t)n / parts + 1) * per + 128),
                                parts, 0);
    if (rc != 0)
        return -1;
    rc = gpm_cuda_ok(cudaMalloc((void **)&bad, sizeof *bad), "cudaMalloc");
    if (rc == 0)
        rc = gpm_cuda_ok(cudaEventCreate(&ev[0]), "cudaEventCreate");
    if (rc == 0 && gpm_cuda_ok(cudaEventCreate(&ev[1]), "cudaEventCreate") != 0) {
        cudaEventDestroy(ev[0]);
        rc = -1;
    }
    if (rc != 0) {
        if (bad)
            cudaFree(bad);
        gpmlog_close(&log);
        unlink(log.region.path);
        return -1;
    }
    for (int rep = -1; rep < o->reps && rc == 0; rep++) { /* rep -1: warm-up */
        float ms = 0;
        int b = 0;
        if (gpmlog_reset(&log) != 0 ||
            gpm_cuda_ok(cudaMemset(bad, 0, sizeof *bad), "cudaMemset") != 0 ||
            gpm_persist_begin() != 0) {
            rc = -1;
            break;
        }
        cudaEventRecord(ev[0]);
        insert_one<<<blocks, tpb>>>(gpmlog_device(&log), (uint32_t)n, (uint32_t)o->entry,
                                    (uint32_t)parts, (uint32_t)(rep + 1), bad);
        cudaEventRecord(ev[1]);
        rc = gpm_cuda_ok(cudaEventSynchronize(ev[1]), "insert kernel");
        if (rc == 0)
            rc = gpm_cuda_ok(cudaGetLastError(), "insert kernel launch");
        /* DDIO must be back on even when the kernel failed. */
        if (gpm_persist_end() != 0)
            rc = -1;
        if (rc != 0)
            break;
        cudaEventElapsedTime(&ms, ev[0], ev[1]);
        rc = gpm_cuda_ok(cudaMemcpy(&b, bad, sizeof b, cudaMemcpyDeviceToHost), "cudaMemcpy");
        if (rc != 0)
            break;
        if (b || !verify(&log, (uint32_t)n, (uint32_t)per, (uint32_t)(rep + 1)))
            all_ok = 0;
        if (rep >= 0)
            t[rep] = ms / 1e3;
    }
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    cudaFree(bad);
    gpmlog_close(&log);
    unlink(log.region.path);
    if (rc != 0)
        return -1;

    gpm_result res;
    snprintf(params, sizeof params, "entry_bytes=%d,partitions=%d,block=%d,blocks=%d",
             o->entry, hcl ? 0 : parts, tpb, blocks);
    gpm_result_point(&res, "log-scaling", hcl ? "hcl" : "conv", "gpm", o->scale, (size_t)n * per,
                     n, t, o->reps, (double)n * per, all_ok);
    res.params = params;
    printf("%-5s %8d %10d %5d %12.3f %12.3f  %s\n", res.op, n, hcl ? 0 : parts, o->reps,
           res.median_s * 1e6, res.min_s * 1e6, res.verified);
    fflush(stdout);
    if (o->out && gpm_result_append(o->out, plat, &res) != 0)
        return -1;
    return all_ok ? 0 : 1;
}

#define PROG "gpm-log-scaling"

/* 0 parsed, -1 with the message set, 1 --help printed. */
static int parse(int argc, char **argv, options *o)
{
    static const char *const scales[] = {"tiny", "small", "paper", "custom", NULL};
    struct gpm_flag flags[] = {
        GPM_FLAG_INTS("--threads", o->threads, &o->nthreads, MAX_LIST, 1, 1 << 26, NULL, "LIST",
                      "concurrent logging threads (default by --scale: tiny 32..2048, small "
                      "32..131072, paper 32..524288, x4 apart)"),
        GPM_FLAG_INTS("--partitions", o->parts, &o->nparts, MAX_LIST, 1, 1 << 24,
                      "1,4,16,64,256,1024,4096,16384,65536", "LIST",
                      "conventional logging's partition counts, each run at every thread count "
                      "it does not exceed"),
        GPM_FLAG_INT("--reps", &o->reps, 1, MAX_REPS, "5", "N",
                     "timed repetitions after one warm-up, 1..64"),
        GPM_FLAG_INT("--entry-bytes", &o->entry, 8, MAX_ENTRY, "16", "B",
                     "bytes per log entry, a multiple of 4 in 8..256"),
        GPM_FLAG_INT("--block", &o->block, 32, 1024, "256", "T",
                     "threads per block, a multiple of 32 in 32..1024"),
        GPM_FLAG_WORD("--scale", &o->scale, scales, "small", NULL,
                      "recorded in the rows, and picks the default --threads (custom: as small)"),
        GPM_FLAG_STR("--out", &o->out, NULL, "FILE", "append result rows (TSV) to FILE"),
        GPM_FLAGS_END};
    int rc, max;
    memset(o, 0, sizeof *o);
    if ((rc = gpm_args_parse(PROG, "[options]\nPM files are made (and removed) under GPM_PM_DIR. "
                             "Needs a GPU.", flags, argc, argv)) != 0)
        return rc;
    if (o->entry % 4)
        return gpm_set_error("--entry-bytes: %d is not a multiple of 4: pass e.g. %d", o->entry,
                             o->entry / 4 * 4);
    if (o->block % 32)
        return gpm_set_error("--block: %d is not a multiple of 32 (a warp): pass e.g. %d",
                             o->block, (o->block / 32 + 1) * 32);
    max = !strcmp(o->scale, "tiny") ? 2048 : !strcmp(o->scale, "paper") ? 524288 : 131072;
    if (o->nthreads == 0) /* not given: by --scale */
        for (int t = 32; t <= max; t *= 4)
            o->threads[o->nthreads++] = t;
    return 0;
}

/* The thread count N: HCL once, then conventional logging at every
 * partition count up to N; the counts left out are named. */
static int run_threads(const options *o, const gpm_platform *plat, int n)
{
    char skipped[MAX_LIST * 12] = ""; /* room for every count, comma-separated */
    size_t len = 0;
    int rc = run_point(o, plat, 1, n, 0), r;
    for (int j = 0; j < o->nparts && rc >= 0; j++) {
        if (o->parts[j] > n) {
            len += (size_t)snprintf(skipped + len, sizeof skipped - len, "%s%d", len ? "," : "",
                                    o->parts[j]);
            continue;
        }
        r = run_point(o, plat, 0, n, o->parts[j]);
        if (r != 0)
            rc = r < 0 ? -1 : 1;
    }
    if (len && rc >= 0)
        printf("# conv at %d threads: partitions %s skipped (more partitions than threads)\n",
               n, skipped);
    return rc;
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
    printf("# log-scaling: %d-byte entries, block %d, PM in %s\n", o.entry, o.block,
           gpm_pm_dir());
    printf("%-5s %8s %10s %5s %12s %12s  %s\n", "op", "threads", "partitions", "reps",
           "median_us", "min_us", "verified");
    for (int i = 0; i < o.nthreads && rc >= 0; i++) {
        int r = run_threads(&o, &plat, o.threads[i]);
        if (r != 0)
            rc = r < 0 ? -1 : 1;
    }
    if (rc < 0) {
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
        return 1;
    }
    if (rc > 0)
        fprintf(stderr, PROG ": verification failed (see verified=fail)\n");
    return rc;
}
