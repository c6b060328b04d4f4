/* gpDB in every mode: the descriptor, and which kernels write where. Each
 * INSERT batch and each UPDATE statement is one transaction of the
 * harness's helper (wl_tx_*): INSERT logs only the row count (a
 * conventional log of one partition, one thread), UPDATE the old image of
 * every row it changes (--log, HCL by default). The CAP modes persist what
 * changed without a log, as the paper's CAP did. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "gpm/tx_layout.h"

static const char *const db_ops[] = {"insert", "update", NULL};

static const struct wl_param db_params[] = {
    {.flag = "rows", .help = "rows in the table before the run", .sizes = 1,
     .scale = {1ll << 14, 1ll << 20, 50000000}, .min = 1, .max = 1ll << 32},
    /* Small: 256K rows a batch, so that ten batches take milliseconds on an
     * H100 and the crash trials' kills land between commits, not inside the
     * jitter of their timing (64K rows took 1.4 ms for all ten). */
    {.flag = "batch", .help = "INSERT: rows a batch", .sizes = 1,
     .scale = {1ll << 10, 1ll << 18, 1ll << 20}, .min = 1, .max = 1ll << 30},
    {.flag = "batches", .help = "INSERT: batches", .sizes = 1, .scale = {4, 10, 25}, .min = 1,
     .max = 1ll << 20},
    /* Small: sixteen statements, so that the crash trials' kills land
     * between commits: four took 1.2 ms on an H100, and 35 of 40 kills
     * drawn from that time found no commit. */
    {.flag = "statements", .help = "UPDATE: statements (each selects about 5% of the rows)",
     .sizes = 1, .scale = {2, 16, 4}, .min = 1, .max = 1ll << 20},
    {.flag = "cap-chunk", .help = "CAP: bytes persisted around each changed row: best "
     "(measured) or a power of two", .type = WL_STR, .sscale = {"best", "best", "best"}},
    WL_TX_PARAMS,
    {0},
};

static const struct wl_obj_decl db_objects[] = {
    [DB_TABLE] = {"table", WL_OBJ_REGION},
    [DB_LOG] = {"log", WL_OBJ_LOG},
    {NULL, WL_OBJ_REGION},
};

static struct db_state *S(struct wl_ctx *c) { return c->priv; }
static int inserting(const struct wl_ctx *c) { return c->opt.op == DB_OP_INSERT; }

static int cpu_slots(struct wl_ctx *c)
{
    int t = c->opt.cpu_threads > 0 ? c->opt.cpu_threads : omp_get_max_threads();
    if (t > DB_CPU_SLOTS)
        t = DB_CPU_SLOTS;
    if (strcmp(wl_str(c, "log"), "conv") == 0 && wl_int(c, "partitions") < t)
        t = (int)wl_int(c, "partitions");
    return t;
}

/* c0 % 20 of every row, which decides what each statement changes. */
static int predicate_column(struct db_state *st, uint64_t seed)
{
    st->h_c0mod = malloc(st->rows);
    if (!st->h_c0mod)
        return gpm_set_error("db: out of memory for %llu rows", (unsigned long long)st->rows);
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < st->rows; k++) {
        db_row x = db_row_gen(seed, k);
        st->h_c0mod[k] = (uint8_t)((uint32_t)x.c[0] % DB_MATCH_MOD);
    }
    return 0;
}

/* The most rows one statement changes (cap-delta's redo log holds them). */
static uint64_t most_changed(const struct db_state *st)
{
    uint64_t n[DB_MATCH_MOD] = {0}, most = 0;
    for (uint64_t r = 0; r < st->rows; r++)
        n[st->h_c0mod[r]]++;
    for (uint64_t u = 0; u < st->steps && u < DB_MATCH_MOD; u++)
        most = n[u] > most ? n[u] : most;
    return most;
}

