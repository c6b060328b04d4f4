/* gpm-crash-log: crash trials for undo logging.
 *
 * Run mode: a loop of transactions over a PM-resident array. Transaction t
 * logs the old value of each element it will change (HCL or conventional
 * log), updates the element in place and persists it; the host then commits
 * (committed = t+1, persisted) and empties the log. A watchdog thread sends
 * SIGKILL to the process at a random moment.
 *
 * --recover: reopens the array and the log, undoes every logged entry of
 * the interrupted transaction (entries are tagged with their transaction,
 * so those of a committed one whose log was not yet emptied are ignored),
 * and checks that the array equals exactly the state after `committed`
 * transactions, which is a pure function of the element and the count.
 *
 *   gpm-crash-log --log hcl|conv --file NAME [--elements N] [--partitions P]
 *                 [--kill-after-us MIN:MAX] [--seed S] [--max-tx T]
 *   gpm-crash-log --recover --file NAME
 * Files: NAME.data and NAME.log under GPM_PM_DIR. Exit: 0 ok, 1 failure or
 * verification mismatch, 2 usage. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/crash.h"
#include "gpm/gpm.cuh"
#include "gpm/log.cuh"
#include "gpm/log.h"

#define DATA_MAGIC 0x415441444b435247ULL /* "GRCKDATA" */
#define THREADS 256

typedef struct data_hdr {
    uint64_t magic;
    uint64_t committed;   /* transactions committed; the commit point */
    uint32_t n;           /* elements */
    uint32_t kind;        /* GPMLOG_HCL | GPMLOG_CONV */
    uint32_t partitions;  /* conventional log partitions */
    uint32_t pad[25];     /* to 128 bytes: the array starts on a line */
} data_hdr;

typedef struct undo_entry {
    uint32_t idx;
    uint32_t tx;
    uint32_t old;
} undo_entry;

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

/* Thread g changes elements g and g + n/2: two entries per thread, undone
 * newest first. */
static __global__ void transaction(gpmlog_dev log, uint32_t *data, uint32_t n, uint64_t tx,
                                   uint32_t parts, int *bad)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, half = n / 2;
    int slot = log.g.kind == GPMLOG_HCL ? -1 : (int)(g % parts);
    if (g >= half)
        return;
    for (uint32_t j = 0; j < 2; j++) {
        uint32_t i = g + j * half;
        undo_entry e = {i, (uint32_t)tx, data[i]};
        if (gpmlog_insert(log, &e, sizeof e, slot) != 0) {
            atomicAdd(bad, 1);
            return; /* never update what was not logged */
        }
        gpm_store_u32(data + i, value_at(i, tx + 1));
        gpm_persist();
    }
}

/* One thread per slot (HCL: the log's own grid; conventional: one per
 * partition). */
static __global__ void undo(gpmlog_dev log, uint32_t *data, uint32_t n, uint64_t committed,
                            int *undone, int *bad)
{
    int slot = -1;
    undo_entry e;
    if (log.g.kind == GPMLOG_CONV) {
        uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
        if (g >= log.g.n_slots)
            return;
        slot = (int)g;
    }
    while (gpmlog_read(log, &e, sizeof e, slot) == 0) {
        if (e.tx == (uint32_t)committed) {
            if (e.idx >= n) {
                atomicAdd(bad, 1);
                return;
            }
            gpm_store_u32(data + e.idx, e.old);
            gpm_persist();
            atomicAdd(undone, 1);
        }
        /* Removed only after the undo is durable: a crash here re-runs it. */
        gpmlog_remove(log, sizeof e, slot);
    }
}

static void die(const char *what)
{
    fprintf(stderr, "gpm-crash-log: %s\n", what);
    exit(1);
}

static void cuda_check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "gpm-crash-log: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static long kill_min = 1000, kill_max = 200000;
static uint64_t seed = 1;

static void names(const char *file, char *data, char *logf, size_t len)
{
    snprintf(data, len, "%s.data", file);
    snprintf(logf, len, "%s.log", file);
}

