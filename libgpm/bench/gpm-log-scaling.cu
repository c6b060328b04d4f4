/* gpm-log-scaling: latency of inserting undo-log entries as the number of
 * concurrent logging threads grows, HCL against conventional partitioned
 * logging (paper Figure 11b, section 6 "Importance of HCL in logging").
 *
 * For each thread count N, one kernel of N threads in which every thread
 * inserts one ENTRY-byte entry (store the entry, persist, bump and persist
 * its tail):
 *   hcl   each thread in its own slot, from (block, warp, lane), no lock;
 *   conv  thread g appends to partition g % PARTITIONS under its lock.
 * Latency = the kernel, timed with CUDA events; the log is emptied (outside
 * the timing) before each repetition, and after each the CPU checks that
 * every thread's entry of that repetition is in the log exactly once.
 *
 *   gpm-log-scaling [--threads 32,128,...] [--reps R] [--entry-bytes B]
 *                   [--partitions P] [--block T] [--scale S] [--out TSV] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

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
    int reps, entry, parts, block;
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

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        return gpm_set_error("%s: %s", what, cudaGetErrorString(e));
    return 0;
}

static int run_point(const options *o, const gpm_platform *plat, int hcl, int n)
{
    char name[256], params[256];
    gpmlog log;
    int tpb = n < o->block ? n : o->block, blocks = (n + tpb - 1) / tpb, rc, all_ok = 1;
    size_t per = (size_t)gpmlog_round4((uint32_t)o->entry);
    double t[MAX_REPS];
    cudaEvent_t ev[2];
    int *bad = NULL;

    snprintf(name, sizeof name, "log-scaling-%d-%s-%d", (int)getpid(), hcl ? "hcl" : "conv", n);
    if (hcl)
        rc = gpmlog_create_hcl(&log, name, (size_t)blocks * gpmlog_warps_per_block(tpb) * 32 * per,
                               blocks, tpb, 0);
    else
        rc = gpmlog_create_conv(&log, name,
                                (size_t)o->parts * (((size_t)n / o->parts + 1) * per + 128),
                                o->parts, 0);
    if (rc != 0)
        return -1;
    rc = cuda_ok(cudaMalloc((void **)&bad, sizeof *bad), "cudaMalloc");
    if (rc == 0)
        rc = cuda_ok(cudaEventCreate(&ev[0]), "cudaEventCreate");
    if (rc == 0 && cuda_ok(cudaEventCreate(&ev[1]), "cudaEventCreate") != 0) {
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
            cuda_ok(cudaMemset(bad, 0, sizeof *bad), "cudaMemset") != 0 ||
            gpm_persist_begin() != 0) {
            rc = -1;
            break;
        }
        cudaEventRecord(ev[0]);
        insert_one<<<blocks, tpb>>>(gpmlog_device(&log), (uint32_t)n, (uint32_t)o->entry,
                                    (uint32_t)o->parts, (uint32_t)(rep + 1), bad);
        cudaEventRecord(ev[1]);
        rc = cuda_ok(cudaEventSynchronize(ev[1]), "insert kernel");
        if (rc == 0)
            rc = cuda_ok(cudaGetLastError(), "insert kernel launch");
        /* DDIO must be back on even when the kernel failed. */
        if (gpm_persist_end() != 0)
            rc = -1;
        if (rc != 0)
            break;
        cudaEventElapsedTime(&ms, ev[0], ev[1]);
        rc = cuda_ok(cudaMemcpy(&b, bad, sizeof b, cudaMemcpyDeviceToHost), "cudaMemcpy");
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
    memset(&res, 0, sizeof res);
    snprintf(params, sizeof params, "entry_bytes=%d,partitions=%d,block=%d,blocks=%d",
             o->entry, hcl ? 0 : o->parts, tpb, blocks);
    res.workload = "log-scaling";
    res.op = hcl ? "hcl" : "conv";
    res.mode = "gpm";
    res.scale = o->scale;
    res.size_bytes = (size_t)n * per;
    res.threads = n;
    gpm_result_set_times(&res, t, o->reps);
    res.bytes_persisted = (double)n * per;
    res.verified = all_ok ? "ok" : "fail";
    res.params = params;
    printf("%-5s %8d %5d %12.3f %12.3f  %s\n", res.op, n, o->reps, res.median_s * 1e6,
           res.min_s * 1e6, res.verified);
    fflush(stdout);
    if (o->out && gpm_result_append(o->out, plat, &res) != 0)
        return -1;
    return all_ok ? 0 : 1;
}

