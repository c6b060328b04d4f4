/* gpKVS in every mode: the descriptor, and which kernels write where. Each
 * batch is one transaction of the harness's helper (wl_tx_*); the CAP
 * modes persist the chunks of the table that the batch touched, without a
 * log, as the paper's CAP did. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/tx_layout.h"
#include "kvs.h"

static const char *const kvs_ops[] = {"set", "get-set", NULL};

static const struct wl_param kvs_params[] = {
    {.flag = "sets", .help = "sets of 8 ways (128 bytes each) in the table", .sizes = 1,
     .scale = {1ll << 12, 1ll << 20, 1ll << 25}, .min = 1, .max = 1ll << 31},
    {.flag = "batch", .help = "operations a batch", .sizes = 1,
     .scale = {1ll << 12, 1ll << 18, 1ll << 21}, .min = 1, .max = 1ll << 28},
    {.flag = "batches", .help = "batches of SETs (get-set runs 4 times as many)", .sizes = 1,
     .scale = {4, 10, 25}, .min = 1, .max = 1ll << 20},
    {.flag = "keys", .help = "distinct keys drawn from (0: 4 a set, half the ways)", .sizes = 1,
     .scale = {0, 0, 0}, .min = 0, .max = 1ll << 40},
    {.flag = "zipf", .help = "Zipfian keys of this skew (0: uniform)", .type = WL_FLOAT,
     .fscale = {0, 0, 0}, .fmin = 0, .fmax = 0.999},
    {.flag = "cap-chunk", .help = "CAP: bytes persisted around each change: best (measured) "
     "or a power of two", .type = WL_STR, .sscale = {"best", "best", "best"}},
    {.flag = "store", .help = "cpu mode's store: kvs (gpKVS's own), pmemobj (PMDK) or rocksdb "
     "(Figure 1a)", .type = WL_STR, .sscale = {"kvs", "kvs", "kvs"}},
    WL_TX_PARAMS,
    {0},
};

static const struct wl_obj_decl kvs_objects[] = {
    [KVS_TABLE] = {"table", WL_OBJ_REGION},
    [KVS_LOG] = {"log", WL_OBJ_LOG},
    {NULL, WL_OBJ_REGION},
};

static struct kvs_state *S(struct wl_ctx *c) { return c->priv; }

static uint64_t batches_of(struct wl_ctx *c)
{
    uint64_t b = (uint64_t)wl_int(c, "batches");
    return c->opt.op == KVS_OP_GET_SET ? 4 * b : b;
}

/* The CPU counterpart's log slots: one for each of its threads (so a
 * recovery takes the --cpu-threads of the crashed run), at most
 * KVS_CPU_SLOTS, and at most the partitions of a conventional log. */
static int cpu_slots(struct wl_ctx *c)
{
    int t = c->opt.cpu_threads > 0 ? c->opt.cpu_threads : omp_get_max_threads();
    if (t > KVS_CPU_SLOTS)
        t = KVS_CPU_SLOTS;
    if (strcmp(wl_str(c, "log"), "conv") == 0 && wl_int(c, "partitions") < t)
        t = (int)wl_int(c, "partitions");
    return t;
}

/* Undo records of 16 bytes and their footer. A lane logs each way of a run
 * at most once, and a group heads at most ceil(N / groups) runs; a CPU
 * thread's share of a batch's SETs is N / threads, plus one run that
 * crosses its end. */
static size_t log_bytes(struct wl_ctx *c, uint64_t n, int cpu_threads)
{
    size_t rec = gpmtx_record_bytes(sizeof(kvs_pair));
    uint64_t groups = (uint64_t)KVS_LOG_BLOCKS * KVS_LOG_THREADS / 8, per_slot, slots;
    int conv = strcmp(wl_str(c, "log"), "conv") == 0;
    if (cpu_threads) {
        per_slot = (n + (uint64_t)cpu_threads - 1) / (uint64_t)cpu_threads + KVS_WAYS;
        slots = conv ? (uint64_t)wl_int(c, "partitions") : (uint64_t)(cpu_threads + 31) / 32 * 32;
        return (size_t)(slots * per_slot * rec);
    }
    per_slot = (n + groups - 1) / groups;
    if (conv) {
        uint64_t p = (uint64_t)wl_int(c, "partitions");
        return (size_t)(p * gpmlog_conv_share((uint32_t)p, KVS_LOG_BLOCKS, KVS_LOG_THREADS) *
                        per_slot * rec);
    }
    return (size_t)KVS_LOG_BLOCKS * KVS_LOG_THREADS * per_slot * rec;
}

