/* YCSB's operations (ycsb.h): its key names (a known answer from YCSB's
 * own output), the core workloads' shares of each operation, the skew of
 * its distributions, the load and the micro-benchmarks' keys, the same
 * stream from the same seed, and its traces read back (and refused, one
 * message naming the file and line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/gpm.h"
#include "ycsb.h"

#define OPS 200000

static char dir[4096];

/* The shares of each operation in OPS operations of MIX after RECORDS. */
static void shares(const char *mix, uint64_t records, double out[WL_YCSB_NOPS])
{
    struct wl_ycsb y;
    enum wl_ycsb_op op;
    uint64_t key, n[WL_YCSB_NOPS] = {0};
    memset(out, 0, WL_YCSB_NOPS * sizeof *out);
    if (wl_ycsb_init(&y, wl_ycsb_mix(mix), -1, records, 0.99, 3) != 0)
        return;
    for (int i = 0; i < OPS; i++) {
        wl_ycsb_next(&y, &op, &key);
        n[op]++;
    }
    for (int i = 0; i < WL_YCSB_NOPS; i++)
        out[i] = (double)n[i] / OPS;
}

static int near(double got, double want) { return got > want - 0.01 && got < want + 0.01; }

static void keys_are_ycsbs_own_names(void)
{
    char name[32], small[8];
    /* What YCSB's load prints first: INSERT usertable user6284781860667377211. */
    CHECK(wl_ycsb_key(0) == 6284781860667377211ull);
    CHECK(wl_ycsb_key_name(wl_ycsb_key(0), name, sizeof name) == 0);
    CHECK(strcmp(name, "user6284781860667377211") == 0);
    for (size_t i = strlen(name); i < sizeof name; i++)
        CHECK(name[i] == '\0');
    CHECK(wl_ycsb_key_name(wl_ycsb_key(0), small, sizeof small) == -1);
    CHECK(wl_ycsb_key(1) != wl_ycsb_key(0) && wl_ycsb_key(1) >> 63 == 0);
}

static void the_core_workloads_mix_as_ycsb_does(void)
{
    double s[WL_YCSB_NOPS];
    shares("a", 10000, s);
    CHECK(near(s[WL_YCSB_READ], .5) && near(s[WL_YCSB_UPDATE], .5));
    shares("b", 10000, s);
    CHECK(near(s[WL_YCSB_READ], .95) && near(s[WL_YCSB_UPDATE], .05));
    shares("c", 10000, s);
    CHECK(s[WL_YCSB_READ] == 1.0);
    shares("d", 10000, s);
    CHECK(near(s[WL_YCSB_READ], .95) && near(s[WL_YCSB_INSERT], .05));
    shares("f", 10000, s);
    CHECK(near(s[WL_YCSB_READ], .5) && near(s[WL_YCSB_RMW], .5));
    shares("load", 0, s);
    CHECK(s[WL_YCSB_INSERT] == 1.0);
}

struct pair {
    uint64_t key, num;
};

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const struct pair *)a)->key, y = ((const struct pair *)b)->key;
    return x < y ? -1 : x > y;
}

/* The key number of KEY among the N sorted pairs, or N. */
static uint64_t number_of(const struct pair *p, uint64_t n, uint64_t key)
{
    struct pair want = {key, 0}, *hit = bsearch(&want, p, n, sizeof *p, by_key);
    return hit ? hit->num : n;
}

/* Among OPS operations of MIX (DIST) after RECORDS: the share of its reads
 * that went to the hottest key, and to the latest 1% of the keys inserted
 * (-1: no stream). */
static void skew(const char *mix, int dist, uint64_t records, double *hottest, double *latest)
{
    struct wl_ycsb y;
    enum wl_ycsb_op op;
    uint64_t key, all = records + OPS, top = 0, recent = 0, reads = 0;
    uint64_t *count = calloc(all, sizeof *count);
    struct pair *p = malloc(all * sizeof *p);
    *hottest = *latest = -1;
    if (!count || !p || wl_ycsb_init(&y, wl_ycsb_mix(mix), dist, records, 0.99, 5) != 0) {
        free(count), free(p);
        return;
    }
    for (uint64_t k = 0; k < all; k++)
        p[k] = (struct pair){wl_ycsb_key(k), k};
    qsort(p, all, sizeof *p, by_key);
    for (int i = 0; i < OPS; i++) {
        uint64_t k;
        wl_ycsb_next(&y, &op, &key);
        if (op != WL_YCSB_READ || (k = number_of(p, all, key)) >= y.inserted)
            continue; /* a read of a key not inserted would be counted nowhere */
        reads++;
        count[k]++;
        recent += k >= y.inserted - y.inserted / 100;
    }
    for (uint64_t k = 0; k < all; k++)
        top = count[k] > top ? count[k] : top;
    if (reads > 0) {
        *hottest = (double)top / (double)reads;
        *latest = (double)recent / (double)reads;
    }
    free(count), free(p);
}