static int db_layout(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    int cpu = c->opt.mode == WL_CPU;
    size_t chunk;
    st->rows = (uint64_t)wl_int(c, "rows");
    st->batch = (uint64_t)wl_int(c, "batch");
    st->steps = (uint64_t)wl_int(c, inserting(c) ? "batches" : "statements");
    st->cap = st->rows + (inserting(c) ? st->steps * st->batch : 0);
    st->cpu_slots = cpu_slots(c);
    if (wl_cap_chunk_arg(c, &chunk) != 0)
        return -1;
    if (st->cap >= 0xffffffffull)
        return gpm_set_error("--rows: the table would hold %llu rows, more than %llu",
                             (unsigned long long)st->cap, 0xfffffffeull);
    wl_obj_region(c, DB_TABLE, db_row_off(st->cap));
    if (inserting(c)) {
        /* One record, the old count, a transaction (cap-delta: the new). */
        wl_obj_log_conv(c, DB_LOG, 4096, 1);
        if (wl_tx_delta_layout(c, DB_LOG, DB_TABLE, sizeof(uint64_t), 1) != 0)
            return -1;
    } else {
        /* The log holds, for every slot, the most rows one slot changes in a
         * statement, counted exactly from the predicate's column. */
        uint64_t slots = cpu ? (uint64_t)(st->cpu_slots + 31) / 32 * 32
                             : (uint64_t)DB_LOG_BLOCKS * DB_LOG_THREADS;
        size_t rec = gpmtx_record_bytes(DB_ROW_BYTES);
        if (predicate_column(st, c->opt.seed) != 0)
            return -1;
        st->max_matches = db_max_matches(st, cpu ? (uint64_t)st->cpu_slots : slots, !cpu);
        if (strcmp(wl_str(c, "log"), "conv") == 0)
            slots = (uint64_t)wl_int(c, "partitions") *
                    (cpu ? 1
                         : gpmlog_conv_share((uint32_t)wl_int(c, "partitions"), DB_LOG_BLOCKS,
                                             DB_LOG_THREADS));
        if (wl_tx_layout(c, DB_LOG, (size_t)slots * (st->max_matches + 1) * rec,
                         cpu ? 1 : DB_LOG_BLOCKS,
                         cpu ? (st->cpu_slots + 31) / 32 * 32 : DB_LOG_THREADS) != 0 ||
            wl_tx_delta_layout(c, DB_LOG, DB_TABLE, DB_ROW_BYTES, most_changed(st)) != 0)
            return -1;
    }
    c->data_bytes = db_row_off(st->cap);
    c->calib_bytes = c->data_bytes;
    /* For --crash-after random: on the fast side (a row in about 0.1 ns on
     * the GPU, 20 us a step), so that a random kill lands inside the run. */
    c->expected_s = (double)st->steps *
                        ((double)(inserting(c) ? st->batch : st->rows) * 1e-10 + 2e-5) +
                    0.005;
    return 0;
}

/* What --cap-chunk best sizes the CAP chunk for: the rows the first
 * UPDATE changes (an INSERT persists its new rows as one range: none). */
static int first_changes(struct wl_ctx *c, uint64_t **off, size_t *n)
{
    struct db_state *st = S(c);
    uint64_t k = 0;
    *off = NULL;
    *n = 0;
    for (uint64_t r = 0; !inserting(c) && r < st->rows; r++)
        *n += st->h_c0mod[r] == 0;
    if (*n && !(*off = malloc(*n * sizeof **off)))
        return gpm_set_error("db: out of memory");
    for (uint64_t r = 0; k < *n; r++)
        if (st->h_c0mod[r] == 0)
            (*off)[k++] = db_row_off(r);
    return 0;
}

static int db_setup(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    uint64_t nflags, list;
    if (wl_cap_chunk(c, first_changes, &st->chunk) != 0)
        return -1;
    if (c->opt.mode == WL_CPU)
        return 0;
    nflags = c->data_bytes / st->chunk + 1;
    list = c->m->kernels_write_pm ? st->rows : nflags;
    if (wl_dev_alloc((void **)&st->d_rows, st->cap * sizeof(db_row)) ||
        wl_dev_alloc((void **)&st->d_list, list * 4) || wl_dev_zero(st->d_list, list * 4) ||
        wl_dev_alloc((void **)&st->d_counts, 3 * sizeof *st->d_counts))
        return -1;
    st->h_list = malloc(list * 4);
    st->ranges = malloc((list + 2) * sizeof *st->ranges);
    if (!st->h_list || !st->ranges)
        return gpm_set_error("db: out of memory for the commit lists");
    return 0;
}

