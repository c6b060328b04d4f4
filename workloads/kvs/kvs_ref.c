/* gpKVS on the host: the keys of every batch (uniform or Zipfian, made
 * here once so that every mode and the reference see the same), the stable
 * sort of a batch's SETs by set, the reference, and the CPU counterpart. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/tx.h"
#include "kvs.h"
#include "zipf.h"

/* Rank R of the key space, as a key: distinct ranks give distinct keys
 * (gpm_mix64 is a bijection), never 0 (the free mark). */
static uint64_t key_of_rank(uint64_t seed, uint64_t r)
{
    uint64_t k = gpm_mix64(r + seed * 0x9e3779b97f4a7c15ull);
    return k ? k : 0x8000000000000000ull;
}

/* The stream's arrays, and each batch's counts once H_OP is filled. */
static int alloc_stream(struct kvs_state *st)
{
    uint64_t total = st->batches * st->n;
    st->h_keys = calloc(total, sizeof *st->h_keys);
    st->h_op = calloc(total, 1);
    st->h_nsetops = calloc(st->batches, sizeof *st->h_nsetops);
    st->h_ngets = calloc(st->batches, sizeof *st->h_ngets);
    if (!st->h_keys || !st->h_op || !st->h_nsetops || !st->h_ngets)
        return gpm_set_error("kvs: out of memory for %llu operations: use a smaller --scale, "
                             "--batches or --ops", (unsigned long long)total);
    return 0;
}

void kvs_free_stream(struct kvs_state *st)
{
    free(st->h_keys);
    free(st->h_op);
    free(st->h_nsetops);
    free(st->h_ngets);
    st->h_keys = NULL, st->h_op = NULL, st->h_nsetops = st->h_ngets = NULL;
}

static void count_ops(struct kvs_state *st)
{
    for (uint64_t b = 0; b < st->batches; b++)
        for (uint64_t i = 0; i < st->n; i++) {
            st->h_nsetops[b] += (st->h_op[b * st->n + i] & KVS_SET) != 0;
            st->h_ngets[b] += (st->h_op[b * st->n + i] & KVS_GET) != 0;
        }
}

int kvs_gen_keys(struct kvs_state *st, uint64_t seed, double theta)
{
    uint64_t total = st->batches * st->n;
    struct wl_zipf z;
    if (alloc_stream(st) != 0)
        return -1;
    if (theta > 0)
        wl_zipf_init(&z, st->keyspace, theta, 0);
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < total; i++) {
        uint64_t r = theta > 0 ? wl_zipf_rank(&z, wl_unit(seed, i))
                               : gpm_mix64(seed * 0xa0761d6478bd642full + i) % st->keyspace;
        st->h_keys[i] = key_of_rank(seed, r);
        st->h_op[i] = kvs_is_set(seed, i / st->n, st->n, i % st->n, st->set_pct) ? KVS_SET
                                                                                : KVS_GET;
    }
    count_ops(st);
    return 0;
}

uint64_t kvs_ycsb_key(uint64_t key)
{
    return key << 1 | 1; /* YCSB's keys are below 2^63 */
}

static void put(void *arg, uint64_t i, enum wl_ycsb_op op, uint64_t key)
{
    static const uint8_t ops[WL_YCSB_NOPS] = {
        [WL_YCSB_READ] = KVS_GET, [WL_YCSB_UPDATE] = KVS_SET, [WL_YCSB_INSERT] = KVS_SET,
        [WL_YCSB_RMW] = KVS_GET | KVS_SET};
    struct kvs_state *st = arg;
    uint64_t at = i < st->load_ops ? i : st->load_batches * st->n + (i - st->load_ops);
    st->h_keys[at] = kvs_ycsb_key(key);
    st->h_op[at] = ops[op]; /* deletes are refused before (kvs.c) */
}

void kvs_size_ycsb(struct kvs_state *st, const struct wl_ycsb_stream *y)
{
    st->load_ops = y->load;
    st->run_ops = y->run;
    st->load_batches = (y->load + st->n - 1) / st->n;
    st->batches = st->load_batches + (y->run + st->n - 1) / st->n;
}

int kvs_gen_ycsb(struct kvs_state *st, struct wl_ycsb_stream *y)
{
    kvs_size_ycsb(st, y);
    if (alloc_stream(st) != 0)
        return -1;
    wl_ycsb_stream_fill(y, put, st);
    count_ops(st);
    return 0;
}

