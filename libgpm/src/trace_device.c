/* The device half of the trace (gpm/trace.h): the ring that kernels write
 * their stores and fences into, the host thread that moves its records
 * into the trace, the names of the kernels' sites, and the mutants of
 * kernels' persists. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpm/gpm.h"
#include "gpm/trace.h"
#include "trace_internal.h"

#define MAX_SETTERS 256
#define MAX_DSITES 4096
#define RING_DEFAULT (1ull << 20) /* records of 64 bytes: 64 MiB of pinned memory */

static struct {
    gpm_dtrace_setter set[MAX_SETTERS];
    int nset;
    gpm_dtrace_ctl ctl;                 /* what the kernels read */
    gpm_drec *ring;                     /* the ring, as the host sees it */
    volatile unsigned long long *taken; /* the host's position, as the kernels see it */
    unsigned long long pos;
    pthread_t taker;
    volatile int run;
    int started;
    struct { unsigned long long file; unsigned line; uint32_t id; } site[MAX_DSITES];
    int nsites;
} D;

void gpm_dtrace_register(gpm_dtrace_setter set)
{
    if (D.nset < MAX_SETTERS)
        D.set[D.nset++] = set;
}

/* Every compiled file's copy of the control block; its ON flag is what
 * the kernels test first: a ring or a mutant. */
static int apply(void)
{
    D.ctl.on = D.ctl.ring != NULL || D.ctl.mutate_line != 0;
    for (int i = 0; i < D.nset; i++)
        if (D.set[i](&D.ctl) != 0)
            return gpm_set_error("cannot set the kernels' trace control block (%s)",
                                 cudaGetErrorString(cudaGetLastError()));
    return 0;
}

int gpm_trace_device_mutant(void)
{
    const char *m = getenv("GPM_MUTATE"), *colon;
    char *end;
    unsigned long line;
    if (!m || !*m) {
        if (!D.ctl.mutate_line)
            return 0;
        D.ctl.mutate_line = 0; /* unset since: none */
        return apply();
    }
    colon = strrchr(m, ':');
    if (!colon || colon == m || (line = strtoul(colon + 1, &end, 10)) == 0 || *end ||
        line > UINT_MAX)
        return gpm_set_error("GPM_MUTATE=%s: not a site: give FILE:LINE, as gpm-check "
                             "names them", m);
    if ((size_t)(colon - m) >= sizeof D.ctl.mutate_file)
        return gpm_set_error("GPM_MUTATE=%s: the file's name is too long: give only its "
                             "last components", m);
    memcpy(D.ctl.mutate_file, m, (size_t)(colon - m));
    D.ctl.mutate_file[colon - m] = '\0';
    D.ctl.mutate_line = (unsigned)line;
    return apply();
}

/* ---- taking the records ---- */

static uint32_t site_of(unsigned long long file, unsigned line)
{
    char name[64];
    int k;
    for (k = 0; k < D.nsites; k++)
        if (D.site[k].file == file && D.site[k].line == line)
            return D.site[k].id;
    if (k == MAX_DSITES)
        return D.site[k - 1].id;
    /* Named for now by its address: the file's name is read from the GPU
     * at the end, when no kernel is running (gpm_trace_device_stop). */
    snprintf(name, sizeof name, "device:%#llx:%u", file, line);
    D.site[k].file = file;
    D.site[k].line = line;
    D.site[k].id = gpm_trace_new_site(name);
    D.nsites++;
    return D.site[k].id;
}

void gpm_trace_device_drain(void)
{
    unsigned long long start = D.pos;
    if (!D.ring)
        return;
    for (;;) {
        const gpm_drec *r = &D.ring[D.pos & D.ctl.mask];
        if (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) != D.pos + 1)
            break;
        if (r->kind == GPM_DREC_STORE) {
            gpm_trace_gpu_store(r->addr, r->val, r->len, r->thread, site_of(r->file, r->line));
        } else if (r->kind >= GPM_DREC_OFENCE || (r->kind == GPM_DREC_REMOVED && r->len)) {
            /* The flag's value, the scope; a removed oFence or dFence: its
             * kind, 0. */
            uint32_t what[2] = {0, 0};
            int removed = r->kind == GPM_DREC_REMOVED;
            memcpy(what, r->val, r->len < sizeof what ? r->len : sizeof what);
            gpm_trace_gpu_sbrp(removed ? what[0] : r->kind, r->addr, removed ? 0 : what[1],
                               r->thread, site_of(r->file, r->line), removed);
        } else {
            gpm_trace_gpu_fence(r->thread, site_of(r->file, r->line),
                                r->kind == GPM_DREC_REMOVED);
        }
        D.pos++;
    }
    if (D.pos != start)
        *D.taken = D.pos;
}

/* Takes records as the kernels write them, so that the ring never holds
 * more than the kernels write meanwhile. */