/* The table a run starts from, on PM and on the GPU, and a fresh log. */
static int db_prepare(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    gpm_region *r = wl_region(c, DB_TABLE);
    if (db_fill(r, st->rows, c->opt.seed) != 0 || wl_tx_reset(c, DB_LOG) != 0)
        return -1;
    if (inserting(c)) /* whatever --log says: the count has a log of its own */
        wl_note(c, "count_log=conv:1");
    if (c->opt.mode == WL_CPU)
        return 0;
    return wl_dev_copy(st->d_rows, (uint8_t *)r->host + DB_HEADER_BYTES,
                       st->rows * sizeof(db_row), 1);
}

/* CAP: the chunks an UPDATE flagged, as ranges of the device copy. */
static int flagged_ranges(struct wl_ctx *c, struct db_state *st, int *nr)
{
    uint64_t nflags = c->data_bytes / st->chunk + 1;
    if (wl_dev_copy(st->h_list, st->d_list, nflags * 4, 0) != 0)
        return -1;
    /* The rows only: the header (the count) is not the UPDATE's. */
    *nr = wl_chunk_ranges(st->h_list, nflags, st->chunk, DB_HEADER_BYTES, c->data_bytes,
                          st->d_rows, st->ranges);
    return wl_dev_zero(st->d_list, nflags * 4);
}

/* The rows on PM as the kernels address them; NULL where kernels do not
 * write PM (CAP). */
static db_row *pm_rows_of(struct wl_ctx *c)
{
    gpm_region *r = wl_region(c, DB_TABLE);
    return c->m->kernels_write_pm ? (db_row *)((uint8_t *)r->dev + DB_HEADER_BYTES) : NULL;
}

static int gpu_insert(struct wl_ctx *c, struct db_state *st, uint64_t step)
{
    gpm_region *r = wl_region(c, DB_TABLE);
    uint64_t old = st->rows + step * st->batch, now = old + st->batch;
    db_row *pm_rows = pm_rows_of(c);
    gpm_range v = {db_row_off(old), st->batch * DB_ROW_BYTES,
                   (const uint8_t *)st->d_rows + old * DB_ROW_BYTES};
    gpmlog_dev log;
    if (c->m->engine == WL_ENGINE_DELTA) {
        /* cap-delta: the new rows (past the count, unseen until it moves)
         * by the CAP engine, then the new count through the redo log. */
        wl_delta d = wl_tx_delta_dev(c, DB_LOG);
        return wl_tx_begin(c, DB_LOG) ||
                       db_gpu_insert_rows(st->d_rows, NULL, old, st->batch, c->opt.seed,
                                          wl_out_of(c)) ||
                       wl_commit(c, DB_TABLE, &v, 1) ||
                       db_gpu_set_count(NULL, old, now, NULL, wl_out_of(c), &d) ||
                       wl_tx_logged(c, DB_LOG) || wl_tx_commit(c, DB_LOG)
                   ? -1
                   : 0;
    }
    if (!c->m->kernels_write_pm) {
        /* CAP: the new rows and then the count, by the CPU. */
        return db_gpu_insert_rows(st->d_rows, NULL, old, st->batch, c->opt.seed,
                                  wl_out_of(c)) ||
                       wl_commit(c, DB_TABLE, &v, 1) ||
                       wl_pm_write(c, DB_TABLE, 0, &now, sizeof now)
                   ? -1
                   : 0;
    }
    log = wl_log_dev(c, DB_LOG);
    if (wl_tx_begin(c, DB_LOG) != 0)
        return -1;
    if (c->m->fences) {
        int rc;
        if (wl_persist_begin(c) != 0)
            return -1;
        rc = db_gpu_insert_rows(st->d_rows, pm_rows, old, st->batch, c->opt.seed,
                                wl_out_of(c)) ||
             db_gpu_set_count((uint64_t *)r->dev, old, now, &log, wl_out_of(c), NULL);
        if (wl_persist_end(c) != 0 || rc != 0)
            return -1;
        c->bytes_persisted += (double)st->batch * DB_ROW_BYTES + sizeof now;
        return wl_tx_commit(c, DB_LOG);
    }
    /* gpm-ndp: the rows and the count's undo record, flushed; then the
     * count, flushed. */
    {
        gpm_range hdr = {0, sizeof now, NULL};
        v.src = NULL;
        if (db_gpu_insert_rows(st->d_rows, pm_rows, old, st->batch, c->opt.seed,
                               wl_out_of(c)) != 0 ||
            wl_commit(c, DB_TABLE, &v, 1) != 0 ||
            db_gpu_set_count(NULL, old, now, &log, wl_out_of(c), NULL) != 0 ||
            wl_tx_logged(c, DB_LOG) != 0 ||
            db_gpu_set_count((uint64_t *)r->dev, old, now, NULL, wl_out_of(c), NULL) != 0 ||
            wl_commit(c, DB_TABLE, &hdr, 1) != 0)
            return -1;
    }
    return wl_tx_commit(c, DB_LOG);
}