/* LSD radix sort of (set, index) pairs by set, 16 bits a pass: stable, so
 * each set's SETs stay in batch order. */
void kvs_sort_host(const struct kvs_state *st, uint64_t b, uint32_t *sets,
                   uint32_t *idx, uint32_t *tmp_sets, uint32_t *tmp_idx)
{
    const uint64_t *keys = st->h_keys + b * st->n;
    const uint8_t *op = st->h_op + b * st->n;
    uint64_t m = 0;
    static uint64_t count[65537];
    for (uint64_t i = 0; i < st->n; i++)
        if (op[i] & KVS_SET) {
            sets[m] = (uint32_t)kvs_set_of(keys[i], st->nsets);
            idx[m++] = (uint32_t)i;
        }
    for (int shift = 0; shift < 32; shift += 16) {
        memset(count, 0, sizeof count);
        for (uint64_t k = 0; k < m; k++)
            count[((sets[k] >> shift) & 0xffff) + 1]++;
        for (int d = 0; d < 65536; d++)
            count[d + 1] += count[d];
        for (uint64_t k = 0; k < m; k++) {
            uint64_t at = count[(sets[k] >> shift) & 0xffff]++;
            tmp_sets[at] = sets[k];
            tmp_idx[at] = idx[k];
        }
        memcpy(sets, tmp_sets, m * sizeof *sets);
        memcpy(idx, tmp_idx, m * sizeof *idx);
    }
}

uint64_t kvs_gets_digest(const struct kvs_state *st, uint64_t b, const kvs_set *table)
{
    const uint64_t *keys = st->h_keys + b * st->n;
    const uint8_t *op = st->h_op + b * st->n;
    uint64_t digest = 0;
    if (!st->h_ngets[b])
        return 0;
#pragma omp parallel for reduction(+ : digest) schedule(static)
    for (uint64_t i = 0; i < st->n; i++) {
        const kvs_set *s;
        uint64_t val = 0;
        if (!(op[i] & KVS_GET))
            continue;
        s = &table[kvs_set_of(keys[i], st->nsets)];
        for (int w = 0; w < KVS_WAYS; w++)
            if (s->way[w].key == keys[i])
                val = s->way[w].val;
        digest += kvs_get_digest(i, val);
    }
    return digest;
}

uint64_t kvs_ref_batch(const struct kvs_state *st, uint64_t seed, uint64_t b, kvs_set *table)
{
    const uint64_t *keys = st->h_keys + b * st->n;
    const uint8_t *op = st->h_op + b * st->n;
    uint64_t digest = kvs_gets_digest(st, b, table); /* the table before the batch */
    /* Each thread applies, in batch order, the SETs of its own share of the
     * sets: sets are independent, so this is the sequential table, in a
     * fraction of its time (a paper-scale reference takes seconds). */
#pragma omp parallel
    {
        uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        uint64_t lo = st->nsets * t / nt, hi = st->nsets * (t + 1) / nt;
        for (uint64_t i = 0; i < st->n; i++) {
            uint64_t si;
            uint32_t w;
            if (!(op[i] & KVS_SET))
                continue;
            si = kvs_set_of(keys[i], st->nsets);
            if (si < lo || si >= hi)
                continue;
            w = kvs_way_in(&table[si], keys[i]);
            table[si].way[w].key = keys[i];
            table[si].way[w].val = kvs_value(seed, b, st->n, i);
        }
    }
    return digest;
}

/* One run of the sorted SETs (all of set SETS[P]) on the PM table, by
 * OpenMP thread SLOT: each way's old pair is logged (durably) the first time
 * the batch changes it, the set is persisted at the end. A way whose record
 * does not fit is left as it was, and the run fails. */
