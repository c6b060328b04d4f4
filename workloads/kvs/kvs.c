/* gpKVS: the descriptor, the batches and what they read. Each batch is one
 * transaction of the harness (wl_tx_batch), which makes it failure-atomic
 * the mode's way; gpKVS gives its kernels (or its CPU counterpart), its
 * reference and its layout. On the GPU a batch's kernels are only queued,
 * on gpKVS's stream (c->stream, so the engines queue and wait there too):
 * the engine waits for them once where it needs their end or something
 * back (mode none never), and the GET digests come back once, after the
 * batches (kvs_kernels.cu). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/tx_layout.h"
#include "kvs.h"

static const char *const kvs_ops[] = {"set", "get-set", "ycsb", NULL};
/* YCSB's inserts land in sets its load never wrote: over an older run's
 * files only they show a prepare() whose zeroed table is not durable. */
static const char *const kvs_check_also[] = {"ycsb-d --op ycsb --workload d", NULL};

static const struct wl_param kvs_params[] = {
    {.flag = "sets", .help = "sets of 8 ways (128 bytes each) in the table", .sizes = 1,
     .scale = {1ll << 12, 1ll << 20, 1ll << 25}, .min = 1, .max = 1ll << 31},
    {.flag = "batch", .help = "operations a batch (--op ycsb: 4096 unless given)", .sizes = 1,
     .scale = {1ll << 12, 1ll << 18, 1ll << 21}, .min = 1, .max = 1ll << 28},
    {.flag = "batches", .help = "batches of SETs (get-set runs 4 times as many)", .sizes = 1,
     .scale = {4, 10, 25}, .min = 1, .max = 1ll << 20},
    {.flag = "keys", .help = "distinct keys drawn from (0: 4 a set, half the ways)", .sizes = 1,
     .scale = {0, 0, 0}, .min = 0, .max = 1ll << 40},
    {.flag = "zipf", .help = "Zipfian keys of this skew (0: uniform; --op ycsb: YCSB's 0.99 "
     "unless given)", .type = WL_FLOAT,
     .fscale = {0, 0, 0}, .fmin = 0, .fmax = 0.999},
    {.flag = "store", .help = "cpu mode's store: kvs (gpKVS's own), pmemobj (PMDK) or rocksdb "
     "(Figure 1a)", .type = WL_STR, .sscale = {"kvs", "kvs", "kvs"}},
    WL_TX_PARAMS,
    WL_YCSB_PARAMS, /* --op ycsb */
    {0},
};

static const struct wl_obj_decl kvs_objects[] = {
    [KVS_TABLE] = {"table", WL_OBJ_REGION},
    [KVS_LOG] = {"log", WL_OBJ_TX},
    {NULL, WL_OBJ_REGION},
};

static struct kvs_state *S(struct wl_ctx *c) { return c->priv; }
static int is_ycsb(const struct wl_ctx *c) { return wl_op_index(c) == KVS_OP_YCSB; }

/* --op ycsb: the stream its flags ask for (close it), and what in them
 * gpKVS cannot run. */
static int ycsb_open(struct wl_ctx *c, struct wl_ycsb_stream *y)
{
    static const char *const not_ycsb[] = {"keys", "batches"};
    struct wl_ycsb_args a;
    if (wl_ycsb_args(c, wl_float(c, "zipf"), &a) != 0)
        return -1;
    for (size_t k = 0; k < sizeof not_ycsb / sizeof *not_ycsb; k++)
        if (wl_given(c, not_ycsb[k]))
            return gpm_set_error("--%s: --op ycsb takes its keys and batches from --records, "
                                 "--ops and --batch: drop --%s", not_ycsb[k], not_ycsb[k]);
    if (a.mix->p[WL_YCSB_DELETE] > 0)
        return gpm_set_error("--workload %s: gpKVS has no delete (a full set evicts): use "
                             "another workload, or gphash", a.mix->name);
    return wl_ycsb_stream_open(y, &a, wl_seed(c));
}

/* The batches, the table's sets and the keys drawn from, for layout().
 * --op ycsb runs YCSB's batches of 2^12 at its skew of 0.99 unless told
 * otherwise, and sizes the rest from its stream: --batches the run's,
 * --keys the most it inserts, --sets 2 keys a set (a quarter of the ways)
 * unless given. */
