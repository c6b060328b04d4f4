/* The CAP flusher: exact slicing, the thread pool on emulated PM and on an
 * ordinary file (msync), the eADR fence-only path, and bad input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/cap.h"
#include "gpm/check.h"
#include "gpm/gpm.h"

/* Checks that the NS slices of [addr, addr+len) tile it: each starts where
 * the previous ended, inner boundaries are on cache lines, and none is more
 * than one line larger than a fair share. */
static int slices_tile(uintptr_t addr, size_t len, int ns, char *why, size_t why_len)
{
    uintptr_t at = addr;
    size_t lines = len ? (size_t)((addr + len + 63) / 64 - addr / 64) : 0;
    size_t fair = (lines + (size_t)ns - 1) / (size_t)ns;
    for (int i = 0; i < ns; i++) {
        uintptr_t s;
        size_t n;
        gpm_flush_slice(addr, len, ns, i, &s, &n);
        if (n > 0 && s != at) {
            snprintf(why, why_len, "slice %d of %d starts at +%lu, expected +%lu", i, ns,
                     (unsigned long)(s - addr), (unsigned long)(at - addr));
            return 0;
        }
        if (n > 0 && i > 0 && at != addr && s % 64 != 0) {
            snprintf(why, why_len, "slice %d of %d starts off a cache line", i, ns);
            return 0;
        }
        if (n > (fair + 1) * 64) {
            snprintf(why, why_len, "slice %d of %d has %zu bytes, fair share %zu lines", i, ns,
                     n, fair);
            return 0;
        }
        at += n;
    }
    if (at != addr + len) {
        snprintf(why, why_len, "slices of [+0,+%zu) in %d end at +%lu", len, ns,
                 (unsigned long)(at - addr));
        return 0;
    }
    return 1;
}

static void slicing_covers_every_byte_once(void)
{
    const uintptr_t addrs[] = {0x10000, 0x10001, 0x1003f, 0x10040, 0x7fff123};
    const size_t lens[] = {0, 1, 63, 64, 65, 127, 128, 1000, 4096, 4097, 65536 * 3 + 17,
                           ((size_t)1 << 30) + 5};
    char why[256];
    for (size_t a = 0; a < sizeof addrs / sizeof *addrs; a++)
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
            for (int ns = 1; ns <= GPM_FLUSHER_MAX_THREADS; ns++)
                CHECKF(slices_tile(addrs[a], lens[l], ns, why, sizeof why), "addr %#lx: %s",
                       (unsigned long)addrs[a], why);
}

/* The same, byte by byte: a count per byte must end at exactly one. */
static void slicing_counts_each_byte(void)
{
    enum { N = 5000 };
    static unsigned char seen[N + 128];
    for (int off = 0; off < 64; off += 7)
        for (int ns = 1; ns <= 64; ns += 3) {
            uintptr_t base = 4096 + (uintptr_t)off;
            memset(seen, 0, sizeof seen);
            for (int i = 0; i < ns; i++) {
                uintptr_t s;
                size_t n;
                gpm_flush_slice(base, N, ns, i, &s, &n);
                for (size_t k = 0; k < n; k++)
                    seen[s - base + k]++;
            }
            for (int k = 0; k < N; k++)
                CHECKF(seen[k] == 1, "off %d, %d slices: byte %d flushed %d times", off, ns, k,
                       seen[k]);
            CHECK(seen[N] == 0);
        }
}

static void no_cache_line_is_split_between_threads(void)
{
    for (int ns = 2; ns <= 64; ns++) {
        uintptr_t prev_end = 0;
        for (int i = 0; i < ns; i++) {
            uintptr_t s;
            size_t n;
            gpm_flush_slice(0x1000 + 9, 1 << 20, ns, i, &s, &n);
            if (n == 0)
                continue;
            if (prev_end)
                CHECKF(prev_end / 64 != (s + 0) / 64 || prev_end % 64 == 0,
                       "%d slices: line %#lx shared", ns, (unsigned long)(s / 64));
            prev_end = s + n;
        }
    }
}