/* --store: gpKVS's own table, or one of Figure 1a's CPU stores. */
static int pick_store(struct wl_ctx *c)
{
    const char *name = wl_str(c, "store");
    const struct kvs_store_ops *const stores[] = {&kvs_pmemobj_store, &kvs_rocksdb_store};
    S(c)->store = NULL;
    if (strcmp(name, "kvs") == 0)
        return 0;
    for (size_t k = 0; k < sizeof stores / sizeof stores[0]; k++)
        if (strcmp(name, stores[k]->name) == 0)
            S(c)->store = stores[k];
    if (!S(c)->store)
        return gpm_set_error("--store: unknown store '%s': use kvs, pmemobj or rocksdb", name);
    if (c->opt.mode != WL_CPU)
        return gpm_set_error("--store %s: a CPU store: use --mode cpu", name);
    if (c->opt.recover || c->opt.crash_before_commit)
        return gpm_set_error("--store %s: no crash trials: Figure 1a measures its throughput",
                             name);
    return 0;
}

static int kvs_layout(struct wl_ctx *c)
{
    uint64_t nsets = (uint64_t)wl_int(c, "sets"), n = (uint64_t)wl_int(c, "batch");
    int cpu = c->opt.mode == WL_CPU, slots = cpu_slots(c);
    size_t chunk;
    if (nsets >= 0xffffffffull)
        return gpm_set_error("--sets: at most %llu", 0xfffffffeull);
    if (wl_cap_chunk_arg(c, &chunk) != 0 || pick_store(c) != 0)
        return -1;
    /* Another store keeps its own files: gpKVS's table is left a stub. */
    wl_obj_region(c, KVS_TABLE, S(c)->store ? 4096 : nsets * sizeof(kvs_set));
    if (wl_tx_layout(c, KVS_LOG, log_bytes(c, n, cpu ? slots : 0), cpu ? 1 : KVS_LOG_BLOCKS,
                     cpu ? (slots + 31) / 32 * 32 : KVS_LOG_THREADS) != 0 ||
        wl_tx_delta_layout(c, KVS_LOG, KVS_TABLE, sizeof(kvs_pair), n) != 0)
        return -1;
    c->data_bytes = nsets * sizeof(kvs_set);
    c->calib_bytes = c->data_bytes;
    /* For --crash-after random: on the fast side (about 0.5 ns an
     * operation and 30 us a batch on a recent GPU), so that a random kill
     * lands inside the run. */
    c->expected_s = (double)batches_of(c) * ((double)n * 5e-10 + 3e-5) + 0.005;
    return 0;
}

/* What --cap-chunk best sizes the CAP chunk for: the sets the first
 * batch's SETs touch. */
static int first_changes(struct wl_ctx *c, uint64_t **off, size_t *n)
{
    struct kvs_state *st = S(c);
    *n = 0;
    if (!(*off = malloc(st->n * sizeof **off)))
        return gpm_set_error("kvs: out of memory");
    for (uint64_t i = 0; i < st->n; i++)
        if (kvs_is_set(c->opt.seed, 0, st->n, i, st->set_pct))
            (*off)[(*n)++] = kvs_set_of(st->h_keys[i], st->nsets) * sizeof(kvs_set);
    return 0;
}

