/* GPHash in every mode it runs: the descriptor the harness drives. A run
 * is a YCSB stream in batches: the load (prepare(), untimed; the timed
 * work itself for --workload load), then the run.
 *
 * Where the kernels persist in-kernel (gpm, gpm-eadr), and in the CPU
 * counterpart, each batch's operations are durable one by one, log-free,
 * as they complete; after each batch the count of batches done is written
 * to the table's header. A recovery clears the slots an insert had claimed
 * and not finished, then redoes the batch the crash cut and goes on:
 * redoing it ends as doing it once would (gph_step), so what was durable
 * of it is simply found again.
 *
 * Where they cannot fence (gpm-ndp, the CAP modes, cap-delta) nothing
 * orders a slot's stores on PM, so each batch is a transaction of the
 * harness (wl_tx_batch): the kernels change the table's device copy, and
 * the mode's engine makes the batch durable, failure-atomic where it logs.
 * Mode none keeps the table in device memory and makes nothing durable. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gphash.h"
#include "gpm/args.h"
#include "gpm/log_layout.h"
#include "gpm/tx_layout.h"

static const struct wl_param gph_params[] = {
    WL_YCSB_PARAMS,
    {.flag = "batch", .help = "operations a batch (2^10 to 2^20 in the paper)",
     .scale = {4096, 4096, 4096}, .min = 32, .max = 1 << 24},
    {.flag = "key-bytes", .help = "8 (YCSB's key as a number) or 32 (its record name)",
     .sizes = 1, .scale = {32, 32, 32}, .min = 8, .max = 32},
    {.flag = "value-bytes", .help = "bytes of a value, a multiple of 8", .sizes = 1,
     .scale = {128, 128, 128}, .min = 8, .max = 128},
    {.flag = "slots", .help = "slots a bucket: 2, 4 or 8 (four candidate buckets: 8 fill a "
     "warp)", .sizes = 1, .scale = {8, 8, 8}, .min = 2, .max = 8},
    {.flag = "buckets", .help = "top-level buckets, a power of two (0: enough for the keys "
     "at a load factor of 0.7)", .sizes = 1, .scale = {0, 0, 0}, .min = 0, .max = 1ll << 34},
    {.flag = "zipf", .help = "Zipfian skew (YCSB's 0.99)", .type = WL_FLOAT,
     .fscale = {0.99, 0.99, 0.99}, .fmin = 0.01, .fmax = 0.999},
    {.flag = "mirror", .help = "1: a write-through copy of the table in GPU memory serves "
     "every lookup, so that only writes cross to PM; 0: lookups read PM, through BktCache "
     "(gpm, gpm-eadr)", .scale = {1, 1, 1}, .min = 0, .max = 1},
    {.flag = "cache", .help = "BktCache: percent of the buckets cached in GPU memory (gpm, "
     "gpm-eadr with --mirror 0; 0: none)", .scale = {20, 20, 20}, .min = 0, .max = 100},
    {.flag = "cache-reload", .help = "batches between BktCache's loading phases (its cached "
     "buckets are frozen between them)", .scale = {64, 256, 1024}, .min = 1, .max = 1ll << 30},
    {.flag = "cache-loading", .help = "BktCache's loading phases: concurrent (on a stream of "
     "their own, beside the batches) or blocking (between them)", .type = WL_STR,
     .sscale = {"concurrent", "concurrent", "concurrent"}},
    WL_TX_PARAMS, /* the modes whose batches are transactions */
    {0},
};

static const struct wl_obj_decl gph_objects[] = {
    [GPH_TABLE] = {"table", WL_OBJ_REGION},
    [GPH_LOG] = {"log", WL_OBJ_TX},
    {NULL, WL_OBJ_REGION},
};

static struct gph_state *S(struct wl_ctx *c) { return c->priv; }
static int is_cpu(const struct wl_ctx *c) { return !c->m->needs_gpu; }
/* Are the batches transactions (GPU modes whose kernels do not persist,
 * but none)? */
static int in_tx(const struct wl_ctx *c) { return wl_batches_in_tx(c->m); }
static uint8_t *pm(struct wl_ctx *c) { return wl_region(c, GPH_TABLE)->host; }
static int ycsb_args(const struct wl_ctx *c, struct wl_ycsb_args *a)
{
    return wl_ycsb_args(c, wl_float(c, "zipf"), a);
}

