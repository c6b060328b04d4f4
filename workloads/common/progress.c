/* The counters of timed work, and the kills that land on progress.
 *
 * The kernels' wl_store_* and wl_persist (and undo records) count bytes
 * and persists in device counters (wl.cuh), summed after each timed piece
 * beside what the host's helpers counted. Units of progress are counted
 * where they are made durable: on the host (wl_progress_add), and by the
 * kernels in a device counter (wl_progressed; a GPU's atomics on host
 * memory are not supported over PCIe), which tell the host through two
 * words of mapped host memory, each written by one thread: the first unit
 * came, and unit K of --kill progress:K came (that thread then waits to be
 * killed). The host kills right after its own K-th unit, and the watcher
 * thread, polling the words, for the kernels': a crash test lands after
 * exactly the unit it names, however fast the work runs. The watcher also
 * kills a moment after the first unit (--kill after-progress:S: campaigns
 * draw that moment from a measured run's first and last units, and pass
 * the last but one as the latest, so kills land inside the work) and notes
 * when the first and the last unit came (--progress-times). */
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
    unsigned long long *units_dev;    /* the kernels' units (device memory) */
    unsigned long long *signal;       /* [0] a kernel's first unit came, [1] its unit
                                         stall_at came (mapped host memory) */
    unsigned long long *signal_dev;
    unsigned long long host_units;    /* the host's units */
    unsigned long long stall_at;      /* the kernels' target: K less the host's units */
    int armed;                        /* this timed piece's kills apply */
    int timing;                       /* inside a timed piece (not prepare()) */
    double t0;                        /* its start */
    uint64_t first_ns, last_ns;       /* when the units first and last moved (0: not yet),
                                         in ns after T0: set by whoever sees it first */
    pthread_t watcher;
    int watching;
    volatile int stop;
};

int wl_live_open(struct wl_ctx *c)
{
    struct wl_live *l = calloc(1, sizeof *l);
    if (!l)
        return gpm_set_error("out of memory");
    c->h->live = l;
    if (!c->m->needs_gpu)
        return 0;
    if (cudaMalloc((void **)&l->acct_dev, (2 * WL_ACCT_SLOTS + 1) * sizeof *l->acct_dev) !=
            cudaSuccess ||
        cudaHostAlloc((void **)&l->signal, 2 * sizeof *l->signal, cudaHostAllocMapped) !=
            cudaSuccess ||
        cudaHostGetDevicePointer((void **)&l->signal_dev, l->signal, 0) != cudaSuccess) {
        cudaGetLastError();
        return gpm_set_error("cannot allocate the harness's counters on the GPU and in mapped "
                             "host memory");
    }
    l->units_dev = l->acct_dev + 2 * WL_ACCT_SLOTS;
    return 0;
}

void wl_live_close(struct wl_ctx *c)
{
    struct wl_live *l = c->h->live;
    if (!l)
        return;
    wl_dev_free(l->acct_dev);
    wl_pinned_free(l->signal);
    free(l);
    c->h->live = NULL;
}

