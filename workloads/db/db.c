/* gpDB: the descriptor, the steps and what they change. Each INSERT batch
 * and each UPDATE statement is one transaction of the harness
 * (wl_tx_batch), which makes it failure-atomic the mode's way: INSERT's
 * new rows are written and made durable first (past the row count, unseen
 * until it moves), and its transaction changes the count alone; UPDATE's
 * changes every row it selects. gpDB gives its kernels (or its CPU
 * counterpart), its reference and its layout. */
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
    WL_TX_PARAMS,
    {0},
};

static const struct wl_obj_decl db_objects[] = {
    [DB_TABLE] = {"table", WL_OBJ_REGION},
    [DB_LOG] = {"log", WL_OBJ_TX},
    {NULL, WL_OBJ_REGION},
};

static struct db_state *S(struct wl_ctx *c) { return c->priv; }
static int inserting(const struct wl_ctx *c) { return wl_op_index(c) == DB_OP_INSERT; }

static int cpu_slots(struct wl_ctx *c)
{
    int t = wl_cpu_threads(c) > 0 ? wl_cpu_threads(c) : omp_get_max_threads();
    if (t > DB_CPU_SLOTS)
        t = DB_CPU_SLOTS;
    if (wl_tx_partitions(c) && wl_tx_partitions(c) < (uint32_t)t)
        t = (int)wl_tx_partitions(c);
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
    int cpu = !c->m->needs_gpu;
    struct wl_tx_sizes tx = {.region = DB_TABLE, .unit = DB_ROW_BYTES};
    st->rows = (uint64_t)wl_int(c, "rows");
    st->batch = (uint64_t)wl_int(c, "batch");
    st->steps = (uint64_t)wl_int(c, inserting(c) ? "batches" : "statements");
    st->cap = st->rows + (inserting(c) ? st->steps * st->batch : 0);
    st->cpu_slots = cpu_slots(c);
    if (st->cap >= 0xffffffffull)
        return gpm_set_error("--rows: the table would hold %llu rows, more than %llu",
                             (unsigned long long)st->cap, 0xfffffffeull);
    wl_obj_region(c, DB_TABLE, db_row_off(st->cap));
    if (inserting(c)) {
        /* One change a transaction, the count (the header's first word),
         * logged by one thread: a record a slot, and room to spare. */
        tx.change_bytes = sizeof(uint64_t);
        tx.max_changes = 1;
        tx.blocks = 1;
        tx.threads = 32;
        tx.records = 5;
    } else {
        /* The log holds, for every slot, the most rows one slot changes in a
         * statement, counted exactly from the predicate's column. */
        uint64_t slots = cpu ? (uint64_t)(st->cpu_slots + 31) / 32 * 32
                             : (uint64_t)DB_LOG_BLOCKS * DB_LOG_THREADS;
        if (predicate_column(st, wl_seed(c)) != 0)
            return -1;
        st->max_matches = db_max_matches(st, cpu ? (uint64_t)st->cpu_slots : slots, !cpu);
        tx.change_bytes = DB_ROW_BYTES;
        tx.max_changes = most_changed(st);
        tx.blocks = cpu ? 1 : DB_LOG_BLOCKS;
        tx.threads = cpu ? (st->cpu_slots + 31) / 32 * 32 : DB_LOG_THREADS;
        tx.records = st->max_matches + 1;
    }
    if (wl_tx_layout(c, DB_LOG, &tx) != 0)
        return -1;
    c->data_bytes = db_row_off(st->cap);
    c->calib_bytes = c->data_bytes;
    /* For --kill random: on the fast side (a row in about 0.1 ns on
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
    if (!c->m->needs_gpu)
        return wl_tx_setup(c, DB_LOG, NULL, NULL);
    if (wl_dev_alloc((void **)&st->d_table, c->data_bytes) != 0)
        return -1;
    return wl_tx_setup(c, DB_LOG, st->d_table, first_changes);
}

/* The table a run starts from, on PM and on the GPU, and a fresh log. */
static int db_prepare(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    gpm_region *r = wl_region(c, DB_TABLE);
    if (db_fill(r, st->rows, wl_seed(c)) != 0 || wl_tx_reset(c, DB_LOG) != 0)
        return -1;
    return st->d_table ? wl_dev_copy(st->d_table, r->host, db_row_off(st->rows), 1) : 0;
}

/* INSERT's new rows, durable past the count before its transaction moves
 * it: the kernels store them in the device copy and, where the mode's
 * kernels write PM, there; the commit makes them durable the mode's way. */
static int insert_rows(struct wl_ctx *c, struct db_state *st, uint64_t step)
{
    uint64_t first = st->rows + step * st->batch;
    gpm_range v = {db_row_off(first), st->batch * DB_ROW_BYTES,
                   st->d_table + db_row_off(first)};
    int rc;
    if (!c->m->needs_gpu)
        return db_cpu_insert_rows(c, st, step);
    if (wl_persist_begin(c) != 0)
        return -1;
    rc = db_gpu_insert_rows(st->d_table, wl_pm_dev(c, DB_TABLE), first, st->batch, wl_seed(c),
                            wl_out_of(c));
    if (wl_persist_end(c) != 0 || rc != 0)
        return -1;
    return wl_commit(c, DB_TABLE, &v, 1);
}

/* Step S's transaction, as the mode's engine asks: INSERT's count, or an
 * UPDATE statement. */
static int apply(struct wl_ctx *c, uint64_t s, const wl_txdev *d)
{
    struct db_state *st = S(c);
    uint64_t old = st->rows + s * st->batch;
    if (!d->gpu)
        return db_cpu_apply(c, st, s);
    return inserting(c) ? db_gpu_set_count(st->d_table, old, old + st->batch, d)
                        : db_gpu_update(st->d_table, st->rows, s, d);
}

static int steps_from(struct wl_ctx *c, uint64_t from)
{
    struct db_state *st = S(c);
    for (uint64_t s = from; s < st->steps; s++)
        if ((inserting(c) && insert_rows(c, st, s) != 0) || wl_tx_batch(c, DB_LOG, s, apply) != 0)
            return -1;
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
    if (wl_tx_recover(c, DB_LOG, &done) != 0)
        return -1;
    memcpy(&count, r->host, sizeof count);
    if (done > st->steps || count != st->rows + (inserting(c) ? done * st->batch : 0))
        return gpm_set_error("%s: %llu steps committed and %llu rows: not a state of this run",
                             r->path, (unsigned long long)done, (unsigned long long)count);
    if (st->d_table && wl_dev_copy(st->d_table, r->host, db_row_off(count), 1) != 0)
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
 * row count and the rows. 0, 1 (a difference, message set) or -1. Adds to
 * W the rows of the longer table (PM's count is read up to the capacity)
 * and those that are wrong: differing, missing or extra. */
static int matches_reference(struct wl_ctx *c, struct db_state *st, const uint8_t *pm,
                             uint64_t got, struct wl_wrong *w)
{
    db_row *ref = malloc(st->cap * sizeof *ref);
    const db_row *have = (const db_row *)(pm + db_row_off(0));
    uint64_t count = st->rows, held = got < st->cap ? got : st->cap, both, differ = 0;
    size_t bad;
    int rc = 0;
    if (!ref)
        return gpm_set_error("db: out of memory for the reference table");
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < st->rows; k++)
        ref[k] = db_row_gen(wl_seed(c), k);
    for (uint64_t s = 0; s < st->steps; s++)
        db_ref_step(st, wl_op_index(c), wl_seed(c), s, ref, &count);
    both = held < count ? held : count;
#pragma omp parallel for reduction(+ : differ) schedule(static)
    for (uint64_t k = 0; k < both; k++)
        differ += memcmp(&have[k], &ref[k], sizeof *ref) != 0;
    w->units = "rows";
    w->bad += differ + (held > count ? held - count : count - held);
    w->total += held > count ? held : count;
    if (got != count)
        rc = 1, gpm_set_error("db: the table counts %llu rows, the reference %llu",
                              (unsigned long long)got, (unsigned long long)count);
    if (rc == 0 && (bad = wl_first_difference(have, ref, count, sizeof *ref)) < count)
        rc = 1, gpm_set_error("db: row %llu on PM differs from the reference's",
                              (unsigned long long)bad);
    free(ref);
    return rc;
}

static int db_verify(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    const uint8_t *pm = wl_region(c, DB_TABLE)->host;
    int logged = wl_tx_atomic(c);
    uint64_t got, committed = logged ? wl_tx_committed(c, DB_LOG) : 0;
    /* The log's count of committed steps is the run's marker. */
    struct wl_wrong w = {.marks = logged, .marks_bad = logged && committed != st->steps};
    int rc;
    memcpy(&got, pm, sizeof got);
    /* The reference, unless these bytes (the count and the rows it counts)
     * passed it before; the log's count every time (CAP modes keep none). */
    if (wl_check_digest(c, &got, sizeof got, 0) != 0 ||
        wl_check_digest(c, pm + db_row_off(0), (got < st->cap ? got : st->cap) * sizeof(db_row),
                        0) != 0 ||
        (rc = wl_check_known(c)) < 0)
        return -1;
    if (rc == 0) {
        if ((rc = matches_reference(c, st, pm, got, &w)) == 0)
            rc = wl_check_passed(c);
    } else {
        rc = 0; /* passed before: every row right */
        w.units = "rows";
        w.total = got;
    }
    return wl_tx_verified(c, rc, &w, committed, st->steps, "steps");
}

static void db_teardown(struct wl_ctx *c)
{
    struct db_state *st = S(c);
    wl_dev_free(st->d_table); /* NULL in cpu mode */
    free(st->h_c0mod);
}

const struct wl_workload WORKLOAD = {
    .name = "db",
    .about = "gpDB: INSERT batches and UPDATE statements on a PM-resident table, each a "
             "failure-atomic transaction (paper 4.1 and Figure 9)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CAP_DELTA) | WL_MODE_BIT(WL_CPU),
    .ops = db_ops,
    /* Failure-atomic modes resume after the last committed step; CAP reruns. */
    .progress_by = WL_BY_TRANSACTIONS,
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
