/* The persistency trace's recorder on real mappings (host-only, no GPU):
 * the CPU's stores found through write-protected pages, a persist with its
 * site, write() and fsync, read back with gpm_ptrace_load and judged by the
 * strict model; the completeness replay catching a write that bypassed the
 * mapping; two threads storing to one page; and a GPM_MUTATE mutant, in a
 * process of its own since the variable is read once per process. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/gpm.h"
#include "gpm/persistency.h"
#include "gpm/trace.h"
#include "../../src/trace_internal.h"

static size_t page; /* the system's: the recorder works in pages */

/* A fresh folder for a trace and the absolute path of a fresh PM file in
 * the test's PM directory (files of an earlier run are removed). */
static int fresh(const char *name, char *dir, size_t dlen, char *file, size_t flen)
{
    char sub[4200];
    int n = snprintf(dir, dlen, "%s/%s.trace", gpm_pm_dir(), name);
    if (n < 0 || (size_t)n >= dlen)
        return -1;
    for (int k = 0; k < 64; k++) {
        snprintf(sub, sizeof sub, k ? "%s/start-%d" : "%s/trace.bin", dir, k - 1);
        unlink(sub);
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    n = snprintf(file, flen, "%s/%s.pm", gpm_pm_dir(), name);
    if (n < 0 || (size_t)n >= flen)
        return -1;
    unlink(file);
    return 0;
}

/* The object of T mapped from PATH (objects of earlier traces in this
 * process keep their numbers), or -1. */
static int obj_of(const gpm_ptrace *t, const char *path)
{
    for (uint32_t o = 0; o < t->nobj; o++)
        if (strcmp(t->obj[o].path, path) == 0)
            return (int)o;
    return -1;
}

/* The K-th event of KIND in T from event FROM on, or GPM_NEVER. */
static uint64_t find(const gpm_ptrace *t, uint32_t kind, uint64_t from, int k)
{
    for (uint64_t e = from; e < t->nev; e++)
        if (t->ev[e].kind == kind && k-- == 0)
            return e;
    return GPM_NEVER;
}

static const uint8_t *bytes_of(const gpm_ptrace *t, uint64_t e) { return t->bytes + t->data[e]; }

static void stores_persist_and_replay(void)
{
    char dir[4200], path[4200], report[8192];
    gpm_region r;
    gpm_ptrace t;
    uint64_t *d = NULL, s0, s1, s2, p, end, v = 0x1122334455667788ull;
    uint8_t *h;
    int o, fd;
    CHECK(fresh("trace-basic", dir, sizeof dir, path, sizeof path) == 0);
    CHECKF(gpm_trace_open(dir) == 0, "%s", gpm_last_error());
    CHECKF(gpm_map(&r, path, 3 * page, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    h = r.host;
    memset(h + page, 0x5a, 64); /* before the trace: the start image */
    CHECKF(gpm_trace_begin() == 0, "%s", gpm_last_error());
    CHECK(gpm_trace_active());

    memcpy(h, &v, 8);                 /* word 0 */
    memset(h + page + 100, 0xc3, 20); /* bytes 100..119 of page 1: words 96..119 */
    h[2 * page + 7] = 0;              /* the value it had: no store */
    CHECK(gpm_region_persist(&r, h, 8) == 0);
    memset(h + 2 * page + 8, 0x77, 8); /* after the persist, never persisted */
    CHECKF(gpm_trace_end() == 0, "%s", gpm_last_error());
    CHECK(!gpm_trace_active());

    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    CHECK((o = obj_of(&t, r.path)) >= 0);
    CHECK_EQ_INT(t.obj[o].size, 3 * page);
    CHECK(t.ended);
    /* The start image (DIR/start-O) is the file as the trace began. */
    CHECK(t.obj[o].start[page] == 0x5a && t.obj[o].start[page + 63] == 0x5a);
    CHECK(t.obj[o].start[0] == 0 && t.obj[o].start[page + 100] == 0);

    /* The events, in order: the two stores before the persist, the
     * persist, the later store, the end. */
    s0 = find(&t, GPM_TR_STORE, 0, 0);
    s1 = find(&t, GPM_TR_STORE, 0, 1);
    p = find(&t, GPM_TR_PERSIST, 0, 0);
    s2 = find(&t, GPM_TR_STORE, 0, 2);
    end = find(&t, GPM_TR_END, 0, 0);
    CHECK(s0 != GPM_NEVER && s1 != GPM_NEVER && p != GPM_NEVER && s2 != GPM_NEVER &&
          end != GPM_NEVER);
    CHECK(s0 < s1 && s1 < p && p < s2 && s2 < end);
    CHECK(find(&t, GPM_TR_STORE, 0, 3) == GPM_NEVER); /* the unchanged byte made none */
    CHECK_EQ_INT(t.nev, 5);

    CHECK(t.ev[s0].obj == (uint32_t)o && t.ev[s0].off == 0 && t.ev[s0].len == 8);
    CHECK(memcmp(bytes_of(&t, s0), &v, 8) == 0);
    CHECK_EQ_INT(t.ev[s0].aux, GPM_TR_CPU);
    /* Whole 8-byte words: bytes 100..119 are the words at 96, 104, 112. */
    CHECK_EQ_INT(t.ev[s1].off, page + 96);
    CHECK_EQ_INT(t.ev[s1].len, 24);
    CHECK(memcmp(bytes_of(&t, s1), h + page + 96, 24) == 0);
    CHECK(bytes_of(&t, s1)[3] == 0 && bytes_of(&t, s1)[4] == 0xc3 && bytes_of(&t, s1)[23] == 0xc3);
    CHECK_EQ_INT(t.ev[s2].off, 2 * page + 8);
    CHECK_EQ_INT(t.ev[s2].len, 8);

    CHECK(t.ev[p].obj == (uint32_t)o && t.ev[p].off == 0 && t.ev[p].len == 8);
    CHECKF(strstr(gpm_ptrace_site(&t, p), "test_trace.c:") != NULL, "site %s",
           gpm_ptrace_site(&t, p));
    CHECK(gpm_ptrace_is_persist(&t, p));

    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[s0], p);
    CHECK(d[s1] == GPM_NEVER); /* never persisted */
    CHECK(d[s2] == GPM_NEVER);
    free(d);

    CHECKF(gpm_replay_check(&t, report, sizeof report) == 0, "%s", report);

    /* A write the mapping did not make: the replay names the file and
     * where. */
    CHECK((fd = open(r.path, O_WRONLY)) >= 0);
    CHECK(pwrite(fd, "\x99", 1, 5000) == 1);
    close(fd);
    CHECK_EQ_INT(gpm_replay_check(&t, report, sizeof report), 1);
    CHECK_MSG(report, r.path);
    CHECK_MSG(report, "from offset 5000 to 5000");
    gpm_ptrace_free(&t);
    gpm_unmap(&r);
}

/* write() to a traced file and its fsync, as libgpm's file paths record
 * them: the store is the write's, durable at the fsync. */
static void write_and_fsync(void)
{
    char dir[4200], path[4200], report[8192];
    gpm_region r;
    gpm_ptrace t;
    uint64_t *d = NULL, s, f, late;
    uint8_t buf[16];
    int o, fd;
    CHECK(fresh("trace-write", dir, sizeof dir, path, sizeof path) == 0);
    CHECKF(gpm_trace_open(dir) == 0, "%s", gpm_last_error());
    CHECKF(gpm_map(&r, path, page, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    CHECK((fd = open(r.path, O_RDWR)) >= 0);
    gpm_trace_fd(fd, r.path);
    CHECK(gpm_trace_begin() == 0);
    memset(buf, 0xe1, sizeof buf);
    CHECK(pwrite(fd, buf, sizeof buf, 300) == (ssize_t)sizeof buf);
    gpm_trace_write(fd, 300, buf, sizeof buf, GPM_SITE);
    CHECK(gpm_fsync_at(fd, GPM_SITE) == 0);
    ((uint8_t *)r.host)[600] = 1; /* a CPU store after the fsync */
    CHECK(gpm_trace_end() == 0);
    close(fd);

    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    CHECK((o = obj_of(&t, r.path)) >= 0);
    s = find(&t, GPM_TR_STORE, 0, 0);
    f = find(&t, GPM_TR_FSYNC, 0, 0);
    late = find(&t, GPM_TR_STORE, 0, 1);
    CHECK(s != GPM_NEVER && f != GPM_NEVER && late != GPM_NEVER && s < f && f < late);
    CHECK(t.ev[s].obj == (uint32_t)o && t.ev[s].off == 300 && t.ev[s].len == 16);
    CHECK_EQ_INT(t.ev[s].aux, GPM_TR_WRITE);
    CHECK(memcmp(bytes_of(&t, s), buf, 16) == 0);
    CHECK_MSG(gpm_ptrace_site(&t, s), "test_trace.c:");
    CHECK(t.ev[f].obj == (uint32_t)o);
    CHECK_MSG(gpm_ptrace_site(&t, f), "test_trace.c:");
    CHECK(t.ev[late].off == 600 && t.ev[late].len == 8);
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[s], f);
    CHECK(d[late] == GPM_NEVER);
    free(d);
    CHECKF(gpm_replay_check(&t, report, sizeof report) == 0, "%s", report);
    gpm_ptrace_free(&t);
    gpm_unmap(&r);
}

/* A file whose size is no multiple of 8: a store to its last bytes is a
 * store of those bytes, not lost past the end. */
static void object_of_odd_size(void)
{
    char dir[4200], path[4200], report[8192];
    gpm_region r;
    gpm_ptrace t;
    uint64_t s0, s1;
    CHECK(fresh("trace-odd", dir, sizeof dir, path, sizeof path) == 0);
    CHECKF(gpm_trace_open(dir) == 0, "%s", gpm_last_error());
    CHECKF(gpm_map(&r, path, 100, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    CHECK(gpm_trace_begin() == 0);
    ((uint8_t *)r.host)[3] = 1;
    ((uint8_t *)r.host)[98] = 2;
    CHECK(gpm_region_persist(&r, r.host, 100) == 0);
    CHECK(gpm_trace_end() == 0);
    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    s0 = find(&t, GPM_TR_STORE, 0, 0);
    s1 = find(&t, GPM_TR_STORE, 0, 1);
    CHECK(s0 != GPM_NEVER && t.ev[s0].off == 0 && t.ev[s0].len == 8);
    CHECKF(s1 != GPM_NEVER, "the store to byte 98 is missing (%llu events)",
           (unsigned long long)t.nev);
    CHECK(t.ev[s1].off == 96 && t.ev[s1].len == 4 && bytes_of(&t, s1)[2] == 2);
    CHECKF(gpm_replay_check(&t, report, sizeof report) == 0, "%s", report);
    gpm_ptrace_free(&t);
    gpm_unmap(&r);
}

/* Two threads store to one page, each to its own half of shared 8-byte
 * words, flushing and draining its half after each store: each store must
 * be in the trace before its thread's flush, however the threads' page
 * faults and events interleave (a store recorded after its flush would be
 * counted never persisted). */
#define RACE_ROUNDS 20000
struct racer {
    uint32_t *slot; /* this thread's half of the word */
};

static void *race(void *arg)
{
    struct racer *x = arg;
    for (uint32_t i = 1; i <= RACE_ROUNDS; i++) {
        __atomic_store_n(x->slot, i, __ATOMIC_RELAXED);
        gpm_flush_at(x->slot, 4, GPM_SITE);
        gpm_drain_at(GPM_SITE);
    }
    return NULL;
}

static void two_threads_one_page(void)
{
    char dir[4200], path[4200], report[8192];
    gpm_region r;
    gpm_ptrace t;
    pthread_t th[2];
    struct racer x[2];
    uint64_t *d = NULL, last[2] = {GPM_NEVER, GPM_NEVER};
    uint64_t bad = GPM_NEVER;
    uint32_t flushes[2] = {0, 0}, *img, found = 0;
    int o, bad_k = 0;
    CHECK(fresh("trace-race", dir, sizeof dir, path, sizeof path) == 0);
    CHECKF(gpm_trace_open(dir) == 0, "%s", gpm_last_error());
    CHECKF(gpm_map(&r, path, page, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    CHECK(gpm_trace_begin() == 0);
    for (int k = 0; k < 2; k++) {
        x[k].slot = (uint32_t *)r.host + 8 + k; /* bytes 32..35 and 36..39 */
        CHECK(pthread_create(&th[k], NULL, race, &x[k]) == 0);
    }
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    CHECK(gpm_trace_end() == 0);

    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    CHECK((o = obj_of(&t, r.path)) >= 0);
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    img = calloc(page / 4, sizeof *img);
    CHECK(img);
    /* Replayed to each flush, the flushing thread's half holds the value
     * it stored just before: its flushes count its stores. */
    for (uint64_t e = 0; e < t.nev && bad == GPM_NEVER; e++) {
        const gpm_trace_rec *ev = &t.ev[e];
        if (ev->kind == GPM_TR_STORE && ev->obj == (uint32_t)o) {
            memcpy((uint8_t *)img + ev->off, bytes_of(&t, e), ev->len);
            for (int k = 0; k < 2; k++)
                if (ev->off <= 32u + 4u * k && 32u + 4u * k < ev->off + ev->len)
                    last[k] = e;
        }
        if (ev->kind == GPM_TR_FLUSH && ev->obj == (uint32_t)o) {
            int k = ev->off == 36;
            flushes[k]++;
            if (img[8 + k] != flushes[k])
                bad = e, bad_k = k, found = img[8 + k];
        }
    }
    free(img);
    CHECKF(bad == GPM_NEVER, "thread %d's flush %u (event %llu) found %u: its store is not in "
           "the trace before it", bad_k, flushes[bad_k], (unsigned long long)bad, found);
    CHECK_EQ_INT(flushes[0], RACE_ROUNDS);
    CHECK_EQ_INT(flushes[1], RACE_ROUNDS);
    /* Each thread's last store is durable (at its last drain). */
    CHECK(last[0] != GPM_NEVER && d[last[0]] != GPM_NEVER);
    CHECK(last[1] != GPM_NEVER && d[last[1]] != GPM_NEVER);
    free(d);
    CHECKF(gpm_replay_check(&t, report, sizeof report) == 0, "%s", report);
    gpm_ptrace_free(&t);
    gpm_unmap(&r);
}

/* ---- a mutant, in a process of its own ---- */

/* The persist point the mutant removes: its site is this file at the line
 * of the call below. */
static const int mutant_line = __LINE__ + 3;
static int mutant_persist(const gpm_region *r, void *addr, size_t len)
{
    return gpm_region_persist(r, addr, len);
}

/* The traced work of the mutant test: a store persisted at the mutant's
 * site, one persisted elsewhere. 0, or what failed. */
static int mutant_work(const char *name)
{
    char dir[4200], path[4200];
    gpm_region r;
    uint64_t a = 0xaaaaaaaaaaaaaaaaull, b = 0xbbbbbbbbbbbbbbbbull;
    if (fresh(name, dir, sizeof dir, path, sizeof path) != 0 || gpm_trace_open(dir) != 0 ||
        gpm_map(&r, path, 2 * page, GPM_CREATE | GPM_HOST_ONLY) != 0 || gpm_trace_begin() != 0)
        return 1;
    memcpy(r.host, &a, 8);
    if (mutant_persist(&r, r.host, 8) != 0)
        return 2;
    memcpy((uint8_t *)r.host + page, &b, 8);
    if (gpm_region_persist(&r, (uint8_t *)r.host + page, 8) != 0)
        return 3;
    if (gpm_trace_end() != 0)
        return 4;
    gpm_unmap(&r);
    return 0;
}

static char *self_path;

/* Runs this program as "MODE ARG" with GPM_MUTATE=MUTATE (NULL: unset):
 * its exit status, or -1. */
static int run_child(const char *mode, const char *arg, const char *mutate)
{
    int st;
    pid_t pid = fork();
    if (pid == 0) {
        if (mutate)
            setenv("GPM_MUTATE", mutate, 1);
        else
            unsetenv("GPM_MUTATE");
        execl(self_path, self_path, mode, arg, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static void mutant_removes_its_persist_point(void)
{
    char dir[4200], site[64];
    gpm_ptrace t;
    uint64_t *d = NULL, a, b, p;
    int rc;
    snprintf(site, sizeof site, "test_trace.c:%d", mutant_line);

    /* The original: both persists, both stores durable. */
    CHECK_EQ_INT(run_child("--mutant", "trace-orig", NULL), 0);
    snprintf(dir, sizeof dir, "%s/trace-orig.trace", gpm_pm_dir());
    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    a = find(&t, GPM_TR_STORE, 0, 0);
    b = find(&t, GPM_TR_STORE, 0, 1);
    p = find(&t, GPM_TR_PERSIST, 0, 0);
    CHECK(a != GPM_NEVER && b != GPM_NEVER && p != GPM_NEVER);
    CHECKF(strstr(gpm_ptrace_site(&t, p), site) != NULL, "site %s, not %s",
           gpm_ptrace_site(&t, p), site);
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[a], p);
    CHECK(d[b] != GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);

    /* The mutant: that persist is gone, traced or not, and so is the
     * store's durability; the other persist stays. */
    rc = run_child("--mutant", "trace-mutant", site);
    CHECK_EQ_INT(rc, 0);
    snprintf(dir, sizeof dir, "%s/trace-mutant.trace", gpm_pm_dir());
    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    a = find(&t, GPM_TR_STORE, 0, 0);
    b = find(&t, GPM_TR_STORE, 0, 1);
    CHECK(a != GPM_NEVER && b != GPM_NEVER);
    CHECK(find(&t, GPM_TR_PERSIST, 0, 1) == GPM_NEVER);
    p = find(&t, GPM_TR_PERSIST, 0, 0);
    CHECK(p != GPM_NEVER && p > b);
    CHECKF(strstr(gpm_ptrace_site(&t, p), site) == NULL, "the mutated site %s is in the trace",
           site);
    for (uint64_t e = 0; e < t.nev; e++)
        CHECK(t.ev[e].kind == GPM_TR_STORE || t.ev[e].kind == GPM_TR_REMOVED ||
              t.ev[e].kind == GPM_TR_END || /* END names no site: site 0's */
              strstr(gpm_ptrace_site(&t, e), site) == NULL);
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[a] == GPM_NEVER);
    CHECK_EQ_INT(d[b], p);
    free(d);
    /* Recorded where it would have run, as what it was: restored, the
     * store is durable there again. */
    p = find(&t, GPM_TR_REMOVED, 0, 0);
    CHECK(p != GPM_NEVER && p > a && p < b);
    CHECK(p != GPM_NEVER && t.ev[p].aux == GPM_TR_PERSIST &&
          strstr(gpm_ptrace_site(&t, p), site) != NULL);
    t.restore_removed = 1;
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[a], p);
    free(d);
    gpm_ptrace_free(&t);
}

/* In the child: which sites GPM_MUTATE=tx.c:24 names, as bits of the
 * exit status; the variable changed later changes nothing. */
static int mutated_bits(void)
{
    int bits = gpm_mutated("libgpm/src/tx.c:24") | gpm_mutated("tx.c:24") << 1 |
               gpm_mutated("libgpm/src/ftx.c:24") << 2 | gpm_mutated("libgpm/src/tx.c:245") << 3 |
               gpm_mutated(NULL) << 4;
    setenv("GPM_MUTATE", "other.c:1", 1);
    return bits | gpm_mutated("libgpm/src/tx.c:24") << 5 | gpm_mutated("other.c:1") << 6;
}

static void mutate_names_a_site_or_its_path_suffix(void)
{
    CHECK_EQ_INT(run_child("--mutated", "", "tx.c:24"), 1 | 2 | 32);
    CHECK_EQ_INT(run_child("--mutated", "", "libgpm/src/tx.c:24"), 1 | 32);
    CHECK_EQ_INT(run_child("--mutated", "", ""), 0);
    CHECK_EQ_INT(run_child("--mutated", "", NULL), 0);
}

/* Writes record R (and LEN bytes of PAYLOAD) to F. */
static void put_rec(FILE *f, uint32_t kind, uint32_t site, uint64_t off, const char *payload)
{
    gpm_trace_rec r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.site = site;
    r.off = off;
    r.len = payload ? strlen(payload) : 0;
    fwrite(&r, sizeof r, 1, f);
    if (payload)
        fwrite(payload, 1, r.len, f);
}

/* A kernel's site is named twice: by its address while the trace runs,
 * by its file and line at the end. The later name wins, and renaming a
 * site below the last leaves the others. */
static void a_renamed_site_keeps_the_others(void)
{
    char dir[4200], path[4200], bin[4300], start[4300];
    uint64_t magic = GPM_TRACE_MAGIC;
    gpm_ptrace t;
    FILE *f;
    CHECK(fresh("trace-rename", dir, sizeof dir, path, sizeof path) == 0);
    snprintf(bin, sizeof bin, "%s/trace.bin", dir);
    snprintf(start, sizeof start, "%s/start-0", dir);
    CHECK((f = fopen(start, "wb")) != NULL);
    fwrite("12345678", 1, 8, f);
    fclose(f);
    CHECK((f = fopen(bin, "wb")) != NULL);
    fwrite(&magic, sizeof magic, 1, f);
    put_rec(f, GPM_TR_OBJ, 0, 8, path);
    put_rec(f, GPM_TR_SITE, 0, 0, "device:0x10:7");
    put_rec(f, GPM_TR_SITE, 1, 0, "device:0x20:9");
    put_rec(f, GPM_TR_SITE, 2, 0, "host.c:3");
    put_rec(f, GPM_TR_SITE, 0, 0, "kernels.cu:7");
    put_rec(f, GPM_TR_END, 0, 0, NULL);
    fclose(f);
    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    CHECK_EQ_INT(t.nsites, 3);
    CHECK(strcmp(t.site[0], "kernels.cu:7") == 0);
    CHECK(strcmp(t.site[1], "device:0x20:9") == 0);
    CHECK(strcmp(t.site[2], "host.c:3") == 0);
    gpm_ptrace_free(&t);
}

/* The host half of gpm/sbrp.cuh's records: a GPU thread's oFence,
 * dFence, release and acquire become the trace's SBRP events, in order,
 * with the thread, the scope, and the flag (in GPU memory here: named by
 * its address), as the sbrp model reads them. */
static void sbrp_records_become_trace_events(void)
{
    char dir[4200], path[4200];
    gpm_region r;
    gpm_ptrace t;
    uint64_t th_a = 1ull << 63 | 5ull << 42 | 0ull << 10 | 3,
             th_b = 1ull << 63 | 5ull << 42 | 1ull << 10 | 7, flag = 0x7f0000001000ull, e;
    CHECK(fresh("trace-sbrp", dir, sizeof dir, path, sizeof path) == 0);
    CHECKF(gpm_trace_open(dir) == 0, "%s", gpm_last_error());
    CHECKF(gpm_map(&r, path, page, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    CHECKF(gpm_trace_begin() == 0, "%s", gpm_last_error());
    pthread_mutex_lock(&gpm_trace_mu);
    gpm_trace_gpu_sbrp(GPM_DREC_OFENCE, 0, 0, th_a, 0, 0);
    gpm_trace_gpu_sbrp(GPM_DREC_PREL, flag, GPM_SCOPE_DEVICE, th_a, 0, 0);
    gpm_trace_gpu_sbrp(GPM_DREC_PACQ, flag, GPM_SCOPE_BLOCK, th_b, 0, 0);
    gpm_trace_gpu_sbrp(GPM_DREC_DFENCE, 0, 0, th_b, 0, 0);
    gpm_trace_gpu_sbrp(GPM_DREC_STORE, flag, 0, th_b, 0, 0); /* not SBRP's: nothing */
    gpm_trace_gpu_sbrp(GPM_DREC_DFENCE, 0, 0, th_b, 0, 1);   /* a mutant's */
    pthread_mutex_unlock(&gpm_trace_mu);
    CHECKF(gpm_trace_end() == 0, "%s", gpm_last_error());
    CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
    CHECK((e = find(&t, GPM_TR_OFENCE, 0, 0)) != GPM_NEVER && t.ev[e].thread == th_a);
    CHECK((e = find(&t, GPM_TR_PREL, e, 0)) != GPM_NEVER && t.ev[e].thread == th_a &&
          t.ev[e].obj == GPM_TR_DEVICE_OBJ && t.ev[e].off == flag &&
          t.ev[e].aux == GPM_SCOPE_DEVICE);
    CHECK((e = find(&t, GPM_TR_PACQ, e, 0)) != GPM_NEVER && t.ev[e].thread == th_b &&
          t.ev[e].obj == GPM_TR_DEVICE_OBJ && t.ev[e].off == flag &&
          t.ev[e].aux == GPM_SCOPE_BLOCK);
    CHECK((e = find(&t, GPM_TR_DFENCE, e, 0)) != GPM_NEVER && t.ev[e].thread == th_b);
    CHECK((e = find(&t, GPM_TR_REMOVED, e, 0)) != GPM_NEVER && t.ev[e].thread == th_b &&
          t.ev[e].aux == GPM_TR_DFENCE);
    CHECK_EQ_INT(t.nev, 6); /* the five, then the end */
    gpm_ptrace_free(&t);
    gpm_unmap(&r);
}

/* The model a program declares is its trace's word, read back at load; a
 * trace that declares none says so (0), and a new trace forgets the last
 * one's. */
static void a_trace_says_its_model(void)
{
    char dir[4200], path[4200];
    gpm_region r;
    gpm_ptrace t;
    CHECK(fresh("trace-model", dir, sizeof dir, path, sizeof path) == 0);
    for (int declare = 1; declare >= 0; declare--) {
        CHECKF(gpm_trace_open(dir) == 0, "%s", gpm_last_error());
        if (declare)
            gpm_trace_model(GPM_MODEL_EADR);
        CHECKF(gpm_map(&r, path, page, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
               gpm_last_error());
        CHECKF(gpm_trace_begin() == 0, "%s", gpm_last_error());
        ((uint8_t *)r.host)[0] = (uint8_t)(7 + declare);
        CHECK(gpm_region_persist(&r, r.host, 8) == 0);
        CHECKF(gpm_trace_end() == 0, "%s", gpm_last_error());
        gpm_unmap(&r);
        CHECKF(gpm_ptrace_load(&t, dir) == 0, "%s", gpm_last_error());
        CHECK_EQ_INT(t.model, declare ? GPM_MODEL_EADR + 1 : 0);
        CHECK(t.ended && find(&t, GPM_TR_PERSIST, 0, 0) != GPM_NEVER);
        gpm_ptrace_free(&t);
        unlink(path);
    }
}

int main(int argc, char **argv)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    if (argc == 3 && strcmp(argv[1], "--mutant") == 0)
        return mutant_work(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--mutated") == 0)
        return mutated_bits();
    self_path = argv[0];
    if (!strchr(self_path, '/'))
        self_path = "/proc/self/exe";
    unsetenv("GPM_MUTATE"); /* read once, at the first persist point */
    RUN(stores_persist_and_replay);
    RUN(write_and_fsync);
    RUN(object_of_odd_size);
    RUN(two_threads_one_page);
    RUN(mutant_removes_its_persist_point);
    RUN(mutate_names_a_site_or_its_path_suffix);
    RUN(a_renamed_site_keeps_the_others);
    RUN(sbrp_records_become_trace_events);
    RUN(a_trace_says_its_model);
    CHECK_EXIT();
}