wl_out wl_out_of(const struct wl_ctx *c)
{
    wl_out o = {0};
    o.fence = c->m->fences;
    o.sbrp = o.fence && c->h->opt.sbrp;
    if (c->h->live) {
        o.acct = c->h->live->acct_dev;
        o.progress = c->h->live->units_dev;
        o.signal = c->h->live->signal_dev;
        o.stall_at = c->h->live->stall_at;
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
    struct wl_live *l = c->h->live;
    unsigned long long k, at = (unsigned long long)c->h->opt.kill.unit;
    if (!l || !units)
        return;
    k = __atomic_add_fetch(&l->host_units, (unsigned long long)units, __ATOMIC_SEQ_CST);
    moved(l, wl_now() - l->t0);
    /* The kernels' target follows: the units they must add to reach K. */
    if (l->armed)
        __atomic_store_n(&l->stall_at, at > k ? at - k : 0, __ATOMIC_SEQ_CST);
    if (l->armed && at && k >= at && k - units < at)
        die(k);
}

static unsigned long long signal_word(const struct wl_live *l, int i)
{
    return l->signal ? __atomic_load_n(&l->signal[i], __ATOMIC_ACQUIRE) : 0;
}

/* The watcher's look: the kernels' first unit (the host's are timed where
 * they are counted), then the kills. */
static void observe(struct wl_ctx *c)
{
    struct wl_live *l = c->h->live;
    double t = wl_now() - l->t0, first;
    if (signal_word(l, 0) && !__atomic_load_n(&l->first_ns, __ATOMIC_SEQ_CST))
        moved(l, t);
    if (!l->armed)
        return;
    if (signal_word(l, 1))
        die((unsigned long long)c->h->opt.kill.unit);
    first = seconds(__atomic_load_n(&l->first_ns, __ATOMIC_SEQ_CST));
    if (c->h->opt.kill.kind == WL_KILL_AFTER_PROGRESS && first >= 0 &&
        t >= first + c->h->opt.kill.seconds)
        die(__atomic_load_n(&l->host_units, __ATOMIC_SEQ_CST));
}

static void *watch(void *arg)
{
    struct wl_ctx *c = arg;
    const struct timespec tick = {0, 20000};
    while (!c->h->live->stop) {
        observe(c);
        nanosleep(&tick, NULL);
    }
    return NULL;
}

int wl_live_start(struct wl_ctx *c, int arm)
{
    struct wl_live *l = c->h->live;
    int after = arm && c->h->opt.kill.kind == WL_KILL_AFTER_PROGRESS;
    unsigned long long unit = arm ? (unsigned long long)c->h->opt.kill.unit : 0;
    if (l->acct_dev && cudaMemset(l->acct_dev, 0, (2 * WL_ACCT_SLOTS + 1) * sizeof *l->acct_dev) !=
                           cudaSuccess)
        return gpm_set_error("cannot reset the harness's counters on the GPU");
    if (l->signal)
        memset(l->signal, 0, 2 * sizeof *l->signal);
    l->host_units = 0;
    l->stall_at = unit;
    l->armed = arm;
    l->timing = 1;
    l->first_ns = l->last_ns = 0;
    l->stop = 0;
    l->t0 = wl_now();
    if (after)
        fprintf(stderr, "crash: SIGKILL %.6f s after the first unit of progress\n",
                c->h->opt.kill.seconds);
    if (unit)
        fprintf(stderr, "crash: SIGKILL %safter unit %llu of progress\n",
                after ? "at the latest " : "", unit);
    if (!after && !unit && !c->h->opt.progress_times)
        return 0;
    if (pthread_create(&l->watcher, NULL, watch, c) != 0)
        return gpm_set_error("cannot start the progress watcher thread");
    l->watching = 1;
    return 0;
}

int wl_live_timing(const struct wl_ctx *c) { return c->h->live && c->h->live->timing; }

int wl_live_stop(struct wl_ctx *c)
{
    struct wl_live *l = c->h->live;
    unsigned long long a[2 * WL_ACCT_SLOTS + 1], bytes = 0, persists = 0, units = l->host_units;
    int rc = 0;
    if (l->watching) {
        l->stop = 1;
        pthread_join(l->watcher, NULL);
        l->watching = 0;
    }
    l->armed = l->timing = 0;
    l->stall_at = 0;
    if (l->acct_dev) {
        if (cudaMemcpy(a, l->acct_dev, sizeof a, cudaMemcpyDeviceToHost) != cudaSuccess) {
            memset(a, 0, sizeof a);
            rc = gpm_set_error("cannot read the harness's counters from the GPU");
        }
        for (int k = 0; k < WL_ACCT_SLOTS; k++)
            bytes += a[k], persists += a[WL_ACCT_SLOTS + k];
        c->bytes_persisted += (double)bytes;
        if (persists)
            wl_note(c, "persists=%llu", persists);
        /* The kernels' units: the last came by the time the work ended. */
        if (a[2 * WL_ACCT_SLOTS]) {
            units += a[2 * WL_ACCT_SLOTS];
            moved(l, wl_now() - l->t0);
        }
    }
    if (c->h->opt.progress_times)
        wl_note(c, "progress_units=%llu,progress_first_s=%.6f,progress_last_s=%.6f", units,
                seconds(l->first_ns), seconds(l->last_ns));
    return rc;
}