static void tiny_ranges_use_one_thread(void)
{
    CHECK_EQ_INT(gpm_flush_threads_for(0, 32), 1);
    CHECK_EQ_INT(gpm_flush_threads_for(64, 32), 1);
    CHECK_EQ_INT(gpm_flush_threads_for(GPM_FLUSH_MIN_SLICE, 32), 1);
    CHECK_EQ_INT(gpm_flush_threads_for(GPM_FLUSH_MIN_SLICE + 1, 32), 2);
    CHECK_EQ_INT(gpm_flush_threads_for((size_t)1 << 30, 32), 32);
    CHECK_EQ_INT(gpm_flush_threads_for((size_t)1 << 30, 1), 1);
}

static void default_thread_count_fits_the_machine(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = gpm_flusher_default_threads();
    CHECK(n >= 1 && n <= 8);
    CHECK(n == 8 || n == cpus);
}

static void bad_thread_counts_are_refused(void)
{
    const int bad[] = {0, -1, GPM_FLUSHER_MAX_THREADS + 1, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gpm_set_error("%s", "");
        CHECK(gpm_flusher_create(bad[i]) == NULL);
        CHECK_MSG(gpm_last_error(), "1 to 64");
    }
    gpm_flusher *f = gpm_flusher_create(GPM_FLUSHER_MAX_THREADS);
    CHECKF(f != NULL, "%s", gpm_last_error());
    CHECK_EQ_INT(gpm_flusher_threads(f), 64);
    gpm_flusher_destroy(f);
}

/* Persists with several pool sizes, many times over (the pool is reused),
 * at odd offsets and lengths; the data must be left as written. */
