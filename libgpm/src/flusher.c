/* A pool of CPU threads that make a range of a PM mapping durable: the CAP
 * baselines' persistence step, shared so that it is tuned once.
 *
 * The threads are created once; a persist wakes them, each flushes one
 * contiguous, cache-line-aligned slice, and the caller (which flushes slice
 * 0 itself, saving one hand-off) waits for all of them. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpmem.h>

#include "gpm/cap.h"

/* One range, or (EXT non-NULL) N_EXT extents whose lengths add up to LEN. */
struct flush_job {
    const gpm_region *r;
    uintptr_t addr;
    size_t len;
    const gpm_extent *ext;
    size_t n_ext;
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

/* Flushes one slice and waits for its write-backs: a store fence orders
 * only the flushes of the core that issues it, so each thread fences its
 * own before reporting done. An ordinary file needs msync instead. */
static int flush_slice(const gpm_region *r, uintptr_t start, size_t n)
{
    if (n == 0)
        return 0;
    if (r->backend == GPM_BACKEND_FILE)
        return gpm_region_persist(r, (const void *)start, n);
    pmem_flush((const void *)start, n);
    pmem_drain();
    return 0;
}

void gpm_flush_extents_slice(size_t total, int nslices, int idx, size_t *lo, size_t *hi)
{
    const size_t lines = (total + GPM_CACHE_LINE - 1) / GPM_CACHE_LINE;
    const size_t ns = nslices < 1 ? 1 : (size_t)nslices;
    size_t a, b;
    if (idx < 0 || (size_t)idx >= ns) {
        *lo = *hi = total;
        return;
    }
    a = (lines / ns) * (size_t)idx + (lines % ns) * (size_t)idx / ns;
    b = (lines / ns) * (size_t)(idx + 1) + (lines % ns) * (size_t)(idx + 1) / ns;
    a *= GPM_CACHE_LINE;
    b *= GPM_CACHE_LINE;
    *lo = a < total ? a : total;
    *hi = b < total ? b : total;
}

/* Flushes bytes [lo, hi) of the concatenation of the extents, then waits
 * for them once (msync per piece on an ordinary file). */
static int flush_extents_part(const gpm_region *r, const gpm_extent *ext, size_t n, size_t lo,
                              size_t hi)
{
    size_t pos = 0;
    for (size_t i = 0; i < n && pos < hi; pos += ext[i].len, i++) {
        const char *p = (const char *)ext[i].addr;
        size_t a, b;
        if (lo >= pos + ext[i].len)
            continue;
        a = lo > pos ? lo - pos : 0;
        b = hi - pos < ext[i].len ? hi - pos : ext[i].len;
        if (a >= b)
            continue;
        if (r->backend == GPM_BACKEND_FILE) {
            if (gpm_region_persist(r, p + a, b - a) != 0)
                return -1;
        } else {
            pmem_flush(p + a, b - a);
        }
    }
    if (r->backend != GPM_BACKEND_FILE)
        pmem_drain();
    return 0;
}

static void do_slice(gpm_flusher *f, const struct flush_job *job, int idx)
{
    int rc;
    if (idx >= job->nslices)
        return;
    if (job->ext) {
        size_t lo, hi;
        gpm_flush_extents_slice(job->len, job->nslices, idx, &lo, &hi);
        rc = lo < hi ? flush_extents_part(job->r, job->ext, job->n_ext, lo, hi) : 0;
    } else {
        uintptr_t start;
        size_t n;
        gpm_flush_slice(job->addr, job->len, job->nslices, idx, &start, &n);
        rc = flush_slice(job->r, start, n);
    }
    if (rc != 0) {
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

/* Hands JOB to the pool (the caller takes slice 0) and waits for it. */
static int run_job(gpm_flusher *f, const struct flush_job *job)
{
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
    if (f->failed)
        return gpm_set_error("%s", f->error);
    /* Every thread fenced its own flushes; this orders them with what the
     * caller does next. */
    pmem_drain();
    return 0;
}

int gpm_flusher_persist(gpm_flusher *f, const gpm_region *r, const void *addr, size_t len,
                        int fence_only)
{
    struct flush_job job;
    const uintptr_t a = (uintptr_t)addr, base = r ? (uintptr_t)r->host : 0;
    if (!f || !r || !r->host)
        return gpm_set_error("gpm_flusher_persist: needs a flusher and a mapped region");
    if (a < base || a - base > r->size || len > r->size - (a - base))
        return gpm_set_error("%s: persist of %zu bytes at offset %lld is outside the %zu-byte "
                             "mapping", r->path, len, (long long)(a - base), r->size);
    if (fence_only) {
        /* eADR: the caches are in the persistence domain, only order. */
        pmem_drain();
        return 0;
    }
    if (len == 0)
        return 0;

    memset(&job, 0, sizeof job);
    job.r = r;
    job.addr = a;
    job.len = len;
    job.nslices = gpm_flush_threads_for(len, f->nthreads);
    if (job.nslices == 1)
        return flush_slice(r, a, len);
    return run_job(f, &job);
}

int gpm_flusher_persist_extents(gpm_flusher *f, const gpm_region *r, const gpm_extent *ext,
                                size_t n)
{
    struct flush_job job;
    const uintptr_t base = r ? (uintptr_t)r->host : 0;
    size_t total = 0;
    if (!r || !r->host || (n && !ext))
        return gpm_set_error("gpm_flusher_persist_extents: needs a mapped region and extents");
    for (size_t i = 0; i < n; i++) {
        uintptr_t a = (uintptr_t)ext[i].addr;
        if (a < base || a - base > r->size || ext[i].len > r->size - (a - base))
            return gpm_set_error("%s: extent %zu (%zu bytes at offset %lld) is outside the "
                                 "%zu-byte mapping", r->path, i, ext[i].len,
                                 (long long)(a - base), r->size);
        total += ext[i].len;
    }
    if (total == 0)
        return 0;
    memset(&job, 0, sizeof job);
    job.r = r;
    job.len = total;
    job.ext = ext;
    job.n_ext = n;
    job.nslices = f ? gpm_flush_threads_for(total, f->nthreads) : 1;
    if (job.nslices == 1)
        return flush_extents_part(r, ext, n, 0, total);
    return run_job(f, &job);
}