/* The transaction's sizes: a batch changes a state or a reference at most
 * once a run of one key (an insert's claim, an update's swing, a delete),
 * each logged once, a thread of the logging grid a record at a time; its
 * changes are 8-byte words, each a redo record of cap-delta: at most a
 * state, a reference, a key and a value a run. gpm-ndp copies the 64-byte
 * lines around the changes to PM and flushes them. */
static int tx_layout(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    uint64_t slots = (uint64_t)GPH_LOG_BLOCKS * GPH_LOG_THREADS;
    struct wl_tx_sizes tx = {
        .region = GPH_TABLE,
        .records = (st->batch + slots - 1) / slots,
        .blocks = GPH_LOG_BLOCKS,
        .threads = GPH_LOG_THREADS,
        .change_bytes = 8,
        .max_changes = st->batch * (2 + st->g.kw + st->g.vbytes / 8),
        .unit = 64,
    };
    if (!in_tx(c))
        return wl_tx_unused(c, GPH_LOG);
    return wl_tx_layout(c, GPH_LOG, &tx);
}

static int gph_layout(struct wl_ctx *c)
{
    static const char *const loadings[] = {"concurrent", "blocking", NULL};
    struct gph_state *st = S(c);
    int loading;
    long long kb = wl_int(c, "key-bytes"), vb = wl_int(c, "value-bytes"),
              slots = wl_int(c, "slots"), top = wl_int(c, "buckets");
    struct wl_ycsb_args a;
    struct wl_ycsb_stream y;
    uint64_t keys, bytes;
    if (ycsb_args(c, &a) != 0)
        return -1;
    st->mix = a.mix;
    if (kb != 8 && kb != 32)
        return gpm_set_error("--key-bytes %lld: pass 8 or 32", kb);
    if (vb % 8)
        return gpm_set_error("--value-bytes %lld: pass a multiple of 8 from 8 to 128", vb);
    if (slots != 2 && slots != 4 && slots != 8)
        return gpm_set_error("--slots %lld: pass 2, 4 or 8", slots);
    if (top && (top < 2 || (top & (top - 1))))
        return gpm_set_error("--buckets %lld: pass a power of two (or 0 to size it)", top);
    /* The table is sized for the stream's keys. */
    if (wl_ycsb_stream_open(&y, &a, wl_seed(c)) != 0)
        return -1;
    keys = y.keys;
    wl_ycsb_stream_close(&y);
    st->g.slots = (uint32_t)slots;
    st->g.kw = (uint32_t)kb / 8;
    st->g.vbytes = (uint32_t)vb;
    st->g.top = top ? (uint64_t)top : 64;
    while (!top && (double)gph_slots(&st->g) * 0.7 < (double)keys)
        st->g.top *= 2;
    st->batch = (uint64_t)wl_int(c, "batch");
    /* The mirror and BktCache serve kernels that would read PM: not a
     * device copy of the table, not the CPU counterpart; BktCache only
     * where there is no mirror. */
    st->mirror = c->m->fences && wl_int(c, "mirror");
    if (!c->m->fences && wl_given(c, "mirror"))
        return gpm_set_error("--mirror: mode %s %s: drop --mirror", c->m->name,
                             c->m->needs_gpu ? "works on a copy of the table in GPU memory "
                                               "already"
                                             : "runs on the CPU, on the mapping itself");
    if (c->m->fences && !st->mirror)
        st->cache_entries = gph_buckets(&st->g) * (uint64_t)wl_int(c, "cache") / 100;
    else if (wl_given(c, "cache") && wl_int(c, "cache"))
        return gpm_set_error("--cache: mode %s%s has no BktCache (it caches PM's buckets for "
                             "kernels that read PM): drop --cache%s", c->m->name,
                             st->mirror ? " with the mirror" : "",
                             st->mirror ? ", or pass --mirror 0" : "");
    st->cache_every = (uint64_t)wl_int(c, "cache-reload");
    if (gpm_arg_choice("--cache-loading", wl_str(c, "cache-loading"), loadings, &loading) != 0)
        return -1;
    st->cache_concurrent = loading == 0;
    bytes = gph_file_bytes(&st->g);
    wl_obj_region(c, GPH_TABLE, bytes);
    c->data_bytes = bytes;
    c->calib_bytes = st->batch * st->g.vbytes;
    c->expected_s = (double)(wl_int(c, "records") + wl_int(c, "ops")) / 20e6 + 0.01;
    return tx_layout(c);
}