static int cpu_run(struct wl_ctx *c, const struct kvs_state *st, uint64_t seed, uint64_t b,
                   uint64_t p, uint64_t m, uint32_t slot)
{
    gpm_region *r = wl_region(c, KVS_TABLE);
    kvs_set *s = (kvs_set *)r->host + st->h_sets[p];
    const uint64_t *keys = st->h_keys + b * st->n;
    uint32_t logged = 0;
    for (uint64_t q = p; q < m && st->h_sets[q] == st->h_sets[p]; q++) {
        uint64_t i = st->h_idx[q];
        uint32_t w = kvs_way_in(s, keys[i]);
        if (!(logged & (1u << w))) {
            if (wl_tx_host_undo(c, KVS_LOG, slot,
                                (uint64_t)((char *)&s->way[w] - (char *)r->host), &s->way[w],
                                sizeof s->way[w]) != 0)
                return -1;
            logged |= 1u << w;
        }
        s->way[w].key = keys[i];
        s->way[w].val = kvs_value(seed, b, st->n, i);
    }
    return wl_pm_persist(c, KVS_TABLE, s, sizeof *s);
}

int kvs_cpu_apply(struct wl_ctx *c, struct kvs_state *st, uint64_t b, uint64_t *digest)
{
    uint64_t seed = wl_seed(c), m = st->h_nsetops[b];
    int threads = c->threads > 0 ? c->threads : omp_get_max_threads(), failed = 0;
    if (threads > st->cpu_slots)
        threads = st->cpu_slots; /* a log slot each */
    *digest = kvs_gets_digest(st, b, wl_region(c, KVS_TABLE)->host);
    kvs_sort_host(st, b, st->h_sets, st->h_idx, st->h_tmp_sets, st->h_tmp_idx);
    /* Thread t takes the runs that start in its share of the sorted SETs:
     * each set is one thread's, so the log slots never share a location. */
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        for (uint64_t p = m * t / nt; p < m * (t + 1) / nt && !failed; p++) {
            if (p > 0 && st->h_sets[p] == st->h_sets[p - 1])
                continue;
            failed |= cpu_run(c, st, seed, b, p, m, (uint32_t)t) != 0;
        }
    }
    if (failed)
        return gpm_set_error("kvs: batch %llu: an undo record did not fit %s, or a persist "
                             "failed: the batch stopped; --recover undoes it",
                             (unsigned long long)b, wl_obj_path(c, KVS_LOG));
    return 0;
}

int kvs_check_unique(const kvs_set *table, uint64_t nsets)
{
    uint64_t bad = UINT64_MAX; /* the first set that holds a key twice */
#pragma omp parallel for reduction(min : bad) schedule(static)
    for (uint64_t s = 0; s < nsets; s++)
        for (int a = 0; a < KVS_WAYS; a++)
            for (int b = a + 1; b < KVS_WAYS; b++)
                if (table[s].way[a].key && table[s].way[a].key == table[s].way[b].key &&
                    s < bad)
                    bad = s;
    if (bad == UINT64_MAX)
        return 0;
    for (int a = 0; a < KVS_WAYS; a++)
        for (int b = a + 1; b < KVS_WAYS; b++)
            if (table[bad].way[a].key && table[bad].way[a].key == table[bad].way[b].key)
                return gpm_set_error("kvs: set %llu holds key %llx twice (ways %d and %d)",
                                     (unsigned long long)bad,
                                     (unsigned long long)table[bad].way[a].key, a, b),
                       1;
    return 1;
}

/* Is KEY in ways 0..UPTO-1 of S? */
static int holds(const kvs_set *s, int upto, uint64_t key)
{
    for (int a = 0; a < upto; a++)
        if (s->way[a].key == key)
            return 1;
    return 0;
}

void kvs_count_wrong_keys(const kvs_set *table, const kvs_set *ref, uint64_t nsets,
                          struct wl_wrong *w)
{
    uint64_t bad = 0, total = 0;
#pragma omp parallel for reduction(+ : bad, total) schedule(static)
    for (uint64_t s = 0; s < nsets; s++) {
        const kvs_set *t = &table[s], *r = &ref[s];
        for (int a = 0; a < KVS_WAYS; a++) {
            uint64_t k = r->way[a].key;
            int right = 0;
            if (!k)
                continue;
            for (int b = 0; b < KVS_WAYS && !right; b++)
                right = t->way[b].key == k && t->way[b].val == r->way[a].val;
            total++;
            bad += !right; /* missing, or another value */
        }
        for (int b = 0; b < KVS_WAYS; b++) {
            uint64_t k = t->way[b].key;
            /* A key the reference's set lacks, or a second copy. */
            if (k && (!holds(r, KVS_WAYS, k) || holds(t, b, k)))
                total++, bad++;
        }
    }
    w->units = "keys";
    w->bad += bad;
    w->total += total;
}
