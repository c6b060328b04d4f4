/* gpKVS on the CPU: the model's choice of way, the reference on hand-checked
 * batches, the stable sort by set and the GPU's grouping keys, the key
 * generators, and the CPU counterpart end to end, killed with SIGKILL and
 * recovered. */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/check.h"
#include "../../kvs.h"
#include "../log_overflow.h"
#include "../ycsb_crash.h"
#include "tests/wl_test.h"

static char dir[4096], rows[4200], errf[4200];

static void way_is_own_then_free_then_victim(void)
{
    uint64_t keys[KVS_WAYS] = {5, 0, 7, 0, 9, 11, 13, 15};
    uint64_t full[KVS_WAYS] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_EQ_INT(kvs_way_for(keys, 7), 2);  /* its own way */
    CHECK_EQ_INT(kvs_way_for(keys, 8), 1);  /* the first free way */
    CHECK_EQ_INT(kvs_way_for(full, 6), 5);
    /* A full set: the key's victim, its top three bits. */
    CHECK_EQ_INT(kvs_way_for(full, 0xa000000000000001ull), 5);
    CHECK_EQ_INT(kvs_victim(0xe000000000000000ull), 7);
}

/* One set, ten SETs: eight fill the ways in order, the ninth evicts its
 * victim, the tenth updates a key already there. */
static void reference_fills_evicts_and_updates(void)
{
    struct kvs_state st;
    kvs_set table[1];
    uint64_t keys[10], sets = 10, gets = 0;
    uint8_t ops[10];
    memset(&st, 0, sizeof st);
    memset(ops, KVS_SET, sizeof ops);
    memset(table, 0, sizeof table);
    for (int i = 0; i < 8; i++)
        keys[i] = 100 + (uint64_t)i;
    keys[8] = 0x4000000000000001ull; /* victim way 2 */
    keys[9] = 104;
    st.nsets = 1;
    st.n = 10;
    st.batches = 1;
    st.h_keys = keys;
    st.h_op = ops;
    st.h_nsetops = &sets;
    st.h_ngets = &gets;
    CHECK(kvs_ref_batch(&st, 1, 0, table) == 0);
    for (int w = 0; w < KVS_WAYS; w++) {
        uint64_t want_key = w == 2 ? keys[8] : 100 + (uint64_t)w;
        uint64_t want_val = w == 2 ? kvs_value(1, 0, 10, 8)
                            : w == 4 ? kvs_value(1, 0, 10, 9)
                                     : kvs_value(1, 0, 10, (uint64_t)w);
        CHECKF(table[0].way[w].key == want_key && table[0].way[w].val == want_val,
               "way %d: key %llx", w, (unsigned long long)table[0].way[w].key);
    }
    CHECK_EQ_INT(kvs_check_unique(table, 1), 0);
    table[0].way[6].key = table[0].way[1].key;
    CHECK_EQ_INT(kvs_check_unique(table, 1), 1);
    CHECK_MSG(gpm_last_error(), "holds key");
}

/* The measure of a wrong table: every key of either table, those missing,
 * holding another value, stray or held twice wrong. */
static void wrong_keys_are_counted_in_both_tables(void)
{
    kvs_set ref[2], t[2];
    struct wl_wrong w = {0};
    memset(ref, 0, sizeof ref);
    for (int a = 0; a < 5; a++) {
        ref[0].way[a] = (kvs_pair){100 + (uint64_t)a, 1000 + (uint64_t)a};
        ref[1].way[a + 2] = (kvs_pair){200 + (uint64_t)a, 2000 + (uint64_t)a};
    }
    memcpy(t, ref, sizeof t);
    kvs_count_wrong_keys(t, ref, 2, &w);
    CHECK(w.bad == 0 && w.total == 10 && !strcmp(w.units, "keys"));
    /* Another way of its set is no matter. */
    t[0].way[7] = t[0].way[0];
    t[0].way[0] = (kvs_pair){0, 0};
    memset(&w, 0, sizeof w);
    kvs_count_wrong_keys(t, ref, 2, &w);
    CHECK(w.bad == 0 && w.total == 10);
    t[0].way[1].val ^= 1;                    /* another value */
    t[1].way[3] = (kvs_pair){0, 0};          /* missing */
    t[1].way[0] = (kvs_pair){999, 1};        /* a stray */
    t[1].way[1] = t[1].way[2];               /* held twice */
    memset(&w, 0, sizeof w);
    kvs_count_wrong_keys(t, ref, 2, &w);
    CHECKF(w.bad == 4 && w.total == 12, "%llu of %llu", (unsigned long long)w.bad,
           (unsigned long long)w.total);
}