/* What --cap-chunk best sizes the CAP chunk for: where the first timed
 * batch's writes land, each taken at its key's first candidate slot (the
 * slot itself is known only when the kernels run). */
static int first_changes(struct wl_ctx *c, uint64_t **off, size_t *n)
{
    struct gph_state *st = S(c);
    const struct gph_geom *g = &st->g;
    uint64_t b = st->load_batches < st->batches ? st->load_batches : 0,
             from = b * st->batch, to = from + gph_batch_ops(st, b);
    *n = 0;
    if (!(*off = malloc(4 * (to - from) * sizeof **off)))
        return gpm_set_error("gphash: out of memory");
    for (uint64_t i = from; i < to; i++) {
        uint64_t slot;
        if (st->h_op[i] == GPH_READ)
            continue;
        slot = gph_top(g, st->h_key + i * g->kw, 1) * g->slots;
        (*off)[(*n)++] = gph_state_at(g, slot);
        (*off)[(*n)++] = gph_ref_at(g, slot);
        (*off)[(*n)++] = gph_key_at(g, slot);
        (*off)[(*n)++] = gph_cell_at(g, 2 * slot);
    }
    return 0;
}

static int gph_setup(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    struct wl_ycsb_args a;
    if (ycsb_args(c, &a) != 0 || gph_make_stream(st, &a, wl_seed(c)) != 0)
        return -1;
    st->lat = malloc((st->batches ? st->batches : 1) * sizeof *st->lat);
    if (!st->lat)
        return gpm_set_error("out of memory");
    if (is_cpu(c))
        return gph_cpu_alloc(st);
    if (gph_gpu_alloc(st) != 0 || gph_gpu_pin(st) != 0 || gph_gpu_cache_alloc(st) != 0)
        return -1;
    if ((!c->m->fences || st->mirror) &&
        (wl_dev_alloc((void **)&st->d_table, wl_obj_bytes(c, GPH_TABLE)) != 0 ||
         wl_dev_zero(st->d_table, wl_obj_bytes(c, GPH_TABLE)) != 0))
        return -1;
    return in_tx(c) ? wl_tx_setup(c, GPH_LOG, st->d_table, first_changes) : 0;
}

/* Every state of PM EMPTY: those that are not stored and persisted, by
 * the CPU's threads (a state is a word of each record, spread over the
 * file). */
static int clear_states(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    uint64_t n = gph_slots(&st->g);
    uint8_t *base = pm(c);
    int failed = 0;
#pragma omp parallel for schedule(static)
    for (uint64_t s = 0; s < n; s++) {
        uint64_t *p = gph_word(base, gph_state_at(&st->g, s));
        if (*p == GPH_EMPTY)
            continue;
        *p = GPH_EMPTY;
        if (wl_pm_persist(c, GPH_TABLE, p, 8) != 0)
            __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
    }
    return failed ? -1 : 0;
}

/* An empty table: every state EMPTY, the header saying no batch is done. */
static int reset(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    struct gph_header h = {GPH_MAGIC, st->g.top, st->g.slots, st->g.kw, st->g.vbytes, 0,
                           gph_done_word(c->epoch, 0)};
    if (st->d_table && wl_dev_zero(st->d_table, wl_obj_bytes(c, GPH_TABLE)) != 0)
        return -1;
    if (wl_durable(c) && clear_states(c) != 0)
        return -1;
    /* Persisted here, though on the CPU the first batch's done word
     * (batch()) lies in the header's line and writes it back with it:
     * where the load is in prepare() that is before RUNNING, but under
     * --workload load the run's first batch is, and until then a recovery
     * finds no magic on a fresh file and refuses (gpm-check flags it); in
     * the GPU modes the GPU's fence never writes back the CPU's line. A
     * header an older run left persisted (same geometry) cannot pass for
     * this run's: its done word has that run's epoch, so
     * gph_durable_batches() counts 0. */
    if (wl_pm_write(c, GPH_TABLE, 0, &h, sizeof h) != 0)
        return -1;
    /* A transaction's engine copies chunks of the device copy to PM, the
     * header's among them: the copy holds it too. */
    return in_tx(c) ? wl_dev_copy(st->d_table, &h, sizeof h, 1) || wl_tx_reset(c, GPH_LOG) : 0;
}

/* A transaction's batch, as its engine asks: the kernels change the device
 * copy and give the engine each change. The engine counts the batch as
 * progress, so the kernels count nothing. (d->pm is NULL in these modes:
 * the kernels log after they change the copy, before anything reaches PM.) */