static int size_run(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    struct wl_ycsb_stream y;
    if (is_ycsb(c)) {
        wl_default_int(c, "batch", 4096);
        wl_default_float(c, "zipf", 0.99);
    }
    st->n = (uint64_t)wl_int(c, "batch");
    if (is_ycsb(c)) {
        if (ycsb_open(c, &y) != 0)
            return -1;
        kvs_size_ycsb(st, &y);
        wl_default_int(c, "batches", (long long)(st->batches - st->load_batches));
        wl_default_int(c, "keys", (long long)y.keys);
        wl_default_int(c, "sets", y.keys / 2 ? (long long)(y.keys / 2) : 1);
        wl_ycsb_stream_close(&y);
    } else {
        st->load_batches = 0;
        st->batches = (uint64_t)wl_int(c, "batches") * (wl_op_index(c) == KVS_OP_GET_SET ? 4 : 1);
    }
    st->nsets = (uint64_t)wl_int(c, "sets");
    st->keyspace = wl_int(c, "keys") ? (uint64_t)wl_int(c, "keys") : st->nsets * 4;
    return 0;
}

/* The CPU counterpart's log slots: one for each of its threads (so a
 * recovery takes the --cpu-threads of the crashed run), at most
 * KVS_CPU_SLOTS, and at most the partitions of a conventional log. */
static int cpu_slots(struct wl_ctx *c)
{
    int t = wl_cpu_threads(c) > 0 ? wl_cpu_threads(c) : omp_get_max_threads();
    if (t > KVS_CPU_SLOTS)
        t = KVS_CPU_SLOTS;
    if (wl_tx_partitions(c) && wl_tx_partitions(c) < (uint32_t)t)
        t = (int)wl_tx_partitions(c);
    return t;
}

/* Undo records a logging slot takes in a batch of N SETs. A lane logs
 * each way of a run at most once, and a group heads at most ceil(N /
 * groups) runs; a CPU thread's share of a batch's SETs is N / threads,
 * plus one run that crosses its end. */
static uint64_t log_records(uint64_t n, int cpu_threads)
{
    uint64_t groups = (uint64_t)KVS_LOG_BLOCKS * KVS_LOG_THREADS / 8;
    if (cpu_threads)
        return (n + (uint64_t)cpu_threads - 1) / (uint64_t)cpu_threads + KVS_WAYS;
    return (n + groups - 1) / groups;
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
    if (c->m->needs_gpu)
        return gpm_set_error("--store %s: a CPU store: use --mode cpu", name);
    if (wl_crash_asked(c))
        return gpm_set_error("--store %s: no crash trials: Figure 1a measures its throughput",
                             name);
    return 0;
}

static int kvs_layout(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    uint64_t nsets, n;
    int cpu = !c->m->needs_gpu, slots = cpu_slots(c);
    struct wl_tx_sizes tx;
    if (size_run(c) != 0)
        return -1;
    nsets = st->nsets, n = st->n;
    tx = (struct wl_tx_sizes){
        .region = KVS_TABLE,
        .records = log_records(n, cpu ? slots : 0),
        .blocks = cpu ? 1 : KVS_LOG_BLOCKS,
        .threads = cpu ? (slots + 31) / 32 * 32 : KVS_LOG_THREADS,
        .change_bytes = sizeof(kvs_pair), /* a way */
        .max_changes = n,
        .unit = sizeof(kvs_set), /* gpm-ndp copies and flushes the sets a batch changed */
    };
    if (nsets >= 0xffffffffull)
        return gpm_set_error("--sets: at most %llu", 0xfffffffeull);
    if (pick_store(c) != 0)
        return -1;
    /* Another store keeps its own files: gpKVS's table is left a stub. */
    wl_obj_region(c, KVS_TABLE, S(c)->store ? 4096 : nsets * sizeof(kvs_set));
    if (wl_tx_layout(c, KVS_LOG, &tx) != 0)
        return -1;
    c->data_bytes = nsets * sizeof(kvs_set);
    c->calib_bytes = c->data_bytes;
    /* For --kill random: on the fast side (about 0.5 ns an
     * operation and 30 us a batch on a recent GPU), so that a random kill
     * lands inside the run. */
    c->expected_s = (double)st->batches * ((double)n * 5e-10 + 3e-5) + 0.005;
    return 0;
}

