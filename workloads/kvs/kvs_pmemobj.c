/* Figure 1a's PMDK baseline: gpKVS's table (the same 8-way sets, the same
 * placement) in a libpmemobj pool, each run of a batch's SETs to one set
 * updated in a libpmemobj transaction, as PMDK users write transactional
 * PM code; OpenMP threads take disjoint sets. The pool lives in the PM
 * directory beside gpKVS's files. */
#include <libpmemobj.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvs.h"

#define LAYOUT "gpmbench-kvs"

struct root {
    PMEMoid table;
    uint64_t nsets;
};

struct pool {
    PMEMobjpool *pop;
    char path[4200];
};

static struct pool *P(struct kvs_state *st) { return st->store_priv; }

static int pm_open(struct wl_ctx *c, struct kvs_state *st)
{
    struct pool *p = calloc(1, sizeof *p);
    if (!p)
        return gpm_set_error("kvs: out of memory");
    snprintf(p->path, sizeof p->path, "%s.pmemobj", wl_obj_path(c, KVS_TABLE));
    st->store_priv = p;
    return 0;
}

/* A new pool holding an empty table (the old one, if any, is removed:
 * every repetition starts from nothing, as gpKVS's does). */
static int pm_reset(struct wl_ctx *c, struct kvs_state *st)
{
    struct pool *p = P(st);
    size_t bytes = st->nsets * sizeof(kvs_set);
    struct root *root;
    (void)c;
    if (p->pop)
        pmemobj_close(p->pop);
    unlink(p->path);
    /* The table, the allocator's headers and PMDK's minimum pool. */
    p->pop = pmemobj_create(p->path, LAYOUT, bytes + bytes / 16 + PMEMOBJ_MIN_POOL * 2, 0600);
    if (!p->pop)
        return gpm_set_error("%s: cannot create the libpmemobj pool: %s", p->path,
                             pmemobj_errormsg());
    root = pmemobj_direct(pmemobj_root(p->pop, sizeof *root));
    if (!root || pmemobj_zalloc(p->pop, &root->table, bytes, 1) != 0)
        return gpm_set_error("%s: cannot allocate a table of %zu bytes: %s", p->path, bytes,
                             pmemobj_errormsg());
    root->nsets = st->nsets;
    pmemobj_persist(p->pop, root, sizeof *root);
    st->store_table = pmemobj_direct(root->table);
    return 0;
}

/* One run of the sorted SETs (all of set SETS[P]), one transaction. */
static int pm_run(PMEMobjpool *pop, const struct kvs_state *st, uint64_t seed, uint64_t b,
                  uint64_t p, uint64_t m)
{
    kvs_set *s = st->store_table + st->h_sets[p];
    const uint64_t *keys = st->h_keys + b * st->n;
    volatile int rc = 0; /* set after the transaction's longjmp */
    TX_BEGIN(pop)
    {
        pmemobj_tx_add_range_direct(s, sizeof *s);
        for (uint64_t q = p; q < m && st->h_sets[q] == st->h_sets[p]; q++) {
            uint64_t i = st->h_idx[q];
            uint32_t w = kvs_way_in(s, keys[i]);
            s->way[w].key = keys[i];
            s->way[w].val = kvs_value(seed, b, st->n, i);
        }
    }
    TX_ONABORT { rc = -1; }
    TX_END
    return rc;
}

static int pm_batch(struct wl_ctx *c, struct kvs_state *st, uint64_t b, uint64_t *digest)
{
    PMEMobjpool *pop = P(st)->pop;
    uint64_t seed = wl_seed(c), m = st->h_nsetops[b], sets = 0;
    int failed = 0;
    *digest = kvs_gets_digest(st, b, st->store_table);
    kvs_sort_host(st, b, st->h_sets, st->h_idx, st->h_tmp_sets, st->h_tmp_idx);
#pragma omp parallel num_threads(c->threads) reduction(+ : sets) reduction(| : failed)
    {
        uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        for (uint64_t p = m * t / nt; p < m * (t + 1) / nt && !failed; p++) {
            if (p > 0 && st->h_sets[p] == st->h_sets[p - 1])
                continue;
            failed |= pm_run(pop, st, seed, b, p, m) != 0;
            sets++;
        }
    }
    if (failed)
        return gpm_set_error("kvs: batch %llu: a libpmemobj transaction aborted: %s",
                             (unsigned long long)b, pmemobj_errormsg());
    c->bytes_persisted += (double)sets * sizeof(kvs_set);
    return 0;
}

static void pm_close(struct kvs_state *st)
{
    struct pool *p = P(st);
    if (!p)
        return;
    if (p->pop) {
        pmemobj_close(p->pop);
        unlink(p->path);
    }
    free(p);
    st->store_priv = NULL;
}

/* The table is gpKVS's: kvs_verify compares it with the reference. */
const struct kvs_store_ops kvs_pmemobj_store = {"pmemobj", "per-set", pm_open, pm_reset,
                                               pm_batch, NULL, pm_close};