static int run(const char *file, int hcl, uint32_t n, uint32_t parts, long max_tx)
{
    char dname[4096], lname[4096];
    gpm_region r;
    gpmlog log;
    data_hdr *h;
    uint32_t *data, *data_dev;
    uint32_t blocks = (n / 2 + THREADS - 1) / THREADS;
    int *bad;
    int rc;

    names(file, dname, lname, sizeof dname);
    if (gpm_map(&r, dname, sizeof(data_hdr) + (size_t)n * 4, GPM_CREATE) != 0)
        die(gpm_last_error());
    if (!r.created)
        die("data file exists: remove NAME.data and NAME.log for a new trial, or --recover");
    if (hcl)
        rc = gpmlog_create_hcl(&log, lname, (size_t)blocks * 256 * 2 * sizeof(undo_entry) + 4096,
                               (int)blocks, THREADS, 0);
    else
        rc = gpmlog_create_conv(&log, lname,
                                (size_t)parts * ((size_t)(n / parts + 1) * 16 + 128), (int)parts,
                                0);
    if (rc != 0)
        die(gpm_last_error());
    h = (data_hdr *)r.host;
    data = (uint32_t *)(h + 1);
    data_dev = (uint32_t *)((data_hdr *)r.dev + 1);
    for (uint32_t i = 0; i < n; i++)
        data[i] = value_at(i, 0);
    h->committed = 0;
    h->n = n;
    h->kind = hcl ? GPMLOG_HCL : GPMLOG_CONV;
    h->partitions = parts;
    if (gpm_region_persist(&r, r.host, r.size) != 0)
        die(gpm_last_error());
    h->magic = DATA_MAGIC; /* last: a half-made file is never recovered */
    if (gpm_region_persist(&r, h, sizeof *h) != 0)
        die(gpm_last_error());
    cuda_check(cudaMalloc((void **)&bad, sizeof *bad), "cudaMalloc");
    cuda_check(cudaMemset(bad, 0, sizeof *bad), "cudaMemset");

    if (max_tx < 0 &&
        gpm_crash_arm_us(gpm_crash_pick_us(seed, (uint64_t)kill_min, (uint64_t)kill_max)) != 0)
        die(gpm_last_error());
    for (uint64_t t = 0; max_tx < 0 || t < (uint64_t)max_tx; t++) {
        int b = 0;
        if (gpm_persist_begin() != 0)
            die(gpm_last_error());
        transaction<<<blocks, THREADS>>>(gpmlog_device(&log), data_dev, n, t, parts, bad);
        cuda_check(cudaDeviceSynchronize(), "transaction kernel");
        if (gpm_persist_end() != 0)
            die(gpm_last_error());
        cuda_check(cudaMemcpy(&b, bad, sizeof b, cudaMemcpyDeviceToHost), "cudaMemcpy");
        if (b)
            die("log full in a transaction: the log was sized too small");
        h->committed = t + 1; /* the commit point */
        if (gpm_region_persist(&r, &h->committed, sizeof h->committed) != 0)
            die(gpm_last_error());
        if (gpmlog_reset(&log) != 0)
            die(gpm_last_error());
    }
    printf("completed %ld transactions without a kill\n", max_tx);
    gpmlog_close(&log);
    gpm_unmap(&r);
    return 0;
}

static int recover(const char *file)
{
    char dname[4096], lname[4096];
    gpm_region r;
    gpmlog log;
    data_hdr *h;
    uint32_t *data, n, wrong = 0, first = 0;
    int *dev, counts[2] = {0, 0};
    uint32_t grid, block;

    names(file, dname, lname, sizeof dname);
    if (gpm_map(&r, dname, 0, 0) != 0)
        die(gpm_last_error());
    h = (data_hdr *)r.host;
    if (r.size < sizeof *h || h->magic != DATA_MAGIC ||
        r.size != sizeof *h + (size_t)h->n * 4)
        die("data file is not a complete crash-trial array (killed during setup?)");
    if (gpmlog_open(&log, lname, 0) != 0)
        die(gpm_last_error());
    if (log.g.kind != h->kind)
        die("the log's kind differs from the one the data file records: NAME.log belongs to "
            "another trial");
    n = h->n;
    data = (uint32_t *)(h + 1);
    cuda_check(cudaMalloc((void **)&dev, sizeof counts), "cudaMalloc");
    cuda_check(cudaMemset(dev, 0, sizeof counts), "cudaMemset");
    if (log.g.kind == GPMLOG_HCL) {
        grid = log.g.blocks;
        block = log.g.threads;
    } else {
        block = 128;
        grid = (log.g.n_slots + block - 1) / block;
    }
    if (gpm_persist_begin() != 0)
        die(gpm_last_error());
    undo<<<grid, block>>>(gpmlog_device(&log), (uint32_t *)((data_hdr *)r.dev + 1), n,
                          h->committed, dev, dev + 1);
    cuda_check(cudaDeviceSynchronize(), "undo kernel");
    if (gpm_persist_end() != 0)
        die(gpm_last_error());
    cuda_check(cudaMemcpy(counts, dev, sizeof counts, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (uint32_t s = 0; s < log.g.n_slots; s++)
        if (gpmlog_tail(&log, s) != 0)
            die("log not empty after undo");
    for (uint32_t i = 0; i < n; i++)
        if (data[i] != value_at(i, h->committed)) {
            if (!wrong)
                first = i;
            wrong++;
        }
    printf("kind %s committed %llu undone %d elements %u wrong %u bad_entries %d\n",
           log.g.kind == GPMLOG_HCL ? "hcl" : "conv", (unsigned long long)h->committed,
           counts[0], n, wrong, counts[1]);
    if (wrong || counts[1]) {
        fprintf(stderr, "gpm-crash-log: NOT recovered: %u elements differ from the state after "
                        "%llu transactions (first: element %u)\n", wrong,
                (unsigned long long)h->committed, first);
        return 1;
    }
    printf("recovered\n");
    gpmlog_close(&log);
    gpm_unmap(&r);
    return 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: gpm-crash-log --log hcl|conv --file NAME [--elements N] [--partitions P]\n"
            "                     [--kill-after-us MIN:MAX] [--seed S] [--max-tx T]\n"
            "       gpm-crash-log --recover --file NAME\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *file = NULL, *kind = "hcl";
    uint32_t n = 65536, parts = 64;
    long max_tx = -1;
    int do_recover = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--recover")) {
            do_recover = 1;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--log"))
            kind = v;
        else if (!strcmp(a, "--file"))
            file = v;
        else if (!strcmp(a, "--elements"))
            n = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--partitions"))
            parts = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--max-tx"))
            max_tx = strtol(v, NULL, 10);
        else if (!strcmp(a, "--kill-after-us")) {
            if (sscanf(v, "%ld:%ld", &kill_min, &kill_max) != 2 || kill_min < 0 ||
                kill_max < kill_min)
                usage();
        } else
            usage();
    }
    if (!file || (strcmp(kind, "hcl") && strcmp(kind, "conv")) || n < 2 || n % 2 || parts == 0)
        usage();
    if (do_recover)
        return recover(file);
    return run(file, !strcmp(kind, "hcl"), n, parts, max_tx);
}