/* What --cap-chunk best sizes the CAP chunk for: the sets the first timed
 * batch's SETs touch. */
static int first_changes(struct wl_ctx *c, uint64_t **off, size_t *n)
{
    struct kvs_state *st = S(c);
    uint64_t b = st->load_batches < st->batches ? st->load_batches : 0;
    *n = 0;
    if (!(*off = malloc(st->n * sizeof **off)))
        return gpm_set_error("kvs: out of memory");
    for (uint64_t i = b * st->n; i < (b + 1) * st->n; i++)
        if (st->h_op[i] & KVS_SET)
            (*off)[(*n)++] = kvs_set_of(st->h_keys[i], st->nsets) * sizeof(kvs_set);
    return 0;
}

static int gen_stream(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    struct wl_ycsb_stream y;
    int rc;
    if (!is_ycsb(c))
        return kvs_gen_keys(st, wl_seed(c), wl_float(c, "zipf"));
    if (ycsb_open(c, &y) != 0)
        return -1;
    rc = kvs_gen_ycsb(st, &y);
    wl_ycsb_stream_close(&y);
    return rc;
}

static int kvs_setup(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    st->set_pct = wl_op_index(c) == KVS_OP_GET_SET ? 5 : wl_op_index(c) == KVS_OP_SET ? 100 : 0;
    st->cpu_slots = cpu_slots(c);
    st->digest = calloc(st->batches, sizeof *st->digest);
    st->lat = calloc(st->batches, sizeof *st->lat);
    if (!st->digest || !st->lat)
        return gpm_set_error("kvs: out of memory");
    if (gen_stream(c) != 0)
        return -1;
    if (!c->m->needs_gpu) { /* gpKVS's CPU counterpart and the other stores */
        st->h_sets = malloc(st->n * sizeof *st->h_sets);
        st->h_idx = malloc(st->n * sizeof *st->h_idx);
        st->h_tmp_sets = malloc(st->n * sizeof *st->h_tmp_sets);
        st->h_tmp_idx = malloc(st->n * sizeof *st->h_tmp_idx);
        if (!st->h_sets || !st->h_idx || !st->h_tmp_sets || !st->h_tmp_idx)
            return gpm_set_error("kvs: out of memory for a batch of %llu",
                                 (unsigned long long)st->n);
        return st->store ? st->store->open(c, st) : wl_tx_setup(c, KVS_LOG, NULL, NULL);
    }
    if (wl_dev_alloc((void **)&st->d_keys, st->batches * st->n * sizeof *st->d_keys) ||
        wl_dev_copy(st->d_keys, st->h_keys, st->batches * st->n * sizeof *st->d_keys, 1) ||
        wl_dev_alloc((void **)&st->d_op, st->batches * st->n) ||
        wl_dev_copy(st->d_op, st->h_op, st->batches * st->n, 1) ||
        wl_dev_alloc((void **)&st->d_table, c->data_bytes) || kvs_gpu_alloc(st) != 0)
        return -1;
    /* The engines queue on the batches' stream, and wait for it alone. */
    c->stream = st->stream;
    st->lat_gpu = wl_tx_in_flight(c);
    return wl_tx_setup(c, KVS_LOG, st->d_table, first_changes);
}

/* Batch B as the mode's engine asks: its GETs read the table as it was,
 * then its SETs change it. On the GPU its kernels are only queued: the
 * engine waits for them where it needs to. */
static int apply(struct wl_ctx *c, uint64_t b, const wl_txdev *d)
{
    struct kvs_state *st = S(c);
    if (!d->gpu)
        return kvs_cpu_apply(c, st, b, &st->digest[b]);
    return kvs_gpu_batch(st, wl_seed(c), b, d);
}

/* Batches FROM..TO-1, and each one's latency: the host's time from its
 * start to its commit, around the engine's one wait for it; or, where the
 * engine waits for none (lat_gpu, mode none), its time on the GPU from its
 * events (kvs_kernels.cu). The GPU's digests come back at the end. */