static int apply(struct wl_ctx *c, uint64_t b, const wl_txdev *d)
{
    struct gph_state *st = S(c);
    wl_out o = d->o;
    o.progress = NULL;
    return gph_gpu_batch(st, NULL, b, 0, o, d, 0);
}

static int check_full(struct gph_state *st)
{
    if (st->full)
        return gpm_set_error("--buckets: the table is full (%llu inserts found no free slot "
                             "among their %u candidates): pass a larger --buckets",
                             (unsigned long long)st->full, GPH_CANDIDATES * st->g.slots);
    return 0;
}

/* Does the GPU run the batches in flight, one after another, timing them
 * itself (pipelined)? Not in the CPU counterpart, nor where a batch is a
 * transaction whose engine waits for it. */
static int pipelined(const struct wl_ctx *c) { return !is_cpu(c) && !in_tx(c); }

/* Batch B, then the count of batches done (written by the GPU after the
 * batch where its kernels persist; none in mode none). TIMED: its units
 * count as progress (the load's do not). */
static int batch(struct wl_ctx *c, uint64_t b, int timed)
{
    struct gph_state *st = S(c);
    uint64_t done = gph_done_word(c->epoch, b + 1);
    wl_out o = wl_out_of(c);
    if (in_tx(c))
        return wl_tx_batch(c, GPH_LOG, b, apply) || check_full(st);
    if (is_cpu(c))
        return gph_cpu_batch(c, st, b, timed) || check_full(st) ||
               wl_pm_write(c, GPH_TABLE, offsetof(struct gph_header, done), &done, 8);
    if (!timed)
        o.progress = NULL;
    if (!c->m->fences) /* none: nothing reaches PM */
        return gph_gpu_batch(st, NULL, b, 0, o, NULL, 0) || check_full(st);
    return gph_gpu_batch(st, wl_pm_dev(c, GPH_TABLE), b, timed, o, NULL, done) || check_full(st);
}

/* Before the run's batch B: a loading phase that is done gives lookups its
 * entries; every cache-reload batches another begins, once the last is
 * done (the first batches find the cache empty). The batches' wait for
 * either is timed. */
static int cache_step(struct wl_ctx *c, uint64_t b)
{
    struct gph_state *st = S(c);
    double t0 = wl_now();
    int rc;
    if (!st->cache_entries || b <= st->load_batches)
        return 0;
    rc = gph_gpu_cache_poll(st, wl_pm_dev(c, GPH_TABLE)) ||
         ((b - st->load_batches) % st->cache_every == 0 &&
          gph_gpu_cache_load(st, wl_pm_dev(c, GPH_TABLE)));
    st->cache_load_s += wl_now() - t0;
    return rc;
}

/* Batches FROM..TO-1 (the run's timed, each batch's wall time kept). */
static int batches(struct wl_ctx *c, uint64_t from, uint64_t to)
{
    struct gph_state *st = S(c);
    int rc = wl_persist_begin(c);
    for (uint64_t b = from; rc == 0 && b < to; b++) {
        double t0 = wl_now();
        rc = cache_step(c, b) || batch(c, b, b >= st->load_batches);
        if (!pipelined(c)) /* else the pipe's events time it */
            st->lat[b] = wl_now() - t0;
    }
    if (pipelined(c) && gph_gpu_drain(st) != 0)
        rc = -1;
    /* A loading phase still running is of no more use: waited for. */
    if (st->cache_entries && gph_gpu_cache_settle(st) != 0)
        rc = -1;
    return wl_persist_end(c) != 0 ? -1 : rc;
}

static int gph_prepare(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    st->first_checked = 0;
    return reset(c) || batches(c, 0, st->load_batches) ? -1 : 0;
}

/* What the kernels of the batches FROM on wrote to PM and read of it, for
 * the roofline (make roofline): records written and then persisted (an
 * insert's run of bytes and its fingerprint, after its claim where lookups
 * read PM; an update's cell and its reference; a delete's state; each
 * batch's count of batches done), their bytes, and the reads of PM (a
 * lookup's states, key, reference and value; those BktCache served, of
 * states, keys and references, not counted). */