static void persist_on(const char *path)
{
    const size_t size = 16 << 20;
    const int counts[] = {1, 2, 3, 8, 64};
    gpm_region r;
    CHECKF(gpm_map(&r, path, size, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        gpm_flusher *f = gpm_flusher_create(counts[c]);
        CHECKF(f != NULL, "%s", gpm_last_error());
        check_fill(r.host, size, (unsigned)c);
        CHECKF(gpm_flusher_persist(f, &r, r.host, size, 0) == 0, "%s", gpm_last_error());
        for (int k = 0; k < 200; k++) {
            size_t off = ((size_t)k * 7919 * 64 + (size_t)k) % (size / 2);
            size_t len = (size_t)k * 40961 + 1;
            CHECKF(gpm_flusher_persist(f, &r, (char *)r.host + off, len, 0) == 0, "%s",
                   gpm_last_error());
        }
        CHECK(check_same(r.host, size, (unsigned)c));
        gpm_flusher_destroy(f);
    }
    gpm_unmap(&r);
}

static void persist_on_emulated_pm(void)
{
    persist_on("flush-pm");
}

/* A file on an ordinary (non-tmpfs) file system takes the msync path. */
static void persist_on_ordinary_file(void)
{
    char path[4096];
    gpm_region r;
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/gpm-flush-file-%d", dir, (int)getpid());
    CHECKF(gpm_map(&r, path, 4 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    if (r.backend != GPM_BACKEND_FILE) {
        gpm_unmap(&r);
        unlink(path);
        SKIP("TMPDIR is not an ordinary file system");
    }
    gpm_flusher *f = gpm_flusher_create(4);
    CHECK(f != NULL);
    check_fill(r.host, r.size, 3);
    /* (Lists of ranges on such a file: test_flush_ranges.c.) */
    int rc = gpm_flusher_persist(f, &r, (char *)r.host + 100, r.size - 100, 0);
    gpm_flusher_destroy(f);
    gpm_unmap(&r);
    CHECKF(rc == 0, "%s", gpm_last_error());
    CHECK(gpm_map(&r, path, 4 << 20, GPM_HOST_ONLY) == 0);
    CHECK(check_same(r.host, r.size, 3));
    gpm_unmap(&r);
    unlink(path);
}

static void fence_only_needs_no_flushes(void)
{
    gpm_region r;
    gpm_flusher *f = gpm_flusher_create(4);
    CHECK(f != NULL);
    CHECKF(gpm_map(&r, "flush-eadr", 1 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    check_fill(r.host, r.size, 9);
    CHECK(gpm_flusher_persist(f, &r, r.host, r.size, 1) == 0);
    CHECK(gpm_flusher_persist(f, &r, r.host, 0, 1) == 0);
    CHECK(check_same(r.host, r.size, 9));
    gpm_unmap(&r);
    gpm_flusher_destroy(f);
}

static void range_outside_the_mapping_is_refused(void)
{
    gpm_region r;
    gpm_flusher *f = gpm_flusher_create(2);
    CHECK(f != NULL);
    CHECK(gpm_map(&r, "flush-range", 1 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0);
    CHECK(gpm_flusher_persist(f, &r, (char *)r.host + 4096, r.size, 0) == -1);
    CHECK_MSG(gpm_last_error(), "flush-range");
    CHECK_MSG(gpm_last_error(), "outside");
    CHECK(gpm_flusher_persist(f, &r, (char *)r.host - 64, 64, 1) == -1);
    CHECK(gpm_flusher_persist(f, &r, (char *)r.host + r.size, 0, 0) == 0);
    gpm_unmap(&r);
    gpm_flusher_destroy(f);
}

/* Scattered ranges (a log's used slots), with a pool of each size and
 * with none: every byte stays as written, and ranges outside the mapping
 * are refused before anything is flushed. */
static void ranges_persist_with_and_without_a_pool(void)
{
    enum { N = 300 };
    const int counts[] = {0, 1, 2, 5, 8};
    gpm_range ext[N];
    gpm_region r;
    CHECKF(gpm_map(&r, "flush-ext", 32 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    for (int i = 0; i < N; i++) {
        /* 128-byte aligned pieces of up to 256 KiB, with gaps between */
        ext[i].off = (size_t)i * (96 << 10) + 128 * (size_t)(i % 5);
        ext[i].len = (size_t)(i * 7919 % (64 << 10)) + (i % 3 ? 1 : 0);
        ext[i].src = NULL;
    }
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        gpm_flusher *f = counts[c] ? gpm_flusher_create(counts[c]) : NULL;
        CHECK(counts[c] == 0 || f != NULL);
        check_fill(r.host, r.size, (unsigned)c + 40);
        CHECKF(gpm_flusher_persist_ranges(f, &r, ext, N, 0) == 0, "%s", gpm_last_error());
        CHECK_EQ_INT(gpm_flusher_persist_ranges(f, &r, ext, 0, 0), 0);
        CHECK(check_same(r.host, r.size, (unsigned)c + 40));
        gpm_flusher_destroy(f);
    }
    {
        gpm_range out[2] = {{0, 64, NULL}, {r.size - 64, 128, NULL}};
        CHECK(gpm_flusher_persist_ranges(NULL, &r, out, 2, 0) == -1);
        CHECK_MSG(gpm_last_error(), "flush-ext");
        CHECK_MSG(gpm_last_error(), "range 1 of 2");
        CHECK_MSG(gpm_last_error(), "outside");
    }
    gpm_unmap(&r);
}

int main(void)
{
    RUN(slicing_covers_every_byte_once);
    RUN(slicing_counts_each_byte);
    RUN(no_cache_line_is_split_between_threads);
    RUN(tiny_ranges_use_one_thread);
    RUN(default_thread_count_fits_the_machine);
    RUN(bad_thread_counts_are_refused);
    RUN(persist_on_emulated_pm);
    RUN(persist_on_ordinary_file);
    RUN(fence_only_needs_no_flushes);
    RUN(range_outside_the_mapping_is_refused);
    RUN(ranges_persist_with_and_without_a_pool);
    CHECK_EXIT();
}
