/* Vectored flushes: the pure slicing of scattered ranges (every byte of
 * every range flushed exactly once, no cache line shared by two threads)
 * and the pool running it, watched through libpmem's flush and drain
 * (this program defines them, so libgpm's calls land here first). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/cap.h"
#include "gpm/check.h"
#include "gpm/gpm.h"

/* ---- what the pool flushed, and who drained ---- */

#define MAX_LOG 200000
#define MAX_THREADS 80

struct flushed {
    pthread_t t;
    uintptr_t start;
    size_t len;
    int drained_before; /* this thread's drains when it flushed */
};

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static struct flushed flog[MAX_LOG];
static int nflog, flog_overflow;
static pthread_t drain_t[MAX_THREADS];
static int drain_n[MAX_THREADS], ndrain_t;
static int watching;

static int drains_of(pthread_t t)
{
    for (int i = 0; i < ndrain_t; i++)
        if (pthread_equal(drain_t[i], t))
            return drain_n[i];
    return 0;
}

void pmem_flush(const void *addr, size_t len)
{
    static void (*real)(const void *, size_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pmem_flush");
    if (watching) {
        pthread_mutex_lock(&log_mu);
        if (nflog < MAX_LOG) {
            flog[nflog].t = pthread_self();
            flog[nflog].start = (uintptr_t)addr;
            flog[nflog].len = len;
            flog[nflog].drained_before = drains_of(pthread_self());
            nflog++;
        } else {
            flog_overflow = 1;
        }
        pthread_mutex_unlock(&log_mu);
    }
    real(addr, len);
}

void pmem_drain(void)
{
    static void (*real)(void);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pmem_drain");
    if (watching) {
        pthread_mutex_lock(&log_mu);
        int i = 0;
        while (i < ndrain_t && !pthread_equal(drain_t[i], pthread_self()))
            i++;
        if (i == ndrain_t && ndrain_t < MAX_THREADS)
            drain_t[ndrain_t++] = pthread_self();
        if (i < ndrain_t)
            drain_n[i]++;
        pthread_mutex_unlock(&log_mu);
    }
    real();
}

static void watch(void)
{
    nflog = 0;
    ndrain_t = 0;
    flog_overflow = 0;
    memset(drain_n, 0, sizeof drain_n);
    watching = 1;
}

/* ---- random range lists ---- */

/* N ranges inside [0, SPAN): overlapping, touching, sharing lines, empty,
 * unsorted, each at most MAXLEN bytes. */
static void random_ranges(gpm_range *v, int n, size_t span, size_t maxlen)
{
    for (int i = 0; i < n; i++) {
        size_t len = (size_t)(check_rand() % (maxlen + 1));
        if (check_rand() % 8 == 0)
            len = 0;
        if (check_rand() % 8 == 0)
            len = (size_t)(check_rand() % 3) + 1;
        if (len > span)
            len = span;
        v[i].off = (size_t)(check_rand() % (span - len + 1));
        v[i].len = len;
        v[i].src = NULL;
        /* Sometimes right after, or in the same line as, the previous. */
        if (i > 0 && check_rand() % 4 == 0 && v[i - 1].off + v[i - 1].len + len <= span)
            v[i].off = v[i - 1].off + v[i - 1].len + (size_t)(check_rand() % 3);
        if (v[i].off + v[i].len > span)
            v[i].off = span - v[i].len;
    }
}

/* ---- the pure slicing ---- */

struct pieces {
    uintptr_t base;
    unsigned char *count; /* per byte */
    int *owner;           /* per line: the slice that flushed it, -1 none */
    int slice;
    uintptr_t last_end;
    int bad;
    char why[256];
};

static int record(void *arg, uintptr_t start, size_t len)
{
    struct pieces *p = arg;
    if (len == 0 || start < p->last_end) {
        snprintf(p->why, sizeof p->why, "slice %d: piece at +%lu (%zu bytes) is empty or out "
                 "of order", p->slice, (unsigned long)(start - p->base), len);
        p->bad = 1;
        return 1;
    }
    p->last_end = start + len;
    for (size_t k = 0; k < len; k++)
        p->count[start - p->base + k]++;
    for (uintptr_t l = start / 64; l <= (start + len - 1) / 64; l++) {
        int *o = &p->owner[l - p->base / 64];
        if (*o != -1 && *o != p->slice) {
            snprintf(p->why, sizeof p->why, "line +%lu flushed by slices %d and %d",
                     (unsigned long)(l * 64 - p->base), *o, p->slice);
            p->bad = 1;
            return 1;
        }
        *o = p->slice;
    }
    return 0;
}

/* Slices the ranges NS ways and checks: every byte of every range counted
 * once; nothing counted outside the lines the ranges touch; no line in two
 * slices; every slice within one line of its fair share. */
static int slicing_is_exact(uintptr_t base, const gpm_range *v, int n, int ns, size_t span,
                            char *why, size_t why_len)
{
    static unsigned char count[1 << 17], in_range[1 << 17], line_touched[(1 << 17) / 64 + 2];
    static int owner[(1 << 17) / 64 + 2];
    static gpm_flush_run runs[512];
    struct pieces p;
    uint64_t lines = 0, sum = 0;
    int nruns = gpm_flush_runs(base, v, n, runs, &lines);

    memset(count, 0, span + 128);
    memset(in_range, 0, span + 128);
    memset(line_touched, 0, sizeof line_touched);
    for (size_t l = 0; l < sizeof owner / sizeof *owner; l++)
        owner[l] = -1;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < v[i].len; k++) {
            in_range[v[i].off + k] = 1;
            line_touched[(base + v[i].off + k) / 64 - base / 64] = 1;
        }
    for (int i = 0; i < nruns; i++) {
        if (runs[i].line0 != sum || (i > 0 && runs[i].lo / 64 <= (runs[i - 1].hi - 1) / 64)) {
            snprintf(why, why_len, "run %d: line0 %llu (expected %llu) or shares a line with "
                     "run %d", i, (unsigned long long)runs[i].line0, (unsigned long long)sum,
                     i - 1);
            return 0;
        }
        sum += (runs[i].hi - 1) / 64 - runs[i].lo / 64 + 1;
    }
    if (sum != lines) {
        snprintf(why, why_len, "runs span %llu lines, reported %llu", (unsigned long long)sum,
                 (unsigned long long)lines);
        return 0;
    }
    memset(&p, 0, sizeof p);
    p.base = base;
    p.count = count;
    p.owner = owner;
    for (int s = 0; s < ns; s++) {
        size_t before = 0, after = 0;
        for (size_t l = 0; l < sizeof owner / sizeof *owner; l++)
            before += owner[l] == s;
        p.slice = s;
        p.last_end = 0;
        if (gpm_flush_runs_slice(runs, nruns, lines, ns, s, record, &p) != 0 || p.bad) {
            snprintf(why, why_len, "%s", p.why);
            return 0;
        }
        for (size_t l = 0; l < sizeof owner / sizeof *owner; l++)
            after += owner[l] == s;
        if (after - before > lines / (uint64_t)ns + 1 || after - before + 1 < lines / (uint64_t)ns) {
            snprintf(why, why_len, "slice %d of %d has %zu of %llu lines", s, ns,
                     after - before, (unsigned long long)lines);
            return 0;
        }
    }
    for (size_t k = 0; k < span + 128; k++) {
        if (in_range[k] && count[k] != 1) {
            snprintf(why, why_len, "byte +%zu of a range flushed %d times", k, count[k]);
            return 0;
        }
        if (count[k] > 1 ||
            (count[k] && !line_touched[(base + k) / 64 - base / 64])) {
            snprintf(why, why_len, "byte +%zu outside the ranges' lines flushed", k);
            return 0;
        }
    }
    return 1;
}