static void zipfian_is_skewed_and_uniform_is_not(void)
{
    double hot, latest;
    /* YCSB's scrambled Zipfian at 0.99: the most popular item has
     * 1 / zeta = 1 / 26.47 of the draws, about 3.8%. */
    skew("c", -1, 100000, &hot, &latest);
    CHECKF(hot > 0.03 && hot < 0.05, "hottest key %.4f", hot);
    skew("c", WL_YCSB_UNIFORM, 100000, &hot, &latest);
    CHECKF(hot > 0 && hot < 0.001, "hottest key %.4f", hot);
    /* Every read finds a key present: none was counted out. */
    skew("search", -1, 1000, &hot, &latest);
    CHECKF(hot > 0 && hot < 0.01, "hottest key %.4f", hot);
}

static void d_reads_the_latest_most(void)
{
    double hot, latest;
    skew("d", -1, 100000, &hot, &latest);
    /* Zipfian over ~100,000 ranks counted back from the newest: the first
     * 1% of the ranks hold about 55% of the draws. */
    CHECKF(latest > 0.4, "reads of the latest 1%%: %.3f", latest);
    skew("a", -1, 100000, &hot, &latest);
    CHECKF(latest < 0.1, "A's reads of the latest 1%%: %.3f", latest);
}

static void load_and_micro_benchmarks_take_the_right_keys(void)
{
    struct wl_ycsb y;
    enum wl_ycsb_op op;
    uint64_t key, n = 5000, seen_twice = 0;
    struct pair *p = malloc(n * sizeof *p);
    uint8_t *hit = calloc(n, 1);
    CHECK(p && hit);
    for (uint64_t k = 0; k < n; k++)
        p[k] = (struct pair){wl_ycsb_key(k), k};
    qsort(p, n, sizeof *p, by_key);
    /* The load: key numbers 0, 1, 2, ... in order. */
    CHECK(wl_ycsb_init(&y, wl_ycsb_mix("load"), -1, 0, 0.99, 1) == 0);
    for (uint64_t i = 0; i < n; i++) {
        wl_ycsb_next(&y, &op, &key);
        CHECK(op == WL_YCSB_INSERT && key == wl_ycsb_key(i));
    }
    /* Deletes: each key present once. */
    CHECK(wl_ycsb_init(&y, wl_ycsb_mix("delete"), -1, n, 0.99, 9) == 0);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k;
        wl_ycsb_next(&y, &op, &key);
        k = number_of(p, n, key);
        CHECK(op == WL_YCSB_DELETE && k < n);
        seen_twice += hit[k]++ != 0;
    }
    CHECK_EQ_INT(seen_twice, 0);
    /* A negative search never finds a key present; inserts take new ones. */
    CHECK(wl_ycsb_init(&y, wl_ycsb_mix("search-miss"), -1, n, 0.99, 2) == 0);
    for (int i = 0; i < 10000; i++) {
        wl_ycsb_next(&y, &op, &key);
        CHECK(op == WL_YCSB_READ && number_of(p, n, key) == n);
    }
    CHECK(wl_ycsb_init(&y, wl_ycsb_mix("insert"), -1, n, 0.99, 2) == 0);
    wl_ycsb_next(&y, &op, &key);
    CHECK(op == WL_YCSB_INSERT && key == wl_ycsb_key(n));
    free(p), free(hit);
}

static void one_seed_gives_one_stream(void)
{
    struct wl_ycsb a, b, c;
    enum wl_ycsb_op oa, ob, oc;
    uint64_t ka, kb, kc, differ = 0;
    CHECK(wl_ycsb_init(&a, wl_ycsb_mix("d"), -1, 1000, 0.99, 7) == 0);
    CHECK(wl_ycsb_init(&b, wl_ycsb_mix("d"), -1, 1000, 0.99, 7) == 0);
    CHECK(wl_ycsb_init(&c, wl_ycsb_mix("d"), -1, 1000, 0.99, 8) == 0);
    for (int i = 0; i < 10000; i++) {
        wl_ycsb_next(&a, &oa, &ka);
        wl_ycsb_next(&b, &ob, &kb);
        wl_ycsb_next(&c, &oc, &kc);
        CHECK(oa == ob && ka == kb);
        differ += oa != oc || ka != kc;
    }
    CHECK(differ > 5000);
}

