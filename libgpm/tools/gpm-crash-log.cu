/* gpm-crash-log: crash trials for undo logging and transactions (gpm/tx.h).
 *
 * Run mode: a loop of transactions over a PM-resident array of N uint32,
 * the target region of an HCL or conventional undo log. Transaction t
 * gives element i the value value_at(i, t + 1); each thread changes two
 * elements, logging each old value (gpmtx_log_undo) before storing the
 * new one. A watchdog thread SIGKILLs the process at a random moment.
 *   default (mode gpm): gpmtx_begin; one kernel logs fenced, stores and
 *     persists each element; gpmtx_commit.
 *   --ndp (mode gpm-ndp): a kernel logs unfenced; gpmlog_flush;
 *     gpmtx_begin; a kernel stores the new values unfenced; the CPU flushes
 *     the array; gpmtx_commit.
 *   --cpu: the same steps on the CPU (gpmtx_host_log_undo), for machines
 *     without a GPU.
 *
 * --recover: reopens the array and the log, runs gpmtx_recover, and checks
 * that the array equals exactly the state after `committed` transactions
 * (the log's transaction word), a pure function of the element and the
 * count, and that the log is left empty and inactive.
 *
 * Options: gpm-crash-log --help. Files: NAME.data (the array) and NAME.log under GPM_PM_DIR. Exit: 0 ok,
 * 1 failure or verification mismatch, 2 usage. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpm/args.h"
#include "gpm/cap.h"
#include "gpm/crash.h"
#include "gpm/gpm.cuh"
#include "gpm/log.h"
#include "gpm/tx.cuh"
#include "gpm/tx.h"

#define PROG "gpm-crash-log"
#define THREADS 256
#define RECORD 20u /* gpmtx_record_bytes(4): one element's undo record */

typedef struct options {
    const char *file;
    int hcl, ndp, cpu, recover;
    uint32_t n, parts;
    long long kill[2], seed, max_tx; /* kill: MIN and MAX microseconds; max_tx -1: until killed */
} options;

/* The value of element I after T transactions. */
__host__ __device__ static inline uint32_t value_at(uint32_t i, uint64_t t)
{
    uint32_t h = i * 0x9E3779B1u ^ (uint32_t)(t * 0x85EBCA77u + 0x165667B1u);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* Thread g owns elements g and g + n/2 (two records per slot, undone
 * newest first); a conventional log gets partition g % parts. */
__host__ __device__ static inline int slot_arg(uint32_t g, uint32_t parts, int hcl)
{
    return hcl ? -1 : (int)(g % parts);
}

/* Mode gpm (UPDATE): log fenced, then store and persist, element by element.
 * Mode gpm-ndp, step 1: log only, unfenced (LOG from gpmlog_device_unfenced). */
static __global__ void tx_log(gpmlog_dev log, uint32_t *data, uint32_t n, uint64_t t,
                              uint32_t parts, int update, int *bad)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, half = n / 2;
    if (g >= half)
        return;
    for (uint32_t j = 0; j < 2; j++) {
        uint32_t i = g + j * half, old = data[i];
        if (gpmtx_log_undo(log, slot_arg(g, parts, log.g.kind == GPMLOG_HCL),
                           (uint64_t)i * 4u, &old, 4) != 0) {
            atomicAdd(bad, 1);
            return; /* never update what was not logged */
        }
        if (update) {
            gpm_store_u32(data + i, value_at(i, t + 1));
            gpm_persist();
        }
    }
}

/* Mode gpm-ndp, step 3: the new values, unfenced (the CPU flushes). */
static __global__ void tx_update_unfenced(uint32_t *data, uint32_t n, uint64_t t)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, half = n / 2;
    if (g >= half)
        return;
    for (uint32_t j = 0; j < 2; j++)
        gpm_store_u32(data + g + j * half, value_at(g + j * half, t + 1));
}