static void note_pm_traffic(struct wl_ctx *c, uint64_t from)
{
    struct gph_state *st = S(c);
    uint64_t head = gph_head_bytes(&st->g), v = st->g.vbytes, claims = st->mirror ? 0 : 1,
             batches = st->batches - from, records = 0, bytes = 0, reads = 0;
    double served = st->lookups ? (double)st->hits / (double)st->lookups : 0;
    if (c->m->fences) {
        records = st->inserts * (2 + claims) + st->updates * 2 + st->deletes + batches;
        bytes = st->inserts * (head + v + 8 + 8 * claims) + st->updates * (v + 8) +
                (st->deletes + batches) * 8;
        if (!st->mirror)
            reads = st->key_runs + (uint64_t)((double)st->key_runs * 3 * (1 - served));
    }
    wl_note(c, "mirror=%d,run_batches=%llu,key_runs=%llu,inserts=%llu,updates=%llu,"
            "deletes=%llu,pm_records=%llu,pm_record_bytes=%llu,pm_reads=%llu", st->mirror,
            (unsigned long long)batches, (unsigned long long)st->key_runs,
            (unsigned long long)st->inserts, (unsigned long long)st->updates,
            (unsigned long long)st->deletes, (unsigned long long)records,
            (unsigned long long)bytes, (unsigned long long)reads);
}

/* The row's notes on the run's batches FROM on. */
static void note_run(struct wl_ctx *c, uint64_t from)
{
    struct gph_state *st = S(c);
    uint64_t n = st->batches - from;
    double *l = st->lat + from;
    wl_note(c, "run_ops=%llu,load_ops=%llu,top_buckets=%llu,cas_retries=%llu",
            (unsigned long long)st->run_ops, (unsigned long long)st->load_ops,
            (unsigned long long)st->g.top, (unsigned long long)st->retries);
    if (!is_cpu(c)) {
        wl_note(c, "kernel_s=%.6g", st->kernel_s);
        note_pm_traffic(c, from);
    }
    if (st->cache_entries)
        wl_note(c, "bktcache_entries=%llu,bktcache_loading=%s,bktcache_loads=%llu,"
                "bktcache_swaps=%llu,bktcache_refetched=%llu,bktcache_load_s=%.4g,"
                "bktcache_hit_rate=%.4f", (unsigned long long)st->cache_entries,
                st->cache_concurrent ? "concurrent" : "blocking",
                (unsigned long long)st->cache_loads, (unsigned long long)st->cache_swaps,
                (unsigned long long)st->cache_refetched, st->cache_load_s,
                st->lookups ? (double)st->hits / (double)st->lookups : 0.0);
    wl_note_batch_latency(c, l, n);
}

/* Mode none: the table reaches the mapping for verification only. */
static int volatile_copy(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    gpm_range r = {0, wl_obj_bytes(c, GPH_TABLE), st->d_table};
    return !wl_durable(c) ? wl_commit(c, GPH_TABLE, &r, 1) : 0;
}

/* The run's counts start at zero. */
static int zero_counts(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    st->kernel_s = st->cache_load_s = 0;
    st->retries = st->lookups = st->hits = st->cache_loads = st->cache_swaps = 0;
    st->cache_refetched = 0;
    return is_cpu(c) ? 0 : gph_gpu_zero_counts(st) || gph_gpu_cache_reset(st);
}

static int gph_run(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    if (zero_counts(c) != 0 || batches(c, st->load_batches, st->batches) != 0 ||
        volatile_copy(c) != 0)
        return -1;
    note_run(c, st->load_batches);
    return 0;
}

/* Does the table's header describe this run's table, with D of its batches
 * done, the load's among them? */
static int describes_run(const struct gph_state *st, const struct gph_header *h, uint64_t d)
{
    return d >= st->load_batches && d <= st->batches && h->magic == GPH_MAGIC &&
           h->top == st->g.top && h->slots == st->g.slots && h->kw == st->g.kw &&
           h->vbytes == st->g.vbytes;
}

/* The batches from D on, after a recovery, and the row's notes on them. */
static int resume(struct wl_ctx *c, uint64_t d)
{
    struct gph_state *st = S(c);
    if (zero_counts(c) != 0 || batches(c, d, st->batches) != 0)
        return -1;
    note_run(c, d);
    wl_note(c, "resumed_from_batch=%llu", (unsigned long long)d);
    return 0;
}

/* A transaction's batches: the interrupted one undone (or, cap-delta, a
 * committed one applied), the device copy reloaded from PM, the batches
 * after the last committed one run. Each batch is whole or absent, so the
 * next one's answers are checked too. */