static int batches(struct wl_ctx *c, uint64_t from, uint64_t to)
{
    struct kvs_state *st = S(c);
    if (st->stream && kvs_gpu_start(st) != 0)
        return -1;
    for (uint64_t b = from; b < to; b++) {
        double t0 = wl_now();
        if (st->store) {
            if (st->store->batch(c, st, b, &st->digest[b]) != 0)
                return -1;
            wl_progress_add(c, 1);
        } else if (wl_tx_batch(c, KVS_LOG, b, apply) != 0) {
            return -1;
        }
        if (!st->lat_gpu)
            st->lat[b] = wl_now() - t0;
    }
    return st->stream ? kvs_gpu_finish(st, from, to) : 0;
}

/* A fresh, empty table (on PM and on the GPU) and a fresh log; --op ycsb:
 * then the load, committed batch by batch, untimed. */
static int kvs_prepare(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    gpm_region *r = wl_region(c, KVS_TABLE);
    st->first_batch = 0;
    if (st->store)
        wl_note(c, "atomic=%s", st->store->atomic);
    /* get-set runs 4 times --batches: the row says how many ran. */
    wl_note(c, "distinct_keys=%llu,run_batches=%llu", (unsigned long long)st->keyspace,
            (unsigned long long)(st->batches - st->load_batches));
    if (is_ycsb(c))
        wl_note(c, "load_ops=%llu,run_ops=%llu", (unsigned long long)st->load_ops,
                (unsigned long long)st->run_ops);
    if (st->store) {
        if (st->store->reset(c, st) != 0)
            return -1;
    } else {
        /* Persisted whole: over an older run's files, a set the load
         * does not rewrite keeps that run's keys in a crash image without
         * it (--op set and get-set, which have no load, or --op ycsb with
         * --workload load or d, whose inserts land in sets the load never
         * touches). Only --op ycsb without inserts (workloads a, b, c,
         * f) over the files of a run with the same flags hides it: its
         * load, before RUNNING, rewrites every word that run wrote. */
        memset(r->host, 0, c->data_bytes);
        if (gpm_region_persist(r, r->host, c->data_bytes) != 0 || wl_tx_reset(c, KVS_LOG) != 0 ||
            (st->d_table && wl_dev_zero(st->d_table, c->data_bytes) != 0) ||
            (st->d_digest && wl_dev_zero(st->d_digest, st->batches * sizeof *st->d_digest) != 0))
            return -1;
    }
    return batches(c, 0, st->load_batches);
}

/* Where the run's batches FROM on spent their time: on the GPU, each
 * phase's kernels (gets_s includes the grouping keys, made by the GET
 * kernel; the rest of batches_s is the host's: the launches, the engine's
 * wait and copies, the transaction's begin and commit), and what the
 * kernels stored to PM, for a roofline: the pairs, and their bytes with
 * their undo records; under --op ycsb, the batches' p50 and p99, as
 * GPHash's rows give them, and the clock they were read on. */
static void note_batches(struct wl_ctx *c, uint64_t from)
{
    struct kvs_state *st = S(c);
    uint64_t n = st->batches - from;
    double *l = st->lat + from, sum = 0;
    for (uint64_t b = 0; b < n; b++)
        sum += l[b];
    if (st->stream)
        wl_note(c, "batches_s=%.4g,gets_s=%.4g,sort_s=%.4g,apply_s=%.4g,pm_records=%llu,"
                "pm_record_bytes=%llu", sum, st->gets_s, st->sort_s, st->apply_s,
                (unsigned long long)st->pm_records, (unsigned long long)st->pm_record_bytes);
    if (is_ycsb(c)) {
        wl_note_batch_latency(c, l, n);
        wl_note(c, "batch_lat=%s", st->lat_gpu ? "gpu" : "host");
    }
}

static int kvs_run(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    if (batches(c, st->load_batches, st->batches) != 0)
        return -1;
    note_batches(c, st->load_batches);
    return 0;
}

/* Undoes the interrupted batch, reloads the GPU's table from PM, and runs
 * the batches after the last committed one. */