static void *take_records(void *arg)
{
    (void)arg;
    while (D.run) {
        unsigned long long before;
        pthread_mutex_lock(&gpm_trace_mu);
        before = D.pos;
        gpm_trace_device_drain();
        pthread_mutex_unlock(&gpm_trace_mu);
        if (D.pos == before)
            usleep(100);
    }
    return NULL;
}

/* ---- the ring ---- */

static void free_ring(void)
{
    if (D.ring)
        cudaFreeHost(D.ring);
    if (D.taken)
        cudaFreeHost((void *)D.taken);
    if (D.ctl.next)
        cudaFree(D.ctl.next);
    D.ring = NULL;
    D.taken = NULL;
    D.ctl.ring = NULL;
    D.ctl.next = D.ctl.lost = NULL;
    D.ctl.taken = NULL;
}

static unsigned long long ring_records(void)
{
    const char *e = getenv("GPM_TRACE_RING");
    char *end;
    unsigned long long n;
    if (!e || !*e)
        return RING_DEFAULT;
    n = strtoull(e, &end, 10);
    return *end || n < 2 || (n & (n - 1)) ? 0 : n;
}

int gpm_trace_device_start(void)
{
    unsigned long long n = ring_records(), *counters = NULL;
    void *ring = NULL, *taken = NULL, *dring = NULL, *dtaken = NULL;
    if (D.started)
        return 0;
    if (n == 0)
        return gpm_set_error("GPM_TRACE_RING=%s: not a power of two of at least 2 records",
                             getenv("GPM_TRACE_RING"));
    if (cudaHostAlloc(&ring, n * sizeof(gpm_drec), cudaHostAllocMapped) != cudaSuccess ||
        cudaHostAlloc(&taken, 64, cudaHostAllocMapped) != cudaSuccess ||
        cudaMalloc((void **)&counters, 2 * sizeof *counters) != cudaSuccess ||
        cudaMemset(counters, 0, 2 * sizeof *counters) != cudaSuccess ||
        cudaHostGetDevicePointer(&dring, ring, 0) != cudaSuccess ||
        cudaHostGetDevicePointer(&dtaken, taken, 0) != cudaSuccess) {
        const char *why = cudaGetErrorString(cudaGetLastError());
        D.ring = ring;
        D.taken = taken;
        D.ctl.next = counters;
        free_ring();
        return gpm_set_error("cannot make the trace's ring of %llu kernel records (%s): set "
                             "GPM_TRACE_RING to fewer", n, why);
    }
    memset(ring, 0, n * sizeof(gpm_drec));
    memset(taken, 0, 64);
    D.ring = ring;
    D.taken = taken;
    D.pos = 0;
    D.nsites = 0;
    D.ctl.ring = dring;
    D.ctl.taken = dtaken;
    D.ctl.next = counters;
    D.ctl.lost = counters + 1;
    D.ctl.mask = n - 1;
    D.run = 1;
    if (apply() != 0 || pthread_create(&D.taker, NULL, take_records, NULL) != 0) {
        D.run = 0;
        free_ring();
        apply();
        return gpm_set_error("cannot start taking the kernels' trace records");
    }
    D.started = 1;
    return 0;
}

/* The name of the string at device address FILE, read in pieces (none
 * past its end, where the pieces can fail); 0, or -1 where it cannot be. */
static int read_name(unsigned long long file, char *name, size_t size)
{
    size_t n = 0;
    while (n + 1 < size) {
        if (cudaMemcpy(name + n, (const void *)(uintptr_t)(file + n), 1,
                       cudaMemcpyDeviceToHost) != cudaSuccess) {
            cudaGetLastError();
            return -1;
        }
        if (name[n] == '\0')
            return 0;
        n++;
    }
    return -1;
}

int gpm_trace_device_stop(void)
{
    unsigned long long lost = 0;
    char file[512], name[600];
    if (!D.started)
        return 0;
    /* Every kernel's records are in the ring once the device is idle. */
    cudaDeviceSynchronize();
    D.run = 0;
    pthread_join(D.taker, NULL);
    pthread_mutex_lock(&gpm_trace_mu);
    gpm_trace_device_drain();
    for (int k = 0; k < D.nsites; k++)
        if (read_name(D.site[k].file, file, sizeof file) == 0) {
            snprintf(name, sizeof name, "%s:%u", file, D.site[k].line);
            gpm_trace_name_site(D.site[k].id, name);
        }
    pthread_mutex_unlock(&gpm_trace_mu);
    if (cudaMemcpy(&lost, D.ctl.lost, sizeof lost, cudaMemcpyDeviceToHost) != cudaSuccess)
        lost = ~0ull;
    free_ring();
    apply();
    D.started = 0;
    if (lost == ~0ull)
        return gpm_set_error("cannot read how many kernel records the trace lost");
    if (lost)
        return gpm_set_error("the trace lost %llu records of kernels' stores and fences (no "
                             "host thread took them for a minute): trace again", lost);
    return 0;
}