static int tx_recover(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    const struct gph_header *h = (const struct gph_header *)pm(c);
    uint64_t d;
    double t0 = wl_now();
    if (wl_tx_recover(c, GPH_LOG, &d) != 0)
        return -1;
    if (!describes_run(st, h, d))
        return gpm_set_error("%s: it and its log (%llu batches committed) do not describe this "
                             "run's table after its load: run without --recover",
                             wl_obj_path(c, GPH_TABLE), (unsigned long long)d);
    if (wl_dev_copy(st->d_table, pm(c), wl_obj_bytes(c, GPH_TABLE), 1) != 0)
        return -1;
    c->restore_s = wl_now() - t0;
    st->first_checked = d;
    c->progress.total = st->batches - st->load_batches;
    c->progress.durable = d - st->load_batches;
    c->progress.redone = st->batches - d;
    return resume(c, d);
}

static int gph_recover(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    const struct gph_header *h = (const struct gph_header *)pm(c);
    uint64_t d = gph_durable_batches(h->done, c->epoch), cleared = 0, items = 0, from;
    double t0 = wl_now();
    int rc;
    if (in_tx(c))
        return tx_recover(c);
    if (!describes_run(st, h, d))
        return gpm_set_error("%s: its header does not describe this run's table after its "
                             "load: run without --recover", wl_obj_path(c, GPH_TABLE));
    if (is_cpu(c))
        rc = gph_cpu_scan(c, st, &cleared, &items);
    else
        rc = wl_persist_begin(c) || gph_gpu_scan(st, wl_pm_dev(c, GPH_TABLE), wl_out_of(c),
                                                  &cleared, &items) ||
             wl_persist_end(c);
    /* The mirror: what PM holds now, every lookup's from here on. */
    if (rc == 0 && st->mirror)
        rc = wl_dev_copy(st->d_table, pm(c), wl_obj_bytes(c, GPH_TABLE), 1);
    if (rc != 0)
        return -1;
    c->restore_s = wl_now() - t0;
    /* The batch the crash cut (if any) is redone whole; its answers then
     * meet a table that already holds part of it, so they are not checked. */
    st->first_checked = d + 1;
    from = (d - st->load_batches) * st->batch;
    c->progress.total = st->run_ops;
    c->progress.durable = from < st->run_ops ? from : st->run_ops;
    c->progress.redone = c->progress.total - c->progress.durable;
    if (resume(c, d) != 0)
        return -1;
    wl_note(c, "insert_slots_cleared=%llu,items_found=%llu", (unsigned long long)cleared,
            (unsigned long long)items);
    return 0;
}

static int gph_verify(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    int logged = in_tx(c) && wl_tx_atomic(c);
    uint64_t committed = logged ? wl_tx_committed(c, GPH_LOG) : 0;
    /* The log's count of committed batches is the run's marker, where it
     * keeps one. */
    struct wl_wrong w = {.marks = logged, .marks_bad = logged && committed != st->batches};
    int rc = gph_check(st, pm(c), st->first_checked, &w);
    return wl_tx_verified(c, rc, &w, committed, st->batches, "batches");
}

static void gph_teardown(struct wl_ctx *c)
{
    struct gph_state *st = S(c);
    if (!is_cpu(c)) {
        gph_gpu_unpin(st);
        gph_gpu_free(st);
        gph_gpu_cache_free(st);
        wl_dev_free(st->d_table);
    }
    free(st->h_op);
    free(st->h_key);
    free(st->h_ans);
    free(st->lat);
    free(st->h_pairs);
    free(st->h_heads);
}

/* Only with the load as the run does a recovery depend on the header that
 * reset() persists (see there). */
static const char *const gph_check_also[] = {"load --workload load", NULL};

const struct wl_workload WORKLOAD = {
    .name = "gphash",
    .about = "GPHash: a lock-free, log-free persistent hash index, warp-cooperative, driven "
             "by YCSB (FAST'25, after GPM)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CAP_DELTA) | WL_MODE_BIT(WL_CPU),
    /* Each operation is durable as it completes where the kernels persist
     * in-kernel (or the CPU counterpart persists), each batch where it is
     * a failure-atomic transaction: there a crashed run resumes. */
    .progress_by = WL_BY_MARKERS_OR_TX,
    .objects = gph_objects,
    .params = gph_params,
    .check_also = gph_check_also,
    .state_bytes = sizeof(struct gph_state),
    .layout = gph_layout,
    .setup = gph_setup,
    .prepare = gph_prepare,
    .run = gph_run,
    .recover = gph_recover,
    .verify = gph_verify,
    .teardown = gph_teardown,
};