static void random_range_lists_are_sliced_exactly(void)
{
    static gpm_range v[512];
    char why[256];
    const size_t span = 1 << 16;
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + (int)(check_rand() % (trial % 10 == 0 ? 512 : 24));
        int ns = 1 + (int)(check_rand() % GPM_FLUSHER_MAX_THREADS);
        size_t maxlen = trial % 3 == 0 ? 200 : trial % 3 == 1 ? 5000 : span;
        uintptr_t base = 0x100000 + (uintptr_t)(check_rand() % 64);
        random_ranges(v, n, span, maxlen);
        CHECKF(slicing_is_exact(base, v, n, ns, span, why, sizeof why),
               "trial %d (%d ranges, %d slices): %s", trial, n, ns, why);
    }
}

static void runs_merge_shared_lines_and_sort(void)
{
    /* Out of order; two share line 0; one overlaps another; one empty;
     * two touch at a line boundary (kept apart: they share no line). */
    const gpm_range v[] = {{300, 50, NULL}, {20, 10, NULL}, {0, 10, NULL}, {320, 100, NULL},
                           {1000, 0, NULL}, {128, 64, NULL}, {192, 64, NULL}};
    gpm_flush_run runs[7];
    uint64_t lines = 0;
    int n = gpm_flush_runs(0x1000, v, 7, runs, &lines);
    CHECK_EQ_INT(n, 4);
    CHECK(runs[0].lo == 0x1000 && runs[0].hi == 0x1000 + 30 && runs[0].line0 == 0);
    CHECK(runs[1].lo == 0x1000 + 128 && runs[1].hi == 0x1000 + 192 && runs[1].line0 == 1);
    CHECK(runs[2].lo == 0x1000 + 192 && runs[2].hi == 0x1000 + 256 && runs[2].line0 == 2);
    CHECK(runs[3].lo == 0x1000 + 300 && runs[3].hi == 0x1000 + 420 && runs[3].line0 == 3);
    CHECK_EQ_INT(lines, 3 + 3); /* 300..420 touches lines 4, 5 and 6 */
    CHECK_EQ_INT(gpm_flush_runs(0x1000, v, 0, runs, &lines), 0);
    CHECK_EQ_INT(lines, 0);
}