static void die(const char *what)
{
    fprintf(stderr, PROG ": %s\n", what);
    exit(1);
}

static void cuda_check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, PROG ": %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static void names(const char *file, char *data, char *logf, size_t len)
{
    snprintf(data, len, "%s.data", file);
    snprintf(logf, len, "%s.log", file);
}

/* The slot of thread G as the kernels' -1 resolves it (HCL), or its
 * partition: the CPU variant logs exactly where the GPU would. */
static uint32_t host_slot(const gpmlog *log, uint32_t g, uint32_t parts)
{
    if (log->g.kind != GPMLOG_HCL)
        return g % parts;
    return gpmlog_hcl_slot(&log->g, g / THREADS, g % THREADS / GPMLOG_WARP, g % GPMLOG_WARP);
}

/* The CPU variant of one transaction: the same order as the kernels. */
static void cpu_transaction(const options *o, gpmlog *log, gpm_region *r, uint64_t t)
{
    uint32_t *data = (uint32_t *)r->host, half = o->n / 2;
    if (!o->ndp && gpmtx_begin(log) != 0)
        die(gpm_last_error());
    for (uint32_t g = 0; g < half; g++)
        for (uint32_t j = 0; j < 2; j++) {
            uint32_t i = g + j * half;
            if (gpmtx_host_log_undo(log, host_slot(log, g, o->parts), (uint64_t)i * 4u,
                                    &data[i], 4) != 0)
                die(gpm_last_error());
            if (!o->ndp) {
                data[i] = value_at(i, t + 1);
                if (gpm_region_persist(r, &data[i], 4) != 0)
                    die(gpm_last_error());
            }
        }
    if (o->ndp) {
        if (gpmlog_flush(log, NULL) != 0 || gpmtx_begin(log) != 0)
            die(gpm_last_error());
        for (uint32_t i = 0; i < o->n; i++)
            data[i] = value_at(i, t + 1);
        if (gpm_region_persist(r, r->host, r->size) != 0)
            die(gpm_last_error());
    }
    if (gpmtx_commit(log) != 0)
        die(gpm_last_error());
}

