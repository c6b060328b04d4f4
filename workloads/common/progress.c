/* The counters of timed work, and the kills that land on progress.
 *
 * Bytes and persists: the kernels' wl_store_* and wl_persist (and undo
 * records) count into device counters (wl.cuh); the harness sums them
 * after each timed piece, beside what its host helpers counted.
 *
 * Progress: one counter of units made durable, in host memory that the
 * kernels can add to (pinned and mapped). A unit counted on the host with
 * --crash-at-progress K kills right there, after the K-th; a kernel's unit
 * holds its thread until the watcher, which polls the counter, has killed
 * the process. So a crash test lands after exactly the unit it names,
 * however fast the work runs. The watcher also kills a moment after the
 * first unit (--crash-after-progress: campaigns draw that moment from a
 * measured run's first and last units, and pass the last but one as the
 * latest, so kills land inside the work) and notes when the first and the
 * last unit came (--progress-times). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "harness.h"

struct wl_live {
    unsigned long long *acct_dev;     /* bytes, then persists (WL_ACCT_SLOTS each) */
    unsigned long long *progress;     /* the host's view of the units */
    unsigned long long *progress_dev; /* the kernels' view (NULL where none run) */
    int armed;                        /* this timed piece's kills apply */
    double t0;                        /* its start */
    uint64_t first_ns, last_ns;       /* when the units first and last moved (0: not yet),
                                         in ns after T0: set by whoever sees it first */
    unsigned long long seen;
    pthread_t watcher;
    int watching;
    volatile int stop;
};

int wl_live_open(struct wl_ctx *c)
{
    struct wl_live *l = calloc(1, sizeof *l);
    if (!l)
        return gpm_set_error("out of memory");
    c->live = l;
    if (!c->m->needs_gpu) {
        if (!(l->progress = calloc(1, sizeof *l->progress)))
            return gpm_set_error("out of memory");
        return 0;
    }
    if (cudaMalloc((void **)&l->acct_dev, 2 * WL_ACCT_SLOTS * sizeof *l->acct_dev) !=
            cudaSuccess ||
        cudaHostAlloc((void **)&l->progress, sizeof *l->progress, cudaHostAllocMapped) !=
            cudaSuccess ||
        cudaHostGetDevicePointer((void **)&l->progress_dev, l->progress, 0) != cudaSuccess) {
        cudaGetLastError();
        return gpm_set_error("cannot allocate the harness's counters on the GPU and in mapped "
                             "host memory");
    }
    *l->progress = 0;
    return 0;
}

void wl_live_close(struct wl_ctx *c)
{
    struct wl_live *l = c->live;
    if (!l)
        return;
    if (l->acct_dev)
        cudaFree(l->acct_dev);
    if (l->progress_dev)
        cudaFreeHost(l->progress);
    else
        free(l->progress);
    free(l);
    c->live = NULL;
}

wl_out wl_out_of(const struct wl_ctx *c)
{
    wl_out o;
    memset(&o, 0, sizeof o);
    o.fence = c->m->fences;
    if (c->live) {
        o.acct = c->live->acct_dev;
        o.progress = c->live->progress_dev;
        if (c->live->armed && c->opt.crash_at_progress > 0)
            o.stall_at = (unsigned long long)c->opt.crash_at_progress;
    }
    return o;
}

static void die(unsigned long long units)
{
    fprintf(stderr, "crash: SIGKILL after %llu units of progress\n", units);
    fflush(NULL);
    kill(getpid(), SIGKILL);
}

/* Units moved at T seconds into the work: the first time is kept, the
 * last one raised (by the host's threads and the watcher at once). */