static int kvs_setup(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    uint64_t keys = (uint64_t)wl_int(c, "keys");
    st->nsets = (uint64_t)wl_int(c, "sets");
    st->n = (uint64_t)wl_int(c, "batch");
    st->batches = batches_of(c);
    st->keyspace = keys ? keys : st->nsets * 4;
    st->set_pct = c->opt.op == KVS_OP_GET_SET ? 5 : 100;
    st->cpu_slots = cpu_slots(c);
    st->digest = calloc(st->batches, sizeof *st->digest);
    if (!st->digest || kvs_gen_keys(st, c->opt.seed, wl_float(c, "zipf")) != 0)
        return st->digest ? -1 : gpm_set_error("kvs: out of memory");
    if (wl_cap_chunk(c, first_changes, &st->chunk) != 0 ||
        (st->store && st->store->open(c, st) != 0))
        return -1;
    if (c->opt.mode == WL_CPU) {
        st->h_sets = malloc(st->n * sizeof *st->h_sets);
        st->h_idx = malloc(st->n * sizeof *st->h_idx);
        st->h_tmp_sets = malloc(st->n * sizeof *st->h_tmp_sets);
        st->h_tmp_idx = malloc(st->n * sizeof *st->h_tmp_idx);
        if (!st->h_sets || !st->h_idx || !st->h_tmp_sets || !st->h_tmp_idx)
            return gpm_set_error("kvs: out of memory for a batch of %llu",
                                 (unsigned long long)st->n);
        return 0;
    }
    {
        uint64_t nflags = c->data_bytes / st->chunk + 1;
        uint64_t dirty = c->m->kernels_write_pm ? st->n : nflags;
        if (wl_dev_alloc((void **)&st->d_keys, st->batches * st->n * sizeof *st->d_keys) ||
            wl_dev_copy(st->d_keys, st->h_keys, st->batches * st->n * sizeof *st->d_keys, 1) ||
            wl_dev_alloc((void **)&st->d_table, c->data_bytes) ||
            wl_dev_alloc((void **)&st->d_sets, st->n * 4) ||
            wl_dev_alloc((void **)&st->d_idx, st->n * 4) ||
            wl_dev_alloc((void **)&st->d_sets_sorted, st->n * 4) ||
            wl_dev_alloc((void **)&st->d_idx_sorted, st->n * 4) ||
            wl_dev_alloc((void **)&st->d_dirty, dirty * 4) || wl_dev_zero(st->d_dirty, dirty * 4) ||
            wl_dev_alloc((void **)&st->d_counts, 4 * sizeof *st->d_counts) ||
            kvs_gpu_alloc_sort(st) != 0)
            return -1;
        st->ranges = malloc(dirty * sizeof *st->ranges);
        st->h_flags = malloc(dirty * 4);
        if (!st->ranges || !st->h_flags)
            return gpm_set_error("kvs: out of memory for the commit lists");
    }
    return 0;
}

/* A fresh, empty table (on PM and on the GPU) and a fresh log. */
static int kvs_prepare(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    gpm_region *r = wl_region(c, KVS_TABLE);
    st->first_batch = 0;
    if (st->store) {
        wl_note(c, "atomic=%s,distinct_keys=%llu", st->store->atomic,
                (unsigned long long)st->keyspace);
        return st->store->reset(c, st);
    }
    memset(r->host, 0, c->data_bytes);
    if (gpm_region_persist(r, r->host, c->data_bytes) != 0 || wl_tx_reset(c, KVS_LOG) != 0)
        return -1;
    wl_note(c, "distinct_keys=%llu", (unsigned long long)st->keyspace);
    return c->opt.mode == WL_CPU ? 0 : wl_dev_zero(st->d_table, c->data_bytes);
}

/* The changed sets (gpm-ndp) or the touched chunks (CAP) as ranges of the
 * table; SRC the device table where the mode copies from it. */
static int dirty_ranges(struct wl_ctx *c, struct kvs_state *st, int chunks, int *nr)
{
    uint64_t count = 0;
    int k = 0;
    if (chunks) {
        uint64_t nflags = c->data_bytes / st->chunk + 1;
        if (wl_dev_copy(st->h_flags, st->d_dirty, nflags * 4, 0) != 0)
            return -1;
        *nr = wl_chunk_ranges(st->h_flags, nflags, st->chunk, 0, c->data_bytes, st->d_table,
                              st->ranges);
        return wl_dev_zero(st->d_dirty, nflags * 4);
    }
    if (wl_dev_copy(&count, &st->d_counts[0], sizeof count, 0) != 0 ||
        wl_dev_copy(st->h_flags, st->d_dirty, count * 4, 0) != 0)
        return -1;
    for (uint64_t d = 0; d < count; d++)
        st->ranges[k++] = (gpm_range){(size_t)st->h_flags[d] * sizeof(kvs_set), sizeof(kvs_set),
                                      NULL};
    *nr = k;
    return 0;
}

