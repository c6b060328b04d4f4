/* gpDB on the host: the table a run starts from, the sizing of the UPDATE
 * log, the reference, and the CPU counterpart. */
#include <omp.h>
#include <string.h>

#include "db.h"

int db_fill(const gpm_region *r, uint64_t rows, uint64_t seed)
{
    uint8_t *base = r->host;
    uint64_t count = rows;
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < rows; k++) {
        db_row x = db_row_gen(seed, k);
        memcpy(base + db_row_off(k), &x, sizeof x);
    }
    memset(base, 0, DB_HEADER_BYTES);
    memcpy(base, &count, sizeof count);
    return gpm_region_persist(r, base, db_row_off(rows));
}

uint64_t db_max_matches(const struct db_state *st, uint64_t slots, int warps)
{
    uint64_t best = 0;
    for (uint64_t m = 0; m < DB_MATCH_MOD && m < st->steps; m++) {
        if (warps) {
            /* Warp w takes the 32-row tiles w, w + nw, ...; its I-th
             * selected row goes to lane I % 32. */
            uint64_t nw = slots / 32;
#pragma omp parallel for schedule(static) reduction(max : best)
            for (uint64_t w = 0; w < nw; w++) {
                uint64_t n = 0;
                for (uint64_t k0 = 32 * w; k0 < st->rows; k0 += 32 * nw)
                    for (uint64_t k = k0; k < k0 + 32 && k < st->rows; k++)
                        n += st->h_c0mod[k] == m;
                best = (n + 31) / 32 > best ? (n + 31) / 32 : best;
            }
            continue;
        }
#pragma omp parallel for schedule(static) reduction(max : best)
        for (uint64_t t = 0; t < slots; t++) {
            uint64_t n = 0;
            for (uint64_t k = st->rows * t / slots; k < st->rows * (t + 1) / slots; k++)
                n += st->h_c0mod[k] == m;
            best = n > best ? n : best;
        }
    }
    return best;
}

void db_ref_step(const struct db_state *st, int op, uint64_t seed, uint64_t step,
                 db_row *rows, uint64_t *count)
{
    if (op == DB_OP_INSERT) {
        for (uint64_t k = 0; k < st->batch; k++)
            rows[*count + k] = db_row_gen(seed, *count + k);
        *count += st->batch;
        return;
    }
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < *count; k++)
        if (db_matches(&rows[k], step))
            db_update(&rows[k], step);
}

int db_cpu_insert_rows(struct wl_ctx *c, struct db_state *st, uint64_t step)
{
    uint8_t *base = wl_region(c, DB_TABLE)->host;
    uint64_t old = st->rows + step * st->batch, now = old + st->batch;
    int threads = c->threads > 0 ? c->threads : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint64_t k = old; k < now; k++) {
        db_row x = db_row_gen(wl_seed(c), k);
        memcpy(base + db_row_off(k), &x, sizeof x);
    }
    return wl_pm_persist(c, DB_TABLE, base + db_row_off(old), st->batch * DB_ROW_BYTES);
}

/* INSERT's transaction: the count's undo record, the new count. */
static int cpu_count(struct wl_ctx *c, struct db_state *st, uint64_t step)
{
    uint8_t *base = wl_region(c, DB_TABLE)->host;
    uint64_t old = st->rows + step * st->batch, now = old + st->batch;
    if (wl_tx_host_undo(c, DB_LOG, 0, 0, base, sizeof old) != 0)
        return gpm_set_error("db: batch %llu: the count's undo record did not fit %s",
                             (unsigned long long)step, wl_obj_path(c, DB_LOG));
    memcpy(base, &now, sizeof now);
    return wl_pm_persist(c, DB_TABLE, base, sizeof now);
}

/* UPDATE: each thread its share of the rows, logging each changed row's
 * old image in its own slot before changing and persisting it. */
static int cpu_update(struct wl_ctx *c, struct db_state *st, uint64_t u)
{
    uint8_t *base = wl_region(c, DB_TABLE)->host;
    uint64_t count;
    int threads = c->threads > 0 ? c->threads : omp_get_max_threads(), failed = 0;
    memcpy(&count, base, sizeof count);
    if (threads > st->cpu_slots)
        threads = st->cpu_slots;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        for (uint64_t k = count * t / nt; k < count * (t + 1) / nt && !failed; k++) {
            db_row *x = (db_row *)(base + db_row_off(k));
            if (!db_matches(x, u))
                continue;
            if (wl_tx_host_undo(c, DB_LOG, (uint32_t)t, db_row_off(k), x, sizeof *x) != 0) {
                failed = 1;
                break;
            }
            db_update(x, u);
            failed |= wl_pm_persist(c, DB_TABLE, x, sizeof *x) != 0;
        }
    }
    if (failed)
        return gpm_set_error("db: statement %llu: an undo record did not fit %s, or a persist "
                             "failed: the statement stopped; --recover undoes it",
                             (unsigned long long)u, wl_obj_path(c, DB_LOG));
    return 0;
}

int db_cpu_apply(struct wl_ctx *c, struct db_state *st, uint64_t step)
{
    return wl_op_index(c) == DB_OP_INSERT ? cpu_count(c, st, step) : cpu_update(c, st, step);
}