static int parse_list(const char *s, int *v, int max)
{
    int n = 0;
    char *end;
    while (*s && n < max) {
        long x = strtol(s, &end, 10);
        if (end == s || x <= 0)
            return -1;
        v[n++] = (int)x;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return *s ? -1 : n;
}

static int parse(int argc, char **argv, options *o)
{
    const char *list = NULL;
    memset(o, 0, sizeof *o);
    o->reps = 5;
    o->entry = 16;
    o->parts = 64;
    o->block = 256;
    o->scale = "small";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return gpm_set_error("%s: needs a value (see the usage in the source header)", a);
        i++;
        if (!strcmp(a, "--threads"))
            list = v;
        else if (!strcmp(a, "--reps"))
            o->reps = atoi(v);
        else if (!strcmp(a, "--entry-bytes"))
            o->entry = atoi(v);
        else if (!strcmp(a, "--partitions"))
            o->parts = atoi(v);
        else if (!strcmp(a, "--block"))
            o->block = atoi(v);
        else if (!strcmp(a, "--scale"))
            o->scale = v;
        else if (!strcmp(a, "--out"))
            o->out = v;
        else
            return gpm_set_error("unknown option %s: use --threads, --reps, --entry-bytes, "
                                 "--partitions, --block, --scale, --out", a);
    }
    if (!list)
        list = !strcmp(o->scale, "tiny")    ? "32,128,512,2048"
               : !strcmp(o->scale, "paper") ? "32,128,512,2048,8192,32768,131072,524288"
                                            : "32,128,512,2048,8192,32768,131072";
    o->nthreads = parse_list(list, o->threads, MAX_LIST);
    if (o->nthreads <= 0)
        return gpm_set_error("--threads %s: give positive counts separated by commas", list);
    if (o->reps < 1 || o->reps > MAX_REPS)
        return gpm_set_error("--reps %d: use 1..%d", o->reps, MAX_REPS);
    if (o->entry < 8 || o->entry > MAX_ENTRY || o->entry % 4)
        return gpm_set_error("--entry-bytes %d: use a multiple of 4 in 8..%d", o->entry,
                             MAX_ENTRY);
    if (o->parts < 1)
        return gpm_set_error("--partitions %d: use at least 1", o->parts);
    if (o->block < 32 || o->block > 1024 || o->block % 32)
        return gpm_set_error("--block %d: use a multiple of 32 in 32..1024", o->block);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    gpm_platform plat;
    int rc = 0;
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "gpm-log-scaling: %s\n", gpm_last_error());
        return 2;
    }
    gpm_platform_collect(&plat);
    printf("# log-scaling: %d-byte entries, conv with %d partitions, block %d, PM in %s\n",
           o.entry, o.parts, o.block, gpm_pm_dir());
    printf("%-5s %8s %5s %12s %12s  %s\n", "op", "threads", "reps", "median_us", "min_us",
           "verified");
    for (int i = 0; i < o.nthreads && rc >= 0; i++)
        for (int hcl = 1; hcl >= 0 && rc >= 0; hcl--) {
            int r = run_point(&o, &plat, hcl, o.threads[i]);
            if (r != 0)
                rc = r < 0 ? -1 : 1;
        }
    if (rc < 0) {
        fprintf(stderr, "gpm-log-scaling: %s\n", gpm_last_error());
        return 1;
    }
    if (rc > 0)
        fprintf(stderr, "gpm-log-scaling: verification failed (see verified=fail)\n");
    return rc;
}