static int gen(struct kvs_state *st, uint64_t nsets, uint64_t n, uint64_t batches,
               uint32_t set_pct, uint64_t keyspace, double theta)
{
    memset(st, 0, sizeof *st);
    st->nsets = nsets;
    st->n = n;
    st->batches = batches;
    st->set_pct = set_pct;
    st->keyspace = keyspace;
    return kvs_gen_keys(st, 3, theta);
}

/* GETs read the table before their batch: the digest is the sum over the
 * GETs of what a lookup in the earlier table finds. */
static void gets_read_the_table_before_the_batch(void)
{
    struct kvs_state st;
    kvs_set *table = calloc(64, sizeof *table), *before = calloc(64, sizeof *before);
    uint64_t want = 0, gets = 0;
    CHECK(table && before && gen(&st, 64, 512, 2, 5, 256, 0) == 0);
    kvs_ref_batch(&st, 3, 0, table);
    memcpy(before, table, 64 * sizeof *table);
    for (uint64_t i = 0; i < st.n; i++) {
        uint64_t k = st.h_keys[st.n + i], val = 0;
        const kvs_set *s = &before[kvs_set_of(k, 64)];
        if (kvs_is_set(3, 1, st.n, i, 5))
            continue;
        gets++;
        for (int w = 0; w < KVS_WAYS; w++)
            if (s->way[w].key == k)
                val = s->way[w].val;
        want += kvs_get_digest(i, val);
    }
    CHECK(gets > 400 && gets < 512); /* about 95% */
    CHECK(kvs_ref_batch(&st, 3, 1, table) == want);
    CHECK(st.h_nsetops[1] == st.n - gets);
    kvs_free_stream(&st);
    free(table);
    free(before);
}

/* The GPU groups a batch by keys of kvs_group_bits bits: every set's
 * index lies below the marker that other operations take (so they group
 * after every SET), and one bit fewer would not leave it so. */
static void grouping_keys_put_other_operations_after_every_set(void)
{
    const uint64_t nsets[] = {1, 2, 3, 4, 4095, 4096, 4097, 1u << 20, 1u << 25,
                              0x7fffffffull, 0x80000000ull, 0xfffffffeull};
    for (size_t k = 0; k < sizeof nsets / sizeof *nsets; k++) {
        int bits = kvs_group_bits(nsets[k]);
        uint64_t marker = kvs_group_marker(bits);
        CHECKF(bits >= 1 && bits <= 32 && marker == (1ull << bits) - 1,
               "%llu sets: %d bits, marker %llx", (unsigned long long)nsets[k], bits,
               (unsigned long long)marker);
        CHECKF(nsets[k] - 1 < marker, "%llu sets: set %llu is the marker or above it",
               (unsigned long long)nsets[k], (unsigned long long)(nsets[k] - 1));
        CHECKF(bits == 1 || nsets[k] - 1 >= (1ull << (bits - 1)) - 1,
               "%llu sets: %d bits where %d would do", (unsigned long long)nsets[k], bits,
               bits - 1);
    }
}

