/* A pool of CPU threads that make ranges of a PM mapping durable: the CAP
 * baselines' persistence step, shared so that it is tuned once.
 *
 * The threads are created once; a persist wakes them, each flushes its
 * share of the ranges' cache lines (gpm_flush_runs_slice) and drains once,
 * and the caller (which flushes slice 0 itself, saving one hand-off) waits
 * for all of them. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpmem.h>

#include "gpm/cap.h"

struct flush_job {
    const gpm_region *r;
    const char *site;     /* the caller's persist point (gpm/trace.h) */
    const gpm_flush_run *runs;
    int nruns;
    uint64_t lines;
    int nslices;
};

struct gpm_flusher {
    int nthreads;                 /* including the caller */
    pthread_t *workers;           /* nthreads - 1 of them */
    int started;                  /* workers actually running */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;            /* bumped once per job */
    int remaining;                /* workers yet to finish the current job */
    int stop;
    struct flush_job job;
    int failed;
    char error[1024];             /* the first worker error (errors are per thread) */
};

int gpm_flusher_default_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        return 1;
    return cpus < 8 ? (int)cpus : 8;
}

int gpm_flush_threads_for(size_t len, int nthreads)
{
    size_t want = (len + GPM_FLUSH_MIN_SLICE - 1) / GPM_FLUSH_MIN_SLICE;
    if (nthreads < 1)
        return 1;
    if (want < 1)
        return 1;
    return want < (size_t)nthreads ? (int)want : nthreads;
}

void gpm_flush_slice(uintptr_t addr, size_t len, int nslices, int idx, uintptr_t *start,
                     size_t *n)
{
    const uintptr_t end = addr + len;
    const uintptr_t first = addr / GPM_CACHE_LINE;
    const uintptr_t lines = (end + GPM_CACHE_LINE - 1) / GPM_CACHE_LINE - first;
    const uintptr_t ns = (uintptr_t)nslices;
    /* Boundary k is line first + floor(lines * k / ns), computed without
     * overflowing lines * k; the outer boundaries clamp to the range itself. */
    uintptr_t lo = first + (lines / ns) * (uintptr_t)idx + (lines % ns) * (uintptr_t)idx / ns;
    uintptr_t hi = first + (lines / ns) * (uintptr_t)(idx + 1) +
                   (lines % ns) * (uintptr_t)(idx + 1) / ns;
    uintptr_t b0 = lo * GPM_CACHE_LINE, b1 = hi * GPM_CACHE_LINE;
    if (len == 0 || nslices < 1 || idx < 0 || idx >= nslices) {
        *start = addr;
        *n = 0;
        return;
    }
    if (b0 < addr)
        b0 = addr;
    if (b1 > end)
        b1 = end;
    if (b1 < b0)
        b1 = b0;
    *start = b0;
    *n = (size_t)(b1 - b0);
}

/* One piece of a slice: written back now, waited for at the slice's end.
 * An ordinary file needs msync instead, which waits by itself. */
static int flush_piece(void *arg, uintptr_t start, size_t n)
{
    const struct flush_job *job = arg;
    if (job->r->backend == GPM_BACKEND_FILE)
        return gpm_region_persist_at(job->r, (const void *)start, n, job->site);
    gpm_flush_at((const void *)start, n, job->site);
    return 0;
}

/* Flushes slice IDX of the job and waits for its write-backs: a store
 * fence orders only the flushes of the core that issues it, so each thread
 * fences its own, once, before reporting done. */
static int flush_slice(const struct flush_job *job, int idx)
{
    int rc = gpm_flush_runs_slice(job->runs, job->nruns, job->lines, job->nslices, idx,
                                  flush_piece, (void *)job);
    if (job->r->backend != GPM_BACKEND_FILE)
        gpm_drain_at(job->site);
    return rc;
}

static void do_slice(gpm_flusher *f, const struct flush_job *job, int idx)
{
    if (idx >= job->nslices)
        return;
    if (flush_slice(job, idx) != 0) {
        pthread_mutex_lock(&f->mu);
        if (!f->failed) {
            f->failed = 1;
            snprintf(f->error, sizeof f->error, "%s", gpm_last_error());
        }
        pthread_mutex_unlock(&f->mu);
    }
}

struct worker_arg {
    gpm_flusher *f;
    int idx;
};

static void *worker_loop(void *p)
{
    struct worker_arg *wa = p;
    gpm_flusher *f = wa->f;
    int idx = wa->idx;
    unsigned long seen = 0;
    free(wa);
    for (;;) {
        struct flush_job job;
        pthread_mutex_lock(&f->mu);
        while (f->gen == seen && !f->stop)
            pthread_cond_wait(&f->go, &f->mu);
        if (f->stop) {
            pthread_mutex_unlock(&f->mu);
            return NULL;
        }
        seen = f->gen;
        job = f->job;
        pthread_mutex_unlock(&f->mu);

        do_slice(f, &job, idx);

        pthread_mutex_lock(&f->mu);
        if (--f->remaining == 0)
            pthread_cond_signal(&f->done);
        pthread_mutex_unlock(&f->mu);
    }
}

static void stop_workers(gpm_flusher *f)
{
    pthread_mutex_lock(&f->mu);
    f->stop = 1;
    pthread_cond_broadcast(&f->go);
    pthread_mutex_unlock(&f->mu);
    for (int i = 0; i < f->started; i++)
        pthread_join(f->workers[i], NULL);
    f->started = 0;
}