static int kvs_recover(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    gpm_region *r = wl_region(c, KVS_TABLE);
    uint64_t done;
    double t0 = wl_now();
    if (wl_tx_recover(c, KVS_LOG, &done) != 0)
        return -1;
    if (done > st->batches || done < st->load_batches)
        return gpm_set_error("%s: the log counts %llu committed batches, not %llu to %llu: "
                             "not this run's", wl_obj_path(c, KVS_LOG), (unsigned long long)done,
                             (unsigned long long)st->load_batches,
                             (unsigned long long)st->batches);
    if (st->d_table && wl_dev_copy(st->d_table, r->host, c->data_bytes, 1) != 0)
        return -1;
    c->restore_s = wl_now() - t0;
    /* Progress counts the run's batches: the load's were done before it. */
    c->progress.total = st->batches - st->load_batches;
    c->progress.durable = done - st->load_batches;
    st->first_batch = done;
    if (batches(c, done, st->batches) != 0)
        return -1;
    c->progress.redone = st->batches - done;
    note_batches(c, done);
    return 0;
}

/* The table on PM must be the reference's after every batch, exactly, and
 * the GETs of the batches this process ran must have read what the
 * reference read: 0, 1 (a difference, message set: the first batch whose
 * GETs differ, else the first set) or -1. Every key of both tables is
 * counted into W whatever the GETs read. */
static int matches_reference(struct wl_ctx *c, struct kvs_state *st, const kvs_set *pm,
                             struct wl_wrong *w)
{
    kvs_set *ref = calloc(st->nsets, sizeof *ref);
    size_t bad;
    int rc = 0;
    if (!ref)
        return gpm_set_error("kvs: out of memory for the reference table");
    for (uint64_t b = 0; b < st->batches; b++) {
        uint64_t d = kvs_ref_batch(st, wl_seed(c), b, ref);
        if (rc == 0 && b >= st->first_batch && d != st->digest[b])
            rc = 1, gpm_set_error("kvs: the GETs of batch %llu read other values than the "
                                  "reference's (digest %llx, reference %llx)",
                                  (unsigned long long)b, (unsigned long long)st->digest[b],
                                  (unsigned long long)d);
    }
    kvs_count_wrong_keys(pm, ref, st->nsets, w);
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
    struct wl_wrong w = {0};
    int rc, logged = !st->store && wl_tx_atomic(c);
    uint64_t committed = logged ? wl_tx_committed(c, KVS_LOG) : 0;
    if (st->store && st->store->verify)
        return st->store->verify(c, st);
    /* The log's count of committed batches is the run's marker. */
    w.marks = logged;
    w.marks_bad = logged && committed != st->batches;
    /* The reference, unless these bytes (the table and the GETs' digests)
     * passed it before; the log's count every time (CAP modes keep none). */
    if (wl_check_digest(c, pm, st->nsets * sizeof *pm, 0) != 0 ||
        wl_check_digest(c, st->digest + st->first_batch,
                        (st->batches - st->first_batch) * sizeof *st->digest, 0) != 0 ||
        (rc = wl_check_known(c)) < 0)
        return -1;
    if (rc == 0) {
        if ((rc = matches_reference(c, st, pm, &w)) == 0)
            rc = wl_check_passed(c);
    } else {
        rc = 0; /* passed before: every key right */
        if (w.marks_bad) /* the count of keys, for the failure's note */
            kvs_count_wrong_keys(pm, pm, st->nsets, &w);
    }
    return wl_tx_verified(c, rc, &w, committed, st->batches, "batches");
}

static void kvs_teardown(struct wl_ctx *c)
{
    struct kvs_state *st = S(c);
    if (st->store)
        st->store->close(st);
    c->stream = NULL; /* destroyed next */
    if (c->m->needs_gpu)
        kvs_gpu_free(st);
    wl_dev_free(st->d_keys); /* all NULL in cpu mode */
    wl_dev_free(st->d_op);
    wl_dev_free(st->d_table);
    kvs_free_stream(st);
    free(st->lat);
    free(st->digest);
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
    /* Failure-atomic modes resume after the last committed batch; CAP reruns. */
    .progress_by = WL_BY_TRANSACTIONS,
    .sbrp = 1, /* its undo log and pairs ordered by oFences, a dFence per thread */
    .objects = kvs_objects,
    .params = kvs_params,
    .check_also = kvs_check_also,
    .state_bytes = sizeof(struct kvs_state),
    .layout = kvs_layout,
    .setup = kvs_setup,
    .prepare = kvs_prepare,
    .run = kvs_run,
    .recover = kvs_recover,
    .verify = kvs_verify,
    .teardown = kvs_teardown,
};