static int gpu_batch(struct wl_ctx *c, struct kvs_state *st, uint64_t b)
{
    uint64_t seed = c->opt.seed, pairs = 0;
    gpm_region *r = wl_region(c, KVS_TABLE);
    gpmlog_dev log;
    int nr = 0;
    if (kvs_gpu_gets(st, seed, b, &st->digest[b]) != 0 || kvs_gpu_sort(st, seed, b) != 0)
        return -1;
    if (c->m->engine == WL_ENGINE_DELTA) {
        /* cap-delta: the device table and a record of each changed pair;
         * the CPU logs the records, commits, applies them to PM. */
        wl_delta d = wl_tx_delta_dev(c, KVS_LOG);
        return wl_tx_begin(c, KVS_LOG) ||
                       kvs_gpu_apply(st, seed, b, NULL, wl_out_of(c), NULL, 0, 0, &d) ||
                       wl_tx_logged(c, KVS_LOG) || wl_tx_commit(c, KVS_LOG)
                   ? -1
                   : 0;
    }
    if (!c->m->kernels_write_pm) {
        /* CAP: the device table, then the chunks it touched, no log. */
        return kvs_gpu_apply(st, seed, b, NULL, wl_out_of(c), NULL, 0,
                             wl_chunk_shift(st->chunk), NULL) ||
                       dirty_ranges(c, st, 1, &nr) || wl_commit(c, KVS_TABLE, st->ranges, nr)
                   ? -1
                   : 0;
    }
    log = wl_log_dev(c, KVS_LOG);
    if (wl_tx_begin(c, KVS_LOG) != 0)
        return -1;
    if (c->m->fences) {
        /* gpm, gpm-eadr: log and store and persist in one kernel. */
        int rc;
        if (wl_persist_begin(c) != 0)
            return -1;
        rc = kvs_gpu_apply(st, seed, b, (kvs_set *)r->dev, wl_out_of(c), &log, 0, 0, NULL);
        if (wl_persist_end(c) != 0 || rc != 0 ||
            wl_dev_copy(&pairs, &st->d_counts[1], sizeof pairs, 0) != 0)
            return -1;
        c->bytes_persisted += (double)pairs * sizeof(kvs_pair);
        return wl_tx_commit(c, KVS_LOG);
    }
    /* gpm-ndp: log (and update the device table), the CPU flushes the log,
     * then the changed sets go to PM and the CPU flushes them. */
    if (kvs_gpu_apply(st, seed, b, NULL, wl_out_of(c), &log, 1, 0, NULL) != 0 ||
        wl_tx_logged(c, KVS_LOG) != 0 || dirty_ranges(c, st, 0, &nr) != 0 ||
        kvs_gpu_copy_dirty(st, (kvs_set *)r->dev, (uint64_t)nr) != 0 ||
        wl_commit(c, KVS_TABLE, st->ranges, nr) != 0)
        return -1;
    return wl_tx_commit(c, KVS_LOG);
}

