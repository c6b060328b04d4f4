/* Figure 1a's RocksDB baseline, unmodified, through its C API: its WAL and
 * SST files in the PM directory beside gpKVS's; each batch's GETs read
 * with OpenMP threads, then its SETs written as one synced WriteBatch, in
 * key order.
 * RocksDB keeps every key (gpKVS's 8-way sets may evict one), so its check
 * is a plain map of the last value of every key, replayed batch by batch,
 * then set beside RocksDB's keys in order. */
#include <omp.h>
#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvs.h"

/* A SET of the batch: its key and its place in the batch. */
struct put {
    uint64_t key, i;
};

struct rdb {
    struct put *puts; /* a batch's SETs, sorted */
    rocksdb_t *db;
    rocksdb_options_t *opt;
    rocksdb_writeoptions_t *wo;
    rocksdb_readoptions_t *ro;
    char path[4200];
};

static struct rdb *R(struct kvs_state *st) { return st->store_priv; }

/* Keys big-endian, so that RocksDB's order is the keys' order. */
static void key_bytes(uint64_t k, char out[8])
{
    for (int i = 0; i < 8; i++)
        out[i] = (char)(k >> (56 - 8 * i));
}

static uint64_t key_of(const char kb[8])
{
    uint64_t k = 0;
    for (int i = 0; i < 8; i++)
        k = k << 8 | (unsigned char)kb[i];
    return k;
}

static int failed_with(const char *what, const char *path, char *err)
{
    int rc = gpm_set_error("%s: RocksDB %s: %s", path, what, err ? err : "?");
    free(err);
    return rc;
}

static int rdb_open(struct wl_ctx *c, struct kvs_state *st)
{
    struct rdb *r = calloc(1, sizeof *r);
    if (!r)
        return gpm_set_error("kvs: out of memory");
    snprintf(r->path, sizeof r->path, "%s.rocksdb", wl_obj_path(c, KVS_TABLE));
    st->store_priv = r;
    r->opt = rocksdb_options_create();
    r->wo = rocksdb_writeoptions_create();
    r->ro = rocksdb_readoptions_create();
    rocksdb_options_set_create_if_missing(r->opt, 1);
    rocksdb_options_increase_parallelism(r->opt, c->threads > 0 ? c->threads : 1);
    rocksdb_writeoptions_set_sync(r->wo, 1); /* each batch durable when written */
    return 0;
}

/* An empty database (the old one destroyed): every repetition starts from
 * nothing, as gpKVS's does. */
static int rdb_reset(struct wl_ctx *c, struct kvs_state *st)
{
    struct rdb *r = R(st);
    char *err = NULL;
    (void)c;
    if (r->db)
        rocksdb_close(r->db);
    r->db = NULL;
    rocksdb_destroy_db(r->opt, r->path, &err);
    free(err); /* none there yet is fine */
    err = NULL;
    r->db = rocksdb_open(r->opt, r->path, &err);
    return r->db ? 0 : failed_with("open", r->path, err);
}

/* The value of KEY, 0 where absent (as gpKVS's GET reads a missing key). */
static int get_value(struct rdb *r, uint64_t key, uint64_t *val, char **err)
{
    char kb[8];
    size_t len = 0;
    char *v;
    key_bytes(key, kb);
    v = rocksdb_get(r->db, r->ro, kb, sizeof kb, &len, err);
    *val = 0;
    if (v && len == sizeof *val)
        memcpy(val, v, sizeof *val);
    rocksdb_free(v);
    return *err ? -1 : 0;
}

/* Key order, equal keys in batch order, so that the last SET of a key still
 * wins. RocksDB's memtable inserts a key that follows the previous one from
 * where that one went: a sorted WriteBatch went in 2.6x faster than the
 * batch's random order (small scale, 2 cores), sort included, as a careful
 * user loading batches into RocksDB would write it. */