gpm_flusher *gpm_flusher_create(int nthreads)
{
    gpm_flusher *f;
    if (nthreads < 1 || nthreads > GPM_FLUSHER_MAX_THREADS) {
        gpm_set_error("flusher thread count %d is out of range: use 1 to %d CPU threads",
                      nthreads, GPM_FLUSHER_MAX_THREADS);
        return NULL;
    }
    f = calloc(1, sizeof *f);
    if (!f || !(f->workers = calloc((size_t)nthreads, sizeof *f->workers))) {
        free(f);
        gpm_set_error("out of memory creating a pool of %d flush threads", nthreads);
        return NULL;
    }
    f->nthreads = nthreads;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->go, NULL);
    pthread_cond_init(&f->done, NULL);
    for (int i = 1; i < nthreads; i++) {
        struct worker_arg *wa = malloc(sizeof *wa);
        int e = wa ? 0 : ENOMEM;
        if (wa) {
            wa->f = f;
            wa->idx = i;
            e = pthread_create(&f->workers[f->started], NULL, worker_loop, wa);
            if (e != 0)
                free(wa);
        }
        if (e != 0) {
            gpm_set_error("cannot start flush thread %d of %d (%s): use fewer threads", i + 1,
                          nthreads, strerror(e));
            gpm_flusher_destroy(f);
            return NULL;
        }
        f->started++;
    }
    return f;
}

void gpm_flusher_destroy(gpm_flusher *f)
{
    if (!f)
        return;
    stop_workers(f);
    pthread_cond_destroy(&f->done);
    pthread_cond_destroy(&f->go);
    pthread_mutex_destroy(&f->mu);
    free(f->workers);
    free(f);
}

int gpm_flusher_threads(const gpm_flusher *f)
{
    return f ? f->nthreads : 0;
}

int gpm_flusher_persist_at(gpm_flusher *f, const gpm_region *r, const void *addr, size_t len,
                           int fence_only, const char *site)
{
    const uintptr_t a = (uintptr_t)addr, base = r ? (uintptr_t)r->host : 0;
    gpm_range one;
    if (!f || !r || !r->host)
        return gpm_set_error("gpm_flusher_persist: needs a flusher and a mapped region");
    if (a < base || a - base > r->size || len > r->size - (a - base))
        return gpm_set_error("%s: persist of %zu bytes at offset %lld is outside the %zu-byte "
                             "mapping: persist only bytes of the mapping", r->path, len,
                             (long long)(a - base), r->size);
    one.off = (size_t)(a - base);
    one.len = len;
    one.src = NULL;
    return gpm_flusher_persist_ranges_at(f, r, &one, 1, fence_only, site);
}

/* Hands the job to the workers, flushes slice 0 here, waits for them. */
static int run_job(gpm_flusher *f, const struct flush_job *job)
{
    if (job->nslices == 1)
        return flush_slice(job, 0);

    pthread_mutex_lock(&f->mu);
    f->job = *job;
    f->failed = 0;
    f->remaining = f->started;
    f->gen++;
    pthread_cond_broadcast(&f->go);
    pthread_mutex_unlock(&f->mu);

    do_slice(f, job, 0);

    pthread_mutex_lock(&f->mu);
    while (f->remaining > 0)
        pthread_cond_wait(&f->done, &f->mu);
    pthread_mutex_unlock(&f->mu);
    /* Every thread fenced its own flushes before reporting done, and the
     * caller its slice's: the mutex hand-off orders those fences before
     * whatever the caller does next, so no further drain is needed. */
    if (f->failed)
        return gpm_set_error("%s", f->error);
    return 0;
}

/* Runs of up to this many ranges are built on the stack. */
#define RUNS_ON_STACK 16

int gpm_flusher_persist_ranges_at(gpm_flusher *f, const gpm_region *r, const gpm_range *v,
                                  int n, int fence_only, const char *site)
{
    gpm_flush_run stack_runs[RUNS_ON_STACK], *runs = stack_runs;
    struct flush_job job;
    size_t bytes = 0;
    int rc;
    if (!r || !r->host)
        return gpm_set_error("gpm_flusher_persist_ranges: needs a mapped region");
    if (n < 0 || (n > 0 && !v))
        return gpm_set_error("%s: persist of %d ranges at %p: pass a list of N >= 0 ranges",
                             r->path, n, (const void *)v);
    for (int i = 0; i < n; i++)
        if (v[i].off > r->size || v[i].len > r->size - v[i].off)
            return gpm_set_error("%s: persist range %d of %d (%zu bytes at offset %zu) is "
                                 "outside the %zu-byte mapping: persist only bytes of the "
                                 "mapping", r->path, i, n, v[i].len, v[i].off, r->size);
    if (n == 0)
        return 0;
    if (gpm_mutated(site)) {
        /* Each range as one persist: what the threads' flushes and drains
         * would have made durable. */
        for (int i = 0; i < n; i++)
            gpm_trace_removed(fence_only ? GPM_TR_DRAIN : GPM_TR_PERSIST,
                              fence_only ? NULL : (const char *)r->host + v[i].off,
                              fence_only ? 0 : v[i].len, site);
        return 0;
    }
    if (fence_only) {
        /* eADR: the caches are in the persistence domain, only order. */
        gpm_drain_at(site);
        return 0;
    }
    if (n > RUNS_ON_STACK && !(runs = malloc((size_t)n * sizeof *runs)))
        return gpm_set_error("%s: out of memory for a persist of %d ranges", r->path, n);
    job.r = r;
    job.site = site;
    job.runs = runs;
    job.nruns = gpm_flush_runs((uintptr_t)r->host, v, n, runs, &job.lines);
    for (int i = 0; i < job.nruns; i++)
        bytes += (size_t)(runs[i].hi - runs[i].lo);
    job.nslices = f ? gpm_flush_threads_for(bytes, f->nthreads) : 1;
    rc = job.nruns == 0 ? 0 : run_job(f, &job);
    if (runs != stack_runs)
        free(runs);
    return rc;
}