static int batches_from(struct wl_ctx *c, uint64_t from)
{
    struct kvs_state *st = S(c);
    for (uint64_t b = from; b < st->batches; b++) {
        int rc = st->store               ? st->store->batch(c, st, b, &st->digest[b])
                 : c->opt.mode == WL_CPU ? kvs_cpu_batch(c, st, b, &st->digest[b])
                                         : gpu_batch(c, st, b);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int kvs_run(struct wl_ctx *c) { return batches_from(c, 0); }

/* Undoes the interrupted batch, reloads the GPU's table from PM, and runs
 * the batches after the last committed one. */
static int kvs_recover(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    gpm_region *r = wl_region(c, KVS_TABLE);
    uint64_t done;
    double t0 = wl_now();
    if (wl_tx_recover(c, KVS_LOG, KVS_TABLE, &done) != 0)
        return -1;
    if (done > st->batches)
        return gpm_set_error("%s: the log counts %llu committed batches of %llu: not this run's",
                             c->obj[KVS_LOG].path, (unsigned long long)done,
                             (unsigned long long)st->batches);
    if (c->opt.mode != WL_CPU && wl_dev_copy(st->d_table, r->host, c->data_bytes, 1) != 0)
        return -1;
    c->restore_s = wl_now() - t0;
    c->progress.total = st->batches;
    c->progress.durable = done;
    st->first_batch = done;
    if (batches_from(c, done) != 0)
        return -1;
    c->progress.redone = st->batches - done;
    return 0;
}

/* The table on PM must be the reference's after every batch, exactly, and
 * the GETs of the batches this process ran must have read what the
 * reference read: 0, 1 (a difference, message set) or -1. */
static int matches_reference(struct wl_ctx *c, struct kvs_state *st, const kvs_set *pm)
{
    kvs_set *ref = calloc(st->nsets, sizeof *ref);
    size_t bad;
    int rc = 0;
    if (!ref)
        return gpm_set_error("kvs: out of memory for the reference table");
    for (uint64_t b = 0; b < st->batches && rc == 0; b++) {
        uint64_t d = kvs_ref_batch(st, c->opt.seed, b, ref);
        if (b >= st->first_batch && d != st->digest[b])
            rc = 1, gpm_set_error("kvs: the GETs of batch %llu read other values than the "
                                  "reference's (digest %llx, reference %llx)",
                                  (unsigned long long)b, (unsigned long long)st->digest[b],
                                  (unsigned long long)d);
    }
    if (rc == 0 && (bad = wl_first_difference(pm, ref, st->nsets, sizeof *ref)) < st->nsets)
        rc = 1, gpm_set_error("kvs: set %llu on PM differs from the reference after %llu "
                              "batches", (unsigned long long)bad,
                              (unsigned long long)st->batches);
    if (rc == 0)
        rc = kvs_check_unique(pm, st->nsets);
    free(ref);
    return rc;
}

static int kvs_verify(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    const kvs_set *pm = st->store_table ? st->store_table : wl_region(c, KVS_TABLE)->host;
    int rc;
    if (st->store && st->store->verify)
        return st->store->verify(c, st);
    /* The reference, unless these bytes (the table and the GETs' digests)
     * passed it before; the log's count every time (CAP modes keep none). */
    if (wl_check_digest(c, pm, st->nsets * sizeof *pm, 0) != 0 ||
        wl_check_digest(c, st->digest + st->first_batch,
                        (st->batches - st->first_batch) * sizeof *st->digest, 0) != 0 ||
        (rc = wl_check_known(c)) < 0)
        return -1;
    if (rc == 0 && ((rc = matches_reference(c, st, pm)) != 0 || (rc = wl_check_passed(c)) != 0))
        return rc;
    if (!st->store && wl_tx_atomic(c) && wl_tx_committed(c, KVS_LOG) != st->batches)
        return gpm_set_error("kvs: the log counts %llu committed batches of %llu",
                             (unsigned long long)wl_tx_committed(c, KVS_LOG),
                             (unsigned long long)st->batches),
               1;
    return 0;
}

static void kvs_teardown(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    if (st->store)
        st->store->close(st);
    wl_dev_free(st->d_keys); /* all NULL in cpu mode */
    wl_dev_free(st->d_table);
    wl_dev_free(st->d_sets);
    wl_dev_free(st->d_idx);
    wl_dev_free(st->d_sets_sorted);
    wl_dev_free(st->d_idx_sorted);
    wl_dev_free(st->d_sort_tmp);
    wl_dev_free(st->d_dirty);
    wl_dev_free(st->d_counts);
    free(st->h_keys);
    free(st->h_nsetops);
    free(st->digest);
    free(st->h_flags);
    free(st->ranges);
    free(st->h_sets);
    free(st->h_idx);
    free(st->h_tmp_sets);
    free(st->h_tmp_idx);
}

const struct wl_workload WORKLOAD = {
    .name = "kvs",
    .about = "gpKVS: batched SETs and GETs on an 8-way set-associative hash table on PM, "
             "each batch a failure-atomic transaction (paper 4.1, Figures 1a and 9)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CAP_DELTA) | WL_MODE_BIT(WL_CPU),
    .ops = kvs_ops,
    /* The logged modes resume after the last committed batch; CAP reruns. */
    .resume_modes = WL_MODE_BIT(WL_GPM) | WL_MODE_BIT(WL_GPM_NDP) | WL_MODE_BIT(WL_GPM_EADR) |
                    WL_MODE_BIT(WL_CAP_DELTA) | WL_MODE_BIT(WL_CPU),
    .objects = kvs_objects,
    .params = kvs_params,
    .state_bytes = sizeof(struct kvs_state),
    .layout = kvs_layout,
    .setup = kvs_setup,
    .prepare = kvs_prepare,
    .run = kvs_run,
    .recover = kvs_recover,
    .verify = kvs_verify,
    .teardown = kvs_teardown,
};