struct one_piece {
    uintptr_t start;
    size_t len;
    int n;
};

static int keep_piece(void *arg, uintptr_t start, size_t len)
{
    struct one_piece *p = arg;
    if (p->n++ == 0) {
        p->start = start;
        p->len = len;
    }
    return 0;
}

/* One range is sliced exactly as gpm_flush_slice slices it. */
static void one_range_slices_like_gpm_flush_slice(void)
{
    const size_t offs[] = {0, 1, 63, 64, 4097};
    const size_t lens[] = {1, 63, 64, 65, 1000, 65536 * 3 + 17};
    for (size_t a = 0; a < sizeof offs / sizeof *offs; a++)
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
            for (int ns = 1; ns <= GPM_FLUSHER_MAX_THREADS; ns++) {
                gpm_range v = {offs[a], lens[l], NULL};
                gpm_flush_run run;
                uint64_t lines;
                CHECK_EQ_INT(gpm_flush_runs(0x40000, &v, 1, &run, &lines), 1);
                for (int i = 0; i < ns; i++) {
                    struct one_piece p = {0, 0, 0};
                    uintptr_t s;
                    size_t n;
                    gpm_flush_slice(0x40000 + offs[a], lens[l], ns, i, &s, &n);
                    CHECK(gpm_flush_runs_slice(&run, 1, lines, ns, i, keep_piece, &p) == 0);
                    CHECK(p.n <= 1);
                    CHECKF((n == 0 && p.n == 0) || (p.n == 1 && p.start == s && p.len == n),
                           "off %zu len %zu, slice %d of %d", offs[a], lens[l], i, ns);
                }
            }
}

static int stop_at_second(void *arg, uintptr_t start, size_t len)
{
    (void)start, (void)len;
    return ++*(int *)arg == 2 ? 7 : 0;
}

static void a_failing_piece_stops_the_slice(void)
{
    const gpm_range v[] = {{0, 10, NULL}, {1000, 10, NULL}, {5000, 10, NULL}};
    gpm_flush_run runs[3];
    uint64_t lines;
    int calls = 0;
    int n = gpm_flush_runs(0, v, 3, runs, &lines);
    CHECK_EQ_INT(gpm_flush_runs_slice(runs, n, lines, 1, 0, stop_at_second, &calls), 7);
    CHECK_EQ_INT(calls, 2);
    CHECK_EQ_INT(gpm_flush_runs_slice(runs, n, lines, 2, 2, stop_at_second, &calls), 0);
    CHECK_EQ_INT(gpm_flush_runs_slice(runs, 0, 0, 2, 0, stop_at_second, &calls), 0);
    CHECK_EQ_INT(calls, 2);
}

/* ---- the pool ---- */

/* What the pool did for one persist of V: every byte of every range in a
 * flushed piece once, no line flushed by two threads, each thread that
 * flushed drained exactly once and after its last flush. */