static int gpu_update(struct wl_ctx *c, struct db_state *st, uint64_t u)
{
    db_row *pm_rows = pm_rows_of(c);
    uint64_t count = st->rows, listed = 0, changed = 0;
    gpmlog_dev log;
    int nr = 0;
    if (c->m->engine == WL_ENGINE_DELTA) {
        /* cap-delta: the device copy and a record of each changed row; the
         * CPU logs the records, commits, applies them to PM. */
        wl_delta d = wl_tx_delta_dev(c, DB_LOG);
        return wl_tx_begin(c, DB_LOG) ||
                       db_gpu_update(st, count, u, NULL, wl_out_of(c), NULL, 0, 0, &d) ||
                       wl_tx_logged(c, DB_LOG) || wl_tx_commit(c, DB_LOG)
                   ? -1
                   : 0;
    }
    if (!c->m->kernels_write_pm)
        return db_gpu_update(st, count, u, NULL, wl_out_of(c), NULL, 0, wl_chunk_shift(st->chunk),
                             NULL) ||
                       flagged_ranges(c, st, &nr) || wl_commit(c, DB_TABLE, st->ranges, nr)
                   ? -1
                   : 0;
    log = wl_log_dev(c, DB_LOG);
    if (wl_tx_begin(c, DB_LOG) != 0)
        return -1;
    if (c->m->fences) {
        int rc;
        if (wl_persist_begin(c) != 0)
            return -1;
        rc = db_gpu_update(st, count, u, pm_rows, wl_out_of(c), &log, 0, 0, NULL);
        if (wl_persist_end(c) != 0 || rc != 0 ||
            wl_dev_copy(&changed, &st->d_counts[1], sizeof changed, 0) != 0)
            return -1;
        c->bytes_persisted += (double)changed * DB_ROW_BYTES;
        return wl_tx_commit(c, DB_LOG);
    }
    /* gpm-ndp: log (and update the device copy), the CPU flushes the log,
     * the changed rows go to PM and the CPU flushes them. */
    if (db_gpu_update(st, count, u, NULL, wl_out_of(c), &log, 1, 0, NULL) != 0 ||
        wl_tx_logged(c, DB_LOG) != 0 ||
        wl_dev_copy(&listed, &st->d_counts[0], sizeof listed, 0) != 0 ||
        wl_dev_copy(st->h_list, st->d_list, listed * 4, 0) != 0 ||
        db_gpu_copy_listed(st, pm_rows, listed) != 0)
        return -1;
    for (uint64_t k = 0; k < listed; k++)
        st->ranges[nr++] = (gpm_range){db_row_off(st->h_list[k]), DB_ROW_BYTES, NULL};
    return wl_commit(c, DB_TABLE, st->ranges, nr) || wl_tx_commit(c, DB_LOG) ? -1 : 0;
}