static void sort_by_set_is_stable(void)
{
    struct kvs_state st;
    uint32_t *s, *x, *ts, *tx;
    uint64_t m;
    CHECK(gen(&st, 100000, 50000, 1, 50, 1000, 0.9) == 0);
    s = malloc(st.n * 4), x = malloc(st.n * 4), ts = malloc(st.n * 4), tx = malloc(st.n * 4);
    CHECK(s && x && ts && tx);
    kvs_sort_host(&st, 0, s, x, ts, tx);
    m = st.h_nsetops[0];
    CHECK(m > 20000 && m < 30000);
    for (uint64_t k = 0; k < m; k++) {
        CHECKF(s[k] == kvs_set_of(st.h_keys[x[k]], st.nsets) && kvs_is_set(3, 0, st.n, x[k], 50),
               "position %llu", (unsigned long long)k);
        if (k > 0)
            CHECKF(s[k - 1] < s[k] || (s[k - 1] == s[k] && x[k - 1] < x[k]),
                   "position %llu out of order", (unsigned long long)k);
    }
    free(s), free(x), free(ts), free(tx);
    kvs_free_stream(&st);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Uniform keys spread, Zipfian ones concentrate; both depend on the seed
 * alone, not on the thread count. */
static void keys_are_skewed_as_asked_and_repeatable(void)
{
    struct kvs_state a, b;
    uint64_t same = 0;
    omp_set_num_threads(1);
    CHECK(gen(&a, 1024, 100000, 1, 100, 1000000, 0.99) == 0);
    omp_set_num_threads(2);
    CHECK(gen(&b, 1024, 100000, 1, 100, 1000000, 0.99) == 0);
    CHECK(memcmp(a.h_keys, b.h_keys, a.n * 8) == 0);
    for (uint64_t i = 0; i < a.n; i++)
        CHECK(a.h_keys[i] != 0);
    kvs_free_stream(&b);
    CHECK(gen(&b, 1024, 100000, 1, 100, 1000000, 0) == 0);
    for (uint64_t i = 0; i < b.n; i++)
        same += b.h_keys[i] == b.h_keys[0] ? 1 : 0;
    /* Zipf(0.99) over 1M keys: the most popular key takes 1/zeta(1M), about
     * 6.8% of the draws. */
    {
        uint64_t *sorted = malloc(a.n * 8), best = 0, c = 0;
        CHECK(sorted != NULL);
        if (sorted) {
            memcpy(sorted, a.h_keys, a.n * 8);
            qsort(sorted, a.n, 8, cmp_u64);
            for (uint64_t i = 0; i < a.n; i++) {
                c = i > 0 && sorted[i] == sorted[i - 1] ? c + 1 : 1;
                best = c > best ? c : best;
            }
            free(sorted);
        }
        CHECKF(best > 5500 && best < 8000, "the hottest key appears %llu times in 100000",
               (unsigned long long)best);
    }
    CHECKF(same < 10, "a uniform key appears %llu times in 100000", (unsigned long long)same);
    kvs_free_stream(&a), kvs_free_stream(&b);
}

static int run(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, errf);
}

static void cpu_counterpart_runs_every_operation_and_log(void)
{
    const char *extra[][4] = {{"--op", "set", "--log", "hcl"},
                              {"--op", "get-set", "--log", "conv"},
                              {"--op", "set", "--zipf", "0.99"}};
    unlink(rows);
    for (int k = 0; k < 3; k++) {
        char *av[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "2",
                      "--out", rows, (char *)extra[k][0], (char *)extra[k][1],
                      (char *)extra[k][2], (char *)extra[k][3]};
        CHECKF(run(av, ARGC(av)) == 0, "%s %s %s %s", extra[k][0], extra[k][1], extra[k][2],
               extra[k][3]);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tkvs\tset\tcpu\ttiny\t"), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tkvs\tget-set\tcpu\ttiny\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",atomic=yes,"), 3);
    /* get-set runs 4 times --batches (tiny: 4), and its row says so. */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",batches=4,"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",run_batches=4,"), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",run_batches=16,"), 1);
}