static int pool_did_it_right(const gpm_region *r, const gpm_range *v, int n, char *why,
                             size_t why_len)
{
    const uintptr_t base = (uintptr_t)r->host;
    size_t lines = r->size / 64 + 1;
    unsigned char *count = calloc(r->size, 1);
    int *owner = malloc(lines * sizeof *owner);
    pthread_t threads[MAX_THREADS];
    int nthreads = 0, ok = 1;
    if (!count || !owner) {
        snprintf(why, why_len, "out of memory");
        ok = 0;
    }
    for (size_t l = 0; ok && l < lines; l++)
        owner[l] = -1;
    for (int i = 0; ok && i < nflog; i++) {
        int t = 0;
        while (t < nthreads && !pthread_equal(threads[t], flog[i].t))
            t++;
        if (t == nthreads)
            threads[nthreads++] = flog[i].t;
        if (flog[i].drained_before != 0) {
            snprintf(why, why_len, "a thread flushed after draining");
            ok = 0;
        }
        for (size_t k = 0; ok && k < flog[i].len; k++)
            count[flog[i].start + k - base]++;
        for (uintptr_t l = flog[i].start / 64; ok && l <= (flog[i].start + flog[i].len - 1) / 64;
             l++) {
            int *o = &owner[l - base / 64];
            if (*o != -1 && *o != t) {
                snprintf(why, why_len, "line +%lu flushed by two threads",
                         (unsigned long)(l * 64 - base));
                ok = 0;
            }
            *o = t;
        }
    }
    for (int i = 0; ok && i < n; i++)
        for (size_t k = 0; ok && k < v[i].len; k++)
            if (count[v[i].off + k] != 1) {
                snprintf(why, why_len, "byte %zu of range %d flushed %d times", k, i,
                         count[v[i].off + k]);
                ok = 0;
            }
    for (int t = 0; ok && t < nthreads; t++)
        if (drains_of(threads[t]) != 1) {
            snprintf(why, why_len, "a flushing thread drained %d times", drains_of(threads[t]));
            ok = 0;
        }
    if (ok && ndrain_t != nthreads) {
        snprintf(why, why_len, "%d threads drained, %d flushed", ndrain_t, nthreads);
        ok = 0;
    }
    free(count);
    free(owner);
    return ok;
}