static void moved(struct wl_live *l, double t)
{
    uint64_t ns = (uint64_t)(t * 1e9) + 1, zero = 0, last;
    __atomic_compare_exchange_n(&l->first_ns, &zero, ns, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    last = __atomic_load_n(&l->last_ns, __ATOMIC_SEQ_CST);
    while (ns > last && !__atomic_compare_exchange_n(&l->last_ns, &last, ns, 0, __ATOMIC_SEQ_CST,
                                                     __ATOMIC_SEQ_CST))
        ;
}

static double seconds(uint64_t ns) { return ns ? (double)(ns - 1) / 1e9 : -1; }

void wl_progress_add(struct wl_ctx *c, uint64_t units)
{
    struct wl_live *l = c->live;
    unsigned long long k, at = (unsigned long long)c->opt.crash_at_progress;
    if (!l || !units)
        return;
    k = __atomic_add_fetch(l->progress, (unsigned long long)units, __ATOMIC_SEQ_CST);
    moved(l, wl_now() - l->t0);
    if (l->armed && at && k >= at && k - units < at)
        die(k);
}

/* The watcher's look at the counter: the timeline (of the kernels' units),
 * then the kills. */
static void observe(struct wl_ctx *c)
{
    struct wl_live *l = c->live;
    unsigned long long k = __atomic_load_n(l->progress, __ATOMIC_ACQUIRE);
    double t = wl_now() - l->t0, first;
    if (k != l->seen) {
        moved(l, t);
        l->seen = k;
    }
    if (!l->armed)
        return;
    first = seconds(__atomic_load_n(&l->first_ns, __ATOMIC_SEQ_CST));
    if (c->opt.crash_at_progress > 0 && k >= (unsigned long long)c->opt.crash_at_progress)
        die(k);
    if (c->opt.crash_after_progress >= 0 && first >= 0 &&
        t >= first + c->opt.crash_after_progress)
        die(k);
}

static void *watch(void *arg)
{
    struct wl_ctx *c = arg;
    const struct timespec tick = {0, 20000};
    while (!c->live->stop) {
        observe(c);
        nanosleep(&tick, NULL);
    }
    return NULL;
}

int wl_live_start(struct wl_ctx *c, int arm)
{
    struct wl_live *l = c->live;
    int kills = arm && (c->opt.crash_at_progress > 0 || c->opt.crash_after_progress >= 0);
    if (l->acct_dev &&
        cudaMemset(l->acct_dev, 0, 2 * WL_ACCT_SLOTS * sizeof *l->acct_dev) != cudaSuccess)
        return gpm_set_error("cannot reset the harness's counters on the GPU");
    __atomic_store_n(l->progress, 0ull, __ATOMIC_SEQ_CST);
    l->armed = arm;
    l->seen = 0;
    l->first_ns = l->last_ns = 0;
    l->stop = 0;
    l->t0 = wl_now();
    if (kills && c->opt.crash_after_progress >= 0)
        fprintf(stderr, "crash: SIGKILL %.6f s after the first unit of progress\n",
                c->opt.crash_after_progress);
    if (kills && c->opt.crash_at_progress > 0)
        fprintf(stderr, "crash: SIGKILL %safter unit %lld of progress\n",
                c->opt.crash_after_progress >= 0 ? "at the latest " : "",
                c->opt.crash_at_progress);
    if (!kills && !c->opt.progress_times)
        return 0;
    if (pthread_create(&l->watcher, NULL, watch, c) != 0)
        return gpm_set_error("cannot start the progress watcher thread");
    l->watching = 1;
    return 0;
}

int wl_live_stop(struct wl_ctx *c)
{
    struct wl_live *l = c->live;
    unsigned long long a[2 * WL_ACCT_SLOTS], bytes = 0, persists = 0;
    int rc = 0;
    if (l->watching) {
        l->stop = 1;
        pthread_join(l->watcher, NULL);
        l->watching = 0;
        l->armed = 0; /* the work is over: the last look kills nothing */
        observe(c);
    }
    l->armed = 0;
    if (c->opt.progress_times)
        wl_note(c, "progress_units=%llu,progress_first_s=%.6f,progress_last_s=%.6f",
                __atomic_load_n(l->progress, __ATOMIC_SEQ_CST), seconds(l->first_ns),
                seconds(l->last_ns));
    if (!l->acct_dev)
        return 0;
    if (cudaMemcpy(a, l->acct_dev, sizeof a, cudaMemcpyDeviceToHost) != cudaSuccess)
        rc = gpm_set_error("cannot read the harness's counters from the GPU");
    for (int k = 0; rc == 0 && k < WL_ACCT_SLOTS; k++)
        bytes += a[k], persists += a[WL_ACCT_SLOTS + k];
    c->bytes_persisted += (double)bytes;
    if (persists)
        wl_note(c, "persists=%llu", persists);
    return rc;
}