static int put_order(const void *a, const void *b)
{
    const struct put *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int rdb_batch(struct wl_ctx *c, struct kvs_state *st, uint64_t b, uint64_t *digest)
{
    struct rdb *r = R(st);
    const uint64_t *keys = st->h_keys + b * st->n;
    const uint8_t *op = st->h_op + b * st->n;
    uint64_t seed = wl_seed(c), d = 0, m = 0;
    rocksdb_writebatch_t *wb;
    char *err = NULL;
    int failed = 0;
    if (st->h_ngets[b]) {
#pragma omp parallel for num_threads(c->threads) reduction(+ : d) reduction(| : failed)
        for (uint64_t i = 0; i < st->n; i++) {
            uint64_t val;
            char *e = NULL;
            if (!(op[i] & KVS_GET))
                continue;
            if (get_value(r, keys[i], &val, &e) != 0) {
                free(e);
                failed = 1;
                continue;
            }
            d += kvs_get_digest(i, val);
        }
    }
    if (failed)
        return gpm_set_error("%s: a RocksDB get failed in batch %llu", r->path,
                             (unsigned long long)b);
    *digest = d;
    if (!r->puts && !(r->puts = malloc(st->n * sizeof *r->puts)))
        return gpm_set_error("kvs: out of memory for a batch of %llu SETs",
                             (unsigned long long)st->n);
    for (uint64_t i = 0; i < st->n; i++)
        if (op[i] & KVS_SET)
            r->puts[m++] = (struct put){keys[i], i};
    qsort(r->puts, m, sizeof *r->puts, put_order);
    wb = rocksdb_writebatch_create();
    for (uint64_t j = 0; j < m; j++) {
        char kb[8];
        uint64_t val = kvs_value(seed, b, st->n, r->puts[j].i);
        key_bytes(r->puts[j].key, kb);
        rocksdb_writebatch_put(wb, kb, sizeof kb, (const char *)&val, sizeof val);
    }
    rocksdb_write(r->db, r->wo, wb, &err);
    rocksdb_writebatch_destroy(wb);
    if (err)
        return failed_with("write", r->path, err);
    c->bytes_persisted += (double)st->h_nsetops[b] * 2 * sizeof(uint64_t);
    return 0;
}

/* ---- the check: a map of every key's last value ---- */

struct map {
    uint64_t *key, *val, mask;
};

static uint64_t *slot(struct map *m, uint64_t key)
{
    uint64_t h = gpm_mix64(key) & m->mask;
    while (m->key[h] && m->key[h] != key)
        h = (h + 1) & m->mask;
    return &m->key[h];
}

static uint64_t map_get(struct map *m, uint64_t key)
{
    uint64_t *k = slot(m, key);
    return *k ? m->val[k - m->key] : 0;
}

static void map_put(struct map *m, uint64_t key, uint64_t val)
{
    uint64_t *k = slot(m, key);
    *k = key;
    m->val[k - m->key] = val;
}

/* ---- the final comparison: ordered scans beside the map's sorted keys ---- */

struct kv {
    uint64_t key, val;
};

static int kv_order(const void *a, const void *b)
{
    const struct kv *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Walks RocksDB's keys from FROM (up to END, or to its last key where LAST)
 * beside E[0..N), sorted: counts the keys of E missing or holding another
 * value, and the keys RocksDB holds that E has not (also added to
 * *STRAY). */
static uint64_t scan_range(struct rdb *r, const struct kv *e, uint64_t n, uint64_t from,
                           uint64_t end, int last, uint64_t *stray)
{
    rocksdb_iterator_t *it = rocksdb_create_iterator(r->db, r->ro);
    uint64_t bad = 0, j = 0;
    char kb[8], *err = NULL;
    key_bytes(from, kb);
    rocksdb_iter_seek(it, kb, sizeof kb);
    for (; rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
        size_t klen, vlen;
        const char *k = rocksdb_iter_key(it, &klen), *v = rocksdb_iter_value(it, &vlen);
        uint64_t key = klen == 8 ? key_of(k) : 0, val = 0;
        if (!last && key >= end)
            break;
        if (vlen == sizeof val)
            memcpy(&val, v, sizeof val);
        while (j < n && e[j].key < key) /* in the map, not in RocksDB */
            bad++, j++;
        if (j < n && e[j].key == key && klen == 8)
            bad += val != e[j].val, j++;
        else
            bad++, (*stray)++; /* in RocksDB, never SET */
    }
    rocksdb_iter_get_error(it, &err);
    if (err) /* the scan stopped short: what it did not reach counts below */
        bad++, free(err);
    rocksdb_iter_destroy(it);
    return bad + (n - j);
}

/* RocksDB must hold every key of the map with its value, and no other key.
 * Gets of every key in random order took minutes at paper scale; sorted key
 * ranges walked with iterators, one range a thread at a time, read the SST
 * files in order. *BAD_OUT gets the keys that are wrong, *KEYS_OUT those of
 * the map and those RocksDB holds besides. */
static int compare_all(struct rdb *r, struct map *m, uint64_t cap, uint64_t *bad_out,
                       uint64_t *keys_out)
{
    enum { RANGES = 256 };
    uint64_t lo = UINT64_MAX, hi = 0, n = 0, start[RANGES + 1] = {0}, fill[RANGES], width;
    uint64_t bad = 0, stray = 0;
    struct kv *e;
    for (uint64_t h = 0; h < cap; h++)
        if (m->key[h]) {
            n++;
            lo = m->key[h] < lo ? m->key[h] : lo;
            hi = m->key[h] > hi ? m->key[h] : hi;
        }
    if (n == 0) {
        *bad_out = scan_range(r, NULL, 0, 0, 0, 1, &stray);
        *keys_out = stray;
        return 0;
    }
    width = (hi - lo) / RANGES + 1;
    if (!(e = malloc(n * sizeof *e)))
        return -1;
    for (uint64_t h = 0; h < cap; h++) /* range i's keys: e[start[i] .. start[i + 1]) */
        if (m->key[h])
            start[(m->key[h] - lo) / width + 1]++;
    for (int i = 0; i < RANGES; i++) {
        start[i + 1] += start[i];
        fill[i] = start[i];
    }
    for (uint64_t h = 0; h < cap; h++)
        if (m->key[h])
            e[fill[(m->key[h] - lo) / width]++] = (struct kv){m->key[h], m->val[h]};
    /* Range i holds keys lo + i*width up to the next range's; the first
     * scan starts at key 0 and the last runs to RocksDB's end, so that a
     * key outside the map's span is found too. */
#pragma omp parallel for schedule(dynamic) reduction(+ : bad, stray)
    for (int i = 0; i < RANGES; i++) {
        qsort(e + start[i], start[i + 1] - start[i], sizeof *e, kv_order);
        bad += scan_range(r, e + start[i], start[i + 1] - start[i], i ? lo + i * width : 0,
                          lo + (i + 1) * width, i == RANGES - 1, &stray);
    }
    free(e);
    *bad_out = bad;
    *keys_out = n + stray;
    return 0;
}

/* Every batch's GETs must have read what the map held before it, and at
 * the end RocksDB must hold every key's last value and no other key. */
static int rdb_verify(struct wl_ctx *c, struct kvs_state *st)
{
    struct rdb *r = R(st);
    uint64_t seed = wl_seed(c), cap = 1, total = 0, bad = 0, keys = 0;
    struct wl_wrong w = {.units = "keys"};
    struct map m;
    int rc = 0;
    for (uint64_t b = 0; b < st->batches; b++)
        total += st->h_nsetops[b];
    while (cap < 2 * total + 2)
        cap <<= 1;
    m.mask = cap - 1;
    m.key = calloc(cap, sizeof *m.key);
    m.val = calloc(cap, sizeof *m.val);
    if (!m.key || !m.val) {
        free(m.key), free(m.val);
        return gpm_set_error("kvs: out of memory for the check's map of %llu keys",
                             (unsigned long long)total);
    }
    for (uint64_t b = 0; b < st->batches; b++) {
        const uint64_t *keys = st->h_keys + b * st->n;
        const uint8_t *op = st->h_op + b * st->n;
        uint64_t d = 0;
        if (st->h_ngets[b]) {
#pragma omp parallel for reduction(+ : d)
            for (uint64_t i = 0; i < st->n; i++)
                if (op[i] & KVS_GET)
                    d += kvs_get_digest(i, map_get(&m, keys[i]));
        }
        if (rc == 0 && d != st->digest[b])
            rc = 1, gpm_set_error("kvs: the GETs of batch %llu read other values than a map's "
                                  "(RocksDB digest %llx, map %llx)",
                                  (unsigned long long)b, (unsigned long long)st->digest[b],
                                  (unsigned long long)d);
        for (uint64_t i = 0; i < st->n; i++)
            if (op[i] & KVS_SET)
                map_put(&m, keys[i], kvs_value(seed, b, st->n, i));
    }
    /* Every key compared, whatever the GETs read: the measure. */
    if (compare_all(r, &m, cap, &bad, &keys) != 0) {
        free(m.key), free(m.val);
        return gpm_set_error("kvs: out of memory for the check's sorted keys");
    }
    if (rc == 0 && bad)
        rc = 1, gpm_set_error("kvs: %llu keys in RocksDB (%s) are missing, hold another "
                              "value than their last SET, or were never SET",
                              (unsigned long long)bad, r->path);
    free(m.key), free(m.val);
    w.bad = bad;
    w.total = keys;
    if (rc == 1)
        wl_note_wrong(c, &w);
    return rc;
}

static void rdb_close(struct kvs_state *st)
{
    struct rdb *r = R(st);
    char *err = NULL;
    if (!r)
        return;
    if (r->db) {
        rocksdb_close(r->db);
        rocksdb_destroy_db(r->opt, r->path, &err);
        free(err);
    }
    rocksdb_readoptions_destroy(r->ro);
    rocksdb_writeoptions_destroy(r->wo);
    rocksdb_options_destroy(r->opt);
    free(r->puts);
    free(r);
    st->store_priv = NULL;
}

/* A WriteBatch is written whole or not at all: each batch is atomic. */
const struct kvs_store_ops kvs_rocksdb_store = {"rocksdb", "yes", rdb_open, rdb_reset,
                                                rdb_batch, rdb_verify, rdb_close};