static void bad_workloads_and_skews_are_refused(void)
{
    struct wl_ycsb y;
    CHECK(wl_ycsb_mix("e") == NULL);
    CHECK_MSG(gpm_last_error(), "no YCSB workload 'e': pass one of load, a, b, c, d, f");
    CHECK(wl_ycsb_init(&y, wl_ycsb_mix("a"), -1, 100, 1.5, 1) != 0);
    CHECK_MSG(gpm_last_error(), "Zipfian skew 1.5: pass a value between 0 and 1");
    CHECK(wl_ycsb_init(&y, wl_ycsb_mix("a"), -1, 0, 0.99, 1) != 0);
    CHECK_MSG(gpm_last_error(), "reads or writes keys present: load some first");
    /* Another skew than YCSB's own: the Zipfian over the keys themselves. */
    CHECK(wl_ycsb_init(&y, wl_ycsb_mix("a"), -1, 100, 0.5, 1) == 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void traces_are_read_and_bad_ones_named(void)
{
    char path[4200];
    struct wl_ycsb_trace t;
    snprintf(path, sizeof path, "%s/trace", dir);
    write_text(path, "***************** properties *****************\n"
                     "\"workload\"=\"site.ycsb.workloads.CoreWorkload\"\n"
                     "Loading workload...\n"
                     "INSERT usertable user6284781860667377211 [ field0=abc field1=def ]\n"
                     "READ usertable user6284781860667377211 [ <all fields>]\n"
                     "UPDATE usertable user000042 [ field3=xyz ]\n"
                     "READ usertable user7 [ field1 field2 ]\n"
                     "DELETE usertable user7\n"
                     "[OVERALL], RunTime(ms), 12\n");
    CHECK(wl_ycsb_trace_read(&t, path) == 0);
    CHECK_EQ_INT(t.n, 5);
    CHECK(t.op[0] == WL_YCSB_INSERT && t.key[0] == wl_ycsb_key(0));
    CHECK(t.op[1] == WL_YCSB_READ && t.key[1] == wl_ycsb_key(0));
    CHECK(t.op[2] == WL_YCSB_UPDATE && t.key[2] == 42);
    CHECK(t.op[3] == WL_YCSB_READ && t.key[3] == 7);
    CHECK(t.op[4] == WL_YCSB_DELETE && t.key[4] == 7);
    wl_ycsb_trace_free(&t);

    write_text(path, "READ usertable user1 [ <all fields>]\n"
                     "SCAN usertable user1 10 [ <all fields>]\n");
    CHECK(wl_ycsb_trace_read(&t, path) != 0);
    CHECK_MSG(gpm_last_error(), ":2: SCAN (YCSB's workload E) is not supported");
    CHECK_MSG(gpm_last_error(), path);
    write_text(path, "UPDATE usertable alice [ f=1 ]\n");
    CHECK(wl_ycsb_trace_read(&t, path) != 0);
    CHECK_MSG(gpm_last_error(), ":1: key 'alice' is not YCSB's user<digits>");
    write_text(path, "Loading workload...\n");
    CHECK(wl_ycsb_trace_read(&t, path) != 0);
    CHECK_MSG(gpm_last_error(), "no READ, UPDATE, INSERT or DELETE line");
    unlink(path);
    CHECK(wl_ycsb_trace_read(&t, path) != 0);
    CHECK_MSG(gpm_last_error(), "cannot read the YCSB trace");
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ycsb-test.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    RUN(keys_are_ycsbs_own_names);
    RUN(the_core_workloads_mix_as_ycsb_does);
    RUN(zipfian_is_skewed_and_uniform_is_not);
    RUN(d_reads_the_latest_most);
    RUN(load_and_micro_benchmarks_take_the_right_keys);
    RUN(one_seed_gives_one_stream);
    RUN(bad_workloads_and_skews_are_refused);
    RUN(traces_are_read_and_bad_ones_named);
    rmdir(dir);
    CHECK_EXIT();
}