static int steps_from(struct wl_ctx *c, uint64_t from)
{
    struct db_state *st = S(c);
    for (uint64_t s = from; s < st->steps; s++) {
        int rc = c->opt.mode == WL_CPU ? db_cpu_step(c, st, s)
                 : inserting(c)        ? gpu_insert(c, st, s)
                                       : gpu_update(c, st, s);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int db_run(struct wl_ctx *c) { return steps_from(c, 0); }

/* Undoes the interrupted step, reloads the device copy from PM and runs
 * the steps after the last committed one. */
static int db_recover(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    gpm_region *r = wl_region(c, DB_TABLE);
    uint64_t done, count;
    double t0 = wl_now();
    if (wl_tx_recover(c, DB_LOG, DB_TABLE, &done) != 0)
        return -1;
    memcpy(&count, r->host, sizeof count);
    if (done > st->steps || count != st->rows + (inserting(c) ? done * st->batch : 0))
        return gpm_set_error("%s: %llu steps committed and %llu rows: not a state of this run",
                             r->path, (unsigned long long)done, (unsigned long long)count);
    if (c->opt.mode != WL_CPU &&
        wl_dev_copy(st->d_rows, (uint8_t *)r->host + DB_HEADER_BYTES, count * sizeof(db_row),
                    1) != 0)
        return -1;
    c->restore_s = wl_now() - t0;
    c->progress.total = st->steps;
    c->progress.durable = done;
    if (steps_from(c, done) != 0)
        return -1;
    c->progress.redone = st->steps - done;
    return 0;
}

/* The table on PM must be the reference's after every step, exactly: the
 * row count and the rows. 0, 1 (a difference, message set) or -1. */
static int matches_reference(struct wl_ctx *c, struct db_state *st, const uint8_t *pm,
                             uint64_t got)
{
    db_row *ref = malloc(st->cap * sizeof *ref);
    uint64_t count = st->rows;
    size_t bad;
    int rc = 0;
    if (!ref)
        return gpm_set_error("db: out of memory for the reference table");
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < st->rows; k++)
        ref[k] = db_row_gen(c->opt.seed, k);
    for (uint64_t s = 0; s < st->steps; s++)
        db_ref_step(st, c->opt.op, c->opt.seed, s, ref, &count);
    if (got != count)
        rc = 1, gpm_set_error("db: the table counts %llu rows, the reference %llu",
                              (unsigned long long)got, (unsigned long long)count);
    if (rc == 0 && (bad = wl_first_difference(pm + db_row_off(0), ref, count, sizeof *ref)) <
                       count)
        rc = 1, gpm_set_error("db: row %llu on PM differs from the reference's",
                              (unsigned long long)bad);
    free(ref);
    return rc;
}

static int db_verify(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    const uint8_t *pm = wl_region(c, DB_TABLE)->host;
    uint64_t got;
    int rc;
    memcpy(&got, pm, sizeof got);
    /* The reference, unless these bytes (the count and the rows it counts)
     * passed it before; the log's count every time (CAP modes keep none). */
    if (wl_check_digest(c, &got, sizeof got, 0) != 0 ||
        wl_check_digest(c, pm + db_row_off(0), (got < st->cap ? got : st->cap) * sizeof(db_row),
                        0) != 0 ||
        (rc = wl_check_known(c)) < 0)
        return -1;
    if (rc == 0 &&
        ((rc = matches_reference(c, st, pm, got)) != 0 || (rc = wl_check_passed(c)) != 0))
        return rc;
    if (wl_tx_atomic(c) && wl_tx_committed(c, DB_LOG) != st->steps)
        return gpm_set_error("db: the log counts %llu committed steps of %llu",
                             (unsigned long long)wl_tx_committed(c, DB_LOG),
                             (unsigned long long)st->steps),
               1;
    return 0;
}

static void db_teardown(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    wl_dev_free(st->d_rows); /* all NULL in cpu mode */
    wl_dev_free(st->d_list);
    wl_dev_free(st->d_counts);
    free(st->h_list);
    free(st->ranges);
    free(st->h_c0mod);
}

const struct wl_workload WORKLOAD = {
    .name = "db",
    .about = "gpDB: INSERT batches and UPDATE statements on a PM-resident table, each a "
             "failure-atomic transaction (paper 4.1 and Figure 9)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CAP_DELTA) | WL_MODE_BIT(WL_CPU),
    .ops = db_ops,
    /* The logged modes resume after the last committed step; CAP reruns. */
    .resume_modes = WL_MODE_BIT(WL_GPM) | WL_MODE_BIT(WL_GPM_NDP) | WL_MODE_BIT(WL_GPM_EADR) |
                    WL_MODE_BIT(WL_CAP_DELTA) | WL_MODE_BIT(WL_CPU),
    .objects = db_objects,
    .params = db_params,
    .state_bytes = sizeof(struct db_state),
    .layout = db_layout,
    .setup = db_setup,
    .prepare = db_prepare,
    .run = db_run,
    .recover = db_recover,
    .verify = db_verify,
    .teardown = db_teardown,
};