/* Figure 1a's CPU stores take the same batches and are checked: the PMDK
 * pool against gpKVS's reference table (same layout), RocksDB against a
 * map of every key's last value; the GETs' digests too. */
static void cpu_stores_run_the_same_batches(void)
{
    const char *stores[] = {"pmemobj", "rocksdb"}, *ops[] = {"set", "get-set"};
    unlink(rows);
    for (int s = 0; s < 2; s++)
        for (int o = 0; o < 2; o++) {
            char *av[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps",
                          "2", "--cpu-threads", "2", "--out", rows, "--store",
                          (char *)stores[s], "--op", (char *)ops[o]};
            CHECKF(run(av, ARGC(av)) == 0, "--store %s --op %s", stores[s], ops[o]);
        }
    CHECK_EQ_INT(wl_test_count_lines(rows, ",store=pmemobj,"), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",store=rocksdb,"), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 4);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",cpu_threads=2,atomic=per-set,"), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",cpu_threads=2,atomic=yes,"), 2);
}

/* RocksDB gets a batch's SETs in key order: with 64 keys every batch sets
 * each key many times, and the last SET of each must still win. */
static void rocksdb_keeps_the_last_set_of_a_key(void)
{
    char *av[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                  "--cpu-threads", "2", "--out", rows, "--store", "rocksdb", "--keys", "64"};
    unlink(rows);
    CHECK_EQ_INT(run(av, ARGC(av)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 1);
}

/* SIGKILLed mid-run, just before a batch's commit (never on a clock: the
 * kill lands there whatever the machine's speed): the recovery undoes the
 * interrupted batch, resumes after the last committed one, and the table
 * equals the reference's. */
static void a_killed_run_resumes_after_the_last_committed_batch(void)
{
    int resumed = 0, trials = 0;
    for (int k = 0; k < 4; k++) {
        char at[32], line[8192], *p;
        char *crash[] = {"kvs", "--mode", "cpu", "--sets", "65536", "--batch", "65536",
                         "--batches", "12", "--pm-dir", dir, "--reps", "1",
                         "--kill", at};
        char *rec[] = {"kvs", "--mode", "cpu", "--sets", "65536", "--batch", "65536",
                       "--batches", "12", "--pm-dir", dir, "--recover", "--out", rows};
        unsigned long long d = 0, t = 0, r = 0;
        snprintf(at, sizeof at, "commit:%d", 2 + 3 * k); /* batches 1 to 1 + 3k committed */
        unlink(rows);
        if (run(crash, ARGC(crash)) != 128 + SIGKILL)
            continue;
        trials++;
        CHECKF(run(rec, ARGC(rec)) == 0, "killed before commit %s: recovery failed", at);
        wl_test_line(rows, 1, line, sizeof line);
        p = strstr(line, "durable=");
        CHECKF(p && sscanf(p, "durable=%llu/%llu,redone=%llu", &d, &t, &r) == 3 && t == 12 &&
                   r == t - d && strstr(line, "\tok\t"),
               "%s", line);
        resumed += d > 0 && d < t;
    }
    CHECKF(trials == 4, "only %d of 4 kills landed inside the run", trials);
    CHECKF(resumed == 4, "%d of 4 recoveries resumed after committed batches", resumed);
}

/* --op ycsb: the operations and keys of the shared YCSB stream, the load
 * in the first batches, the run after them, a short batch padded with
 * nothing-doing operations. */
static struct {
    uint8_t op[8192];
    uint64_t key[8192];
} seen;

static void record(void *arg, uint64_t i, enum wl_ycsb_op op, uint64_t key)
{
    (void)arg;
    seen.op[i] = (uint8_t)op;
    seen.key[i] = key;
}

static void ycsb_batches_hold_the_shared_stream(void)
{
    const char *mixes[] = {"a", "f", "d"};
    for (int m = 0; m < 3; m++) {
        struct wl_ycsb_args a = {wl_ycsb_mix(mixes[m]), -1, 1000, 3000, 0.99, NULL};
        struct wl_ycsb_stream y;
        struct kvs_state st;
        uint64_t sets = 0, gets = 0, both = 0;
        memset(&st, 0, sizeof st);
        st.n = 1024;
        CHECK(wl_ycsb_stream_open(&y, &a, 7) == 0 && y.load == 1000 && y.run == 3000);
        wl_ycsb_stream_fill(&y, record, NULL);
        CHECK_EQ_INT(kvs_gen_ycsb(&st, &y), 0);
        wl_ycsb_stream_close(&y);
        CHECK(st.load_batches == 1 && st.batches == 4);
        for (uint64_t i = 0; i < 4000; i++) {
            uint64_t at = i < 1000 ? i : 1024 + i - 1000;
            uint8_t want = seen.op[i] == WL_YCSB_READ  ? KVS_GET
                           : seen.op[i] == WL_YCSB_RMW ? KVS_GET | KVS_SET
                                                       : KVS_SET;
            CHECKF(st.h_op[at] == want && st.h_keys[at] == kvs_ycsb_key(seen.key[i]) &&
                       st.h_keys[at] != 0,
                   "%s: operation %llu", mixes[m], (unsigned long long)i);
            both += st.h_op[at] == (KVS_GET | KVS_SET);
        }
        for (uint64_t at = 1000; at < 1024; at++)
            CHECK(st.h_op[at] == KVS_NOP);
        for (uint64_t at = 1024 + 3000; at < 4 * 1024; at++)
            CHECK(st.h_op[at] == KVS_NOP);
        for (uint64_t b = 0; b < 4; b++)
            sets += st.h_nsetops[b], gets += st.h_ngets[b];
        CHECK(st.h_nsetops[0] == 1000 && st.h_ngets[0] == 0); /* the load: inserts */
        CHECKF(gets > 1000 && sets > 1000 + (m == 2 ? 100 : 1000), "%s: %llu GETs, %llu SETs",
               mixes[m], (unsigned long long)gets, (unsigned long long)sets);
        CHECK(m == 1 ? both > 1000 : both == 0); /* f's read-modify-writes */
        kvs_free_stream(&st);
    }
    CHECK(kvs_ycsb_key(0) != 0 && kvs_ycsb_key(1) != kvs_ycsb_key(2));
}

/* Every YCSB workload gpKVS can run, checked against its reference; the
 * CPU stores take the same stream; a delete and a key count are refused. */
static void ycsb_runs_every_workload_but_delete(void)
{
    const char *w[] = {"load", "a", "b", "c", "d", "f", "search", "search-miss", "insert",
                       "update"};
    const char *stores[] = {"pmemobj", "rocksdb"};
    char *del[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--op", "ycsb",
                   "--workload", "delete"};
    char *keys[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--op", "ycsb",
                    "--keys", "100"};
    char *zipf[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--op", "ycsb",
                    "--zipf", "0"};
    unlink(rows);
    for (int k = 0; k < 10; k++) {
        char *av[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                      "--out", rows, "--op", "ycsb", "--workload", (char *)w[k]};
        CHECKF(run(av, ARGC(av)) == 0, "--workload %s", w[k]);
    }
    for (int k = 0; k < 2; k++) {
        char *av[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                      "--out", rows, "--op", "ycsb", "--workload", "f", "--store",
                      (char *)stores[k]};
        CHECKF(run(av, ARGC(av)) == 0, "--store %s", stores[k]);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "	kvs	ycsb	cpu	tiny	"), 12);
    CHECK_EQ_INT(wl_test_count_lines(rows, "	ok	"), 12);
    /* YCSB's defaults where not given: batches of 2^12, skew 0.99, and the
     * load of 16K keys before the run. */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",batch=4096,batches=8,"), 11);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",zipf=0.99,"), 12);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",load_ops=16384,run_ops=32768,"), 11);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",load_ops=0,run_ops=16384,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",batch_p99_us="), 12);
    CHECK_EQ_INT(run(del, ARGC(del)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--workload delete: gpKVS has no delete"), 1);
    CHECK_EQ_INT(run(zipf, ARGC(zipf)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--zipf 0: YCSB needs a skew between 0 and 1"), 1);
    CHECK_EQ_INT(run(keys, ARGC(keys)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--keys: --op ycsb takes its keys and batches from "
                                           "--records, --ops and --batch: drop --keys"),
                 1);
}

/* Killed before the run's third commit, recovered (ycsb_crash.h). */
static void a_killed_ycsb_run_resumes_after_its_load(void)
{
    kvs_ycsb_crash_case("cpu", dir, rows, errf);
}

static unsigned long long file_sum(const char *path)
{
    unsigned long long h = 1469598103934665603ull;
    int ch;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    while ((ch = fgetc(f)) != EOF)
        h = (h ^ (unsigned)ch) * 1099511628211ull;
    fclose(f);
    return h;
}

/* A corrupt log, or the files of other sizes: a one-line error naming the
 * file, and nothing on PM changed. */
static void bad_files_are_refused_and_left_alone(void)
{
    char *keep[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                    "--keep"};
    char *rec[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover"};
    char *other[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                     "--batch", "1000"};
    char log[4300], table[4300];
    unsigned long long lsum, tsum;
    FILE *f;
    snprintf(log, sizeof log, "%s/kvs-tiny.log", dir);
    snprintf(table, sizeof table, "%s/kvs-tiny.table", dir);
    CHECK_EQ_INT(run(keep, ARGC(keep)), 0);
    f = fopen(log, "r+b");
    CHECK(f != NULL);
    if (f) { /* the header's first word */
        fputs("garbage!", f);
        fclose(f);
    }
    lsum = file_sum(log);
    tsum = file_sum(table);
    CHECK(run(rec, ARGC(rec)) != 0);
    CHECK_EQ_INT(wl_test_count_lines(errf, log), 1);
    CHECK(file_sum(log) == lsum && file_sum(table) == tsum);
    CHECK(run(other, ARGC(other)) != 0); /* other sizes: other files, none to recover */
    CHECK_EQ_INT(wl_test_count_lines(errf, "does not exist: nothing to recover"), 1);
    CHECK(file_sum(log) == lsum && file_sum(table) == tsum);
}

/* An undo record that does not fit leaves its way unchanged: the batch
 * fails, and the undo gives back exactly the table before it. */
static void a_full_log_changes_nothing_it_could_not_log(void)
{
    kvs_log_overflow_case("cpu", dir, errf);
}

/* A chunk given is taken and noted in the row; a bad one is refused. */
static void bad_flags_name_the_fix(void)
{
    char *chunk[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--cap-chunk",
                     "3000"};
    char *op[] = {"kvs", "--mode", "cpu", "--op", "get"};
    char *given[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--cap-chunk",
                     "65536", "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run(given, ARGC(given)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",cap-chunk=65536,"), 1);
    char *store[] = {"kvs", "--mode", "cpu", "--store", "leveldb"};
    char *gpu_store[] = {"kvs", "--mode", "gpm", "--store", "rocksdb"};
    CHECK_EQ_INT(run(store, ARGC(store)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--store: unknown store 'leveldb': use kvs, pmemobj "
                                           "or rocksdb"),
                 1);
    CHECK_EQ_INT(run(gpu_store, ARGC(gpu_store)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--store rocksdb: a CPU store: use --mode cpu"), 1);
    /* Its runs cannot be recovered, so no kill of any kind is taken. */
    char *killed_store[] = {"kvs", "--mode", "cpu", "--store", "rocksdb", "--kill", "progress:2"};
    CHECK_EQ_INT(run(killed_store, ARGC(killed_store)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--store rocksdb: no crash trials"), 1);
    CHECK_EQ_INT(run(chunk, ARGC(chunk)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--cap-chunk: '3000' is not 'best' or a power of two"),
                 1);
    CHECK_EQ_INT(run(op, ARGC(op)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--op: kvs has no operation 'get': use set|get-set|ycsb"),
                 1);
}

/* A finished run whose table was damaged after it: 10 values changed, 2
 * keys gone, one key that was never SET. The recovery has nothing to do;
 * verify fails, and its row says how wrong: 13 of the keys of both tables,
 * the log's count right. */
static void a_damaged_table_is_measured_in_wrong_keys(void)
{
    char *go[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                  "--keep"};
    char *rec[] = {"kvs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                   "--out", rows};
    char path[4300], cmd[4400], want[128];
    const uint64_t nsets = 4096;
    kvs_set *t = malloc(nsets * sizeof *t);
    uint64_t keys = 0, changed = 0, gone = 0, stray = 0;
    FILE *f;
    CHECK(t);
    unlink(rows);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/kvs-*", dir); /* files another case kept */
    CHECK(system(cmd) == 0);
    CHECK_EQ_INT(run(go, ARGC(go)), 0);
    snprintf(path, sizeof path, "%s/kvs-tiny.table", dir);
    CHECK((f = fopen(path, "r+")) != NULL);
    CHECK(fread(t, sizeof *t, nsets, f) == nsets);
    for (uint64_t s = 0; s < nsets; s++)
        for (int a = 0; a < KVS_WAYS; a++) {
            if (!t[s].way[a].key) {
                if (!stray && s > 100) /* a free way: a key never SET */
                    t[s].way[a] = (kvs_pair){0x77, 1}, stray = 1;
                continue;
            }
            keys++;
            if (s % 97 == 0 && a == 0 && changed < 10)
                t[s].way[a].val ^= 1, changed++;
            else if (s % 89 == 1 && a == 0 && gone < 2)
                t[s].way[a] = (kvs_pair){0, 0}, gone++;
        }
    CHECK(changed == 10 && gone == 2 && stray == 1 && keys > 10000);
    CHECK(fseek(f, 0, SEEK_SET) == 0 && fwrite(t, sizeof *t, nsets, f) == nsets);
    fclose(f);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 1);
    CHECK_EQ_INT(wl_test_count_lines(errf, "differs from the reference after 4 batches"), 1);
    snprintf(want, sizeof want, ",wrong_units=13/%llu,units=keys,wrong_marks=0/1",
             (unsigned long long)keys + 1);
    CHECKF(wl_test_count_lines(rows, want) == 1, "no '%s'", want);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/kvs-*", dir);
    CHECK(system(cmd) == 0);
    free(t);
}

int main(void)
{
    wl_test_scratch("kvs-test", dir, rows, errf);
    /* The programs first: they run in forked children, and OpenMP's threads
     * do not survive a fork once this process has started them. */
    RUN(cpu_counterpart_runs_every_operation_and_log);
    RUN(a_killed_run_resumes_after_the_last_committed_batch);
    RUN(cpu_stores_run_the_same_batches);
    RUN(ycsb_runs_every_workload_but_delete);
    RUN(a_killed_ycsb_run_resumes_after_its_load);
    RUN(rocksdb_keeps_the_last_set_of_a_key);
    RUN(bad_flags_name_the_fix);
    RUN(bad_files_are_refused_and_left_alone);
    RUN(a_full_log_changes_nothing_it_could_not_log);
    RUN(a_damaged_table_is_measured_in_wrong_keys);
    RUN(wrong_keys_are_counted_in_both_tables);
    RUN(way_is_own_then_free_then_victim);
    RUN(reference_fills_evicts_and_updates);
    RUN(gets_read_the_table_before_the_batch);
    RUN(grouping_keys_put_other_operations_after_every_set);
    RUN(sort_by_set_is_stable);
    RUN(keys_are_skewed_as_asked_and_repeatable);
    RUN(ycsb_batches_hold_the_shared_stream);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