static void pool_flushes_each_line_once_and_drains_once_per_thread(void)
{
    const size_t size = 24 << 20;
    const int counts[] = {1, 2, 3, 8, 16};
    static gpm_range v[300];
    gpm_region r;
    char why[256];
    CHECKF(gpm_map(&r, "franges-pool", size, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    if (r.backend == GPM_BACKEND_FILE) {
        gpm_unmap(&r);
        SKIP("the PM directory is an ordinary file system: msync, no flushes to watch");
    }
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        gpm_flusher *f = gpm_flusher_create(counts[c]);
        CHECKF(f != NULL, "%s", gpm_last_error());
        check_fill(r.host, size, (unsigned)c);
        for (int trial = 0; trial < 20; trial++) {
            /* Small lists stay on one thread; large ones use the pool. */
            int n = 1 + (int)(check_rand() % (trial % 2 ? 300 : 5));
            random_ranges(v, n, size, trial % 2 ? size / 40 : 4 << 20);
            watch();
            int rc = gpm_flusher_persist_ranges(f, &r, v, n, 0);
            watching = 0;
            CHECKF(rc == 0, "%s", gpm_last_error());
            CHECK(!flog_overflow);
            CHECKF(pool_did_it_right(&r, v, n, why, sizeof why), "%d threads, trial %d: %s",
                   counts[c], trial, why);
        }
        /* The one-range call is the same engine. */
        watch();
        CHECK(gpm_flusher_persist(f, &r, (char *)r.host + 5, size - 9, 0) == 0);
        watching = 0;
        gpm_range all = {5, size - 9, NULL};
        CHECKF(pool_did_it_right(&r, &all, 1, why, sizeof why), "%d threads: %s", counts[c],
               why);
        CHECK_EQ_INT(ndrain_t, counts[c]); /* 24 slices of work: every thread */
        CHECK(check_same(r.host, size, (unsigned)c));
        gpm_flusher_destroy(f);
    }
    gpm_unmap(&r);
}

static void ranges_on_an_ordinary_file_are_msynced(void)
{
    char path[4096];
    gpm_region r;
    gpm_range v[40];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/gpm-franges-file-%d", dir, (int)getpid());
    CHECKF(gpm_map(&r, path, 4 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    if (r.backend != GPM_BACKEND_FILE) {
        gpm_unmap(&r);
        unlink(path);
        SKIP("TMPDIR is not an ordinary file system");
    }
    gpm_flusher *f = gpm_flusher_create(4);
    CHECK(f != NULL);
    check_fill(r.host, r.size, 4);
    random_ranges(v, 40, r.size, r.size / 8);
    int rc = gpm_flusher_persist_ranges(f, &r, v, 40, 0);
    gpm_flusher_destroy(f);
    gpm_unmap(&r);
    CHECKF(rc == 0, "%s", gpm_last_error());
    CHECK(gpm_map(&r, path, 4 << 20, GPM_HOST_ONLY) == 0);
    CHECK(check_same(r.host, r.size, 4));
    gpm_unmap(&r);
    unlink(path);
}

static void fence_only_and_empty_lists_flush_nothing(void)
{
    gpm_region r;
    gpm_range v[3] = {{0, 4096, NULL}, {100000, 5, NULL}, {7, 0, NULL}};
    gpm_flusher *f = gpm_flusher_create(4);
    CHECK(f != NULL);
    CHECK(gpm_map(&r, "franges-eadr", 1 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0);
    watch();
    CHECK(gpm_flusher_persist_ranges(f, &r, v, 3, 1) == 0);
    CHECK_EQ_INT(nflog, 0);
    CHECK(r.backend == GPM_BACKEND_FILE || ndrain_t == 1); /* the one fence */
    watch();
    CHECK(gpm_flusher_persist_ranges(f, &r, NULL, 0, 0) == 0);
    CHECK(gpm_flusher_persist_ranges(f, &r, v, 0, 1) == 0);
    CHECK(gpm_flusher_persist_ranges(f, &r, &v[2], 1, 0) == 0);
    watching = 0;
    CHECK_EQ_INT(nflog, 0);
    CHECK_EQ_INT(ndrain_t, 0);
    gpm_unmap(&r);
    gpm_flusher_destroy(f);
}

static void a_range_past_the_mapping_is_refused_and_nothing_flushed(void)
{
    gpm_region r;
    gpm_flusher *f = gpm_flusher_create(2);
    CHECK(f != NULL);
    CHECK(gpm_map(&r, "franges-range", 1 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0);
    gpm_range v[3] = {{0, 4096, NULL}, {(1 << 20) - 10, 11, NULL}, {8192, 64, NULL}};
    watch();
    CHECK(gpm_flusher_persist_ranges(f, &r, v, 3, 0) == -1);
    watching = 0;
    CHECK_EQ_INT(nflog, 0);
    CHECK_MSG(gpm_last_error(), "franges-range");
    CHECK_MSG(gpm_last_error(), "range 1 of 3");
    CHECK_MSG(gpm_last_error(), "outside");
    CHECK(strchr(gpm_last_error(), '\n') == NULL);
    v[1].off = (size_t)-1;
    v[1].len = 2; /* off + len wraps */
    CHECK(gpm_flusher_persist_ranges(f, &r, v, 3, 1) == -1);
    v[1].off = 1 << 20;
    v[1].len = 0; /* the end itself, empty: fine */
    CHECK(gpm_flusher_persist_ranges(f, &r, v, 3, 0) == 0);
    CHECK(gpm_flusher_persist_ranges(f, &r, v, -1, 0) == -1);
    CHECK(gpm_flusher_persist_ranges(f, &r, NULL, 2, 0) == -1);
    CHECK(gpm_flusher_persist_ranges(NULL, &r, v, 1, 0) == 0); /* no pool: this thread */
    CHECK(gpm_flusher_persist_ranges(f, NULL, v, 1, 0) == -1);
    gpm_unmap(&r);
    gpm_flusher_destroy(f);
}

int main(void)
{
    RUN(random_range_lists_are_sliced_exactly);
    RUN(runs_merge_shared_lines_and_sort);
    RUN(one_range_slices_like_gpm_flush_slice);
    RUN(a_failing_piece_stops_the_slice);
    RUN(pool_flushes_each_line_once_and_drains_once_per_thread);
    RUN(ranges_on_an_ordinary_file_are_msynced);
    RUN(fence_only_and_empty_lists_flush_nothing);
    RUN(a_range_past_the_mapping_is_refused_and_nothing_flushed);
    CHECK_EXIT();
}