static void gpu_transaction(const options *o, gpmlog *log, gpm_region *r, gpm_flusher *fl,
                            int *bad, uint64_t t)
{
    uint32_t blocks = (o->n / 2 + THREADS - 1) / THREADS, *data_dev = (uint32_t *)r->dev;
    int b = 0;
    if (!o->ndp) {
        if (gpmtx_begin(log) != 0 || gpm_persist_begin() != 0)
            die(gpm_last_error());
        tx_log<<<blocks, THREADS>>>(gpmlog_device(log), data_dev, o->n, t, o->parts, 1, bad);
        cuda_check(cudaDeviceSynchronize(), "transaction kernel");
        if (gpm_persist_end() != 0)
            die(gpm_last_error());
    } else {
        tx_log<<<blocks, THREADS>>>(gpmlog_device_unfenced(log), data_dev, o->n, t, o->parts, 0,
                                    bad);
        cuda_check(cudaDeviceSynchronize(), "logging kernel");
    }
    cuda_check(cudaMemcpy(&b, bad, sizeof b, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (b)
        die("log full in a transaction: the log was sized too small");
    if (o->ndp) {
        /* The log is durable before any element changes. */
        if (gpmlog_flush(log, fl) != 0 || gpmtx_begin(log) != 0)
            die(gpm_last_error());
        tx_update_unfenced<<<blocks, THREADS>>>(data_dev, o->n, t);
        cuda_check(cudaDeviceSynchronize(), "update kernel");
        if (gpm_flusher_persist(fl, r, r->host, r->size, 0) != 0)
            die(gpm_last_error());
    }
    if (gpmtx_commit(log) != 0)
        die(gpm_last_error());
}

static int run(const options *o)
{
    char dname[4096], lname[4096];
    int flags = o->cpu ? GPM_HOST_ONLY : 0;
    uint32_t half = o->n / 2, blocks = (half + THREADS - 1) / THREADS;
    gpm_flusher *fl = NULL;
    gpm_region r;
    gpmlog log;
    uint32_t *data;
    int *bad = NULL, rc;

    names(o->file, dname, lname, sizeof dname);
    if (gpm_map(&r, dname, (size_t)o->n * 4, GPM_CREATE | flags) != 0)
        die(gpm_last_error());
    if (!r.created)
        die("data file exists: remove NAME.data and NAME.log for a new trial, or --recover");
    data = (uint32_t *)r.host;
    for (uint32_t i = 0; i < o->n; i++)
        data[i] = value_at(i, 0);
    if (gpm_region_persist(&r, r.host, r.size) != 0)
        die(gpm_last_error());
    /* The log last: a trial killed before it exists is not recoverable,
     * and says so. Two records per thread, plus room to spare. */
    if (o->hcl)
        rc = gpmlog_create_hcl(&log, lname, (size_t)blocks * THREADS * (2 * RECORD + 8),
                               (int)blocks, THREADS, flags);
    else
        rc = gpmlog_create_conv(&log, lname,
                                (size_t)o->parts * ((size_t)(half / o->parts + 1) * 2 * RECORD +
                                                    GPMLOG_LINE),
                                (int)o->parts, flags);
    if (rc != 0)
        die(gpm_last_error());
    if (!o->cpu) {
        cuda_check(cudaMalloc((void **)&bad, sizeof *bad), "cudaMalloc");
        cuda_check(cudaMemset(bad, 0, sizeof *bad), "cudaMemset");
        if (o->ndp && !(fl = gpm_flusher_create(gpm_flusher_default_threads())))
            die(gpm_last_error());
    }

    if (o->max_tx < 0 && gpm_crash_arm_us(gpm_crash_pick_us(
                             (uint64_t)o->seed, (uint64_t)o->kill[0], (uint64_t)o->kill[1])) != 0)
        die(gpm_last_error());
    for (uint64_t t = 0; o->max_tx < 0 || t < (uint64_t)o->max_tx; t++) {
        if (o->cpu)
            cpu_transaction(o, &log, &r, t);
        else
            gpu_transaction(o, &log, &r, fl, bad, t);
    }
    printf("completed %lld transactions without a kill\n", o->max_tx);
    gpm_flusher_destroy(fl);
    if (bad)
        cudaFree(bad);
    gpmlog_close(&log);
    gpm_unmap(&r);
    return 0;
}

static int recover(const options *o)
{
    char dname[4096], lname[4096];
    int flags = o->cpu ? GPM_HOST_ONLY : 0;
    gpm_region r;
    gpmlog log;
    gpmtx_stats st;
    uint32_t *data, n, wrong = 0, first = 0, left = 0;

    names(o->file, dname, lname, sizeof dname);
    if (gpm_map(&r, dname, 0, flags) != 0)
        die(gpm_last_error());
    if (r.size < 8 || r.size % 4 != 0 || r.size / 4 > UINT32_MAX)
        die("NAME.data is not a crash-trial array (its size is not a whole number of elements)");
    if (gpmlog_open(&log, lname, flags) != 0)
        die(gpm_last_error());
    if (gpmtx_recover(&log, &r, &st) != 0)
        die(gpm_last_error());
    n = (uint32_t)(r.size / 4);
    data = (uint32_t *)r.host;
    for (uint32_t s = 0; s < log.g.n_slots; s++)
        left += gpmlog_tail(&log, s) != 0;
    for (uint32_t i = 0; i < n; i++)
        if (data[i] != value_at(i, st.committed)) {
            if (!wrong)
                first = i;
            wrong++;
        }
    printf("kind %s committed %llu active %d undone %llu dropped %llu elements %u wrong %u "
           "on %s\n", log.g.kind == GPMLOG_HCL ? "hcl" : "conv",
           (unsigned long long)st.committed, st.was_active, (unsigned long long)st.undone,
           (unsigned long long)st.dropped_bytes, n, wrong, st.on_gpu ? "gpu" : "cpu");
    if (wrong || left || gpmtx_active(&log)) {
        fprintf(stderr, PROG ": NOT recovered: %u elements differ from the state after %llu "
                        "transactions (first: element %u); %u slots not empty; transaction "
                        "%s\n", wrong, (unsigned long long)st.committed, first, left,
                gpmtx_active(&log) ? "still active" : "inactive");
        return 1;
    }
    printf("recovered\n");
    gpmlog_close(&log);
    gpm_unmap(&r);
    return 0;
}

/* 0 parsed, -1 with the message set, 1 --help printed. */
static int parse(int argc, char **argv, options *o)
{
    static const char *const kinds[] = {"hcl", "conv", NULL};
    static const char *const synopsis =
        "--file NAME [--log hcl|conv] [--ndp] [--cpu] [options]\n"
        "       " PROG " --recover --file NAME [--cpu]\n"
        "Runs transactions on an array under an undo log until a watchdog SIGKILLs the\n"
        "process; --recover undoes the interrupted one and verifies the array.\n"
        "Exit: 0 ok, 1 failure or mismatch, 2 usage.";
    long long n, parts;
    int kind, rc;
    /* The flags after --recover are the run's: --recover refuses them. */
    struct gpm_flag flags[] = {
        GPM_FLAG_STR("--file", &o->file, NULL, "NAME",
                     "files NAME.data and NAME.log (relative: under GPM_PM_DIR)"),
        GPM_FLAG_SET("--cpu", &o->cpu, "run (or recover) on the CPU, without a GPU"),
        GPM_FLAG_SET("--recover", &o->recover, "undo the interrupted transaction and verify"),
        GPM_FLAG_CHOICE("--log", &kind, kinds, "hcl", NULL, "log kind"),
        GPM_FLAG_SET("--ndp", &o->ndp, "mode gpm-ndp: unfenced log and updates, CPU flushes"),
        GPM_FLAG_LL("--elements", &n, 2, 1ll << 28, "65536", "N",
                    "array elements, even, 2 to 256M"),
        GPM_FLAG_LL("--partitions", &parts, 1, 65536, "64", "P",
                    "conventional log partitions, 1 to 65536"),
        GPM_FLAG_RANGE("--kill-after-us", o->kill, 0, 3600000000ll, "1000:200000", "MIN:MAX",
                       "SIGKILL after a delay in this window, in microseconds"),
        GPM_FLAG_LL("--seed", &o->seed, 0, LLONG_MAX, "1", "S", "picks the delay"),
        GPM_FLAG_LL("--max-tx", &o->max_tx, 0, LLONG_MAX, NULL, "T",
                    "run T transactions and exit, no kill"),
        GPM_FLAGS_END};
    const struct gpm_flag *run_only = NULL;
    memset(o, 0, sizeof *o);
    o->max_tx = -1;
    if ((rc = gpm_args_parse(PROG, synopsis, flags, argc, argv)) != 0)
        return rc;
    if (n % 2)
        return gpm_set_error("--elements: %lld is odd: pass an even count", n);
    o->hcl = kind == 0;
    o->n = (uint32_t)n;
    o->parts = (uint32_t)parts;
    if (!o->file)
        return gpm_set_error("--file: missing: pass --file NAME (see " PROG " --help)");
    for (const struct gpm_flag *f = flags + 3; f->name; f++) /* the last one given */
        if (f->seen && (!run_only || f->seen > run_only->seen))
            run_only = f;
    if (o->recover && run_only)
        return gpm_set_error("%s: not used by --recover, which reads everything from the "
                             "files: pass only --file (and --cpu)", run_only->name);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? 0 : gpm_args_fail(PROG);
    return o.recover ? recover(&o) : run(&o);
}
