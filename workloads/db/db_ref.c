/* gpDB on the host: the table a run starts from, the sizing of the UPDATE
 * log, the reference, and the CPU counterpart. */
#include <omp.h>
#include <string.h>

#include "db.h"
#include "gpm/tx.h"

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

/* INSERT: the rows (invisible until the count covers them), then the
 * count's undo record, the new count. */
static int cpu_insert(struct wl_ctx *c, struct db_state *st, uint64_t step)
{
    gpm_region *r = wl_region(c, DB_TABLE);
    uint8_t *base = r->host;
    uint64_t old = st->rows + step * st->batch, now = old + st->batch;
    int threads = c->threads > 0 ? c->threads : omp_get_max_threads(), failed = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(| : failed)
    for (uint64_t k = old; k < now; k++) {
        db_row x = db_row_gen(c->opt.seed, k);
        memcpy(base + db_row_off(k), &x, sizeof x);
    }
    failed |= gpm_region_persist(r, base + db_row_off(old), st->batch * DB_ROW_BYTES);
    if (failed || gpmtx_host_log_undo(wl_log(c, DB_LOG), 0, 0, base, sizeof old) != 0)
        return -1;
    memcpy(base, &now, sizeof now);
    if (gpm_region_persist(r, base, sizeof now) != 0)
        return -1;
    c->bytes_persisted += (double)st->batch * DB_ROW_BYTES + sizeof now;
    return 0;
}

/* UPDATE: each thread its share of the rows, logging each changed row's
 * old image in its own slot before changing and persisting it. */
static int cpu_update(struct wl_ctx *c, struct db_state *st, uint64_t u)
{
    gpm_region *r = wl_region(c, DB_TABLE);
    uint8_t *base = r->host;
    uint64_t count, changed = 0;
    int threads = c->threads > 0 ? c->threads : omp_get_max_threads(), failed = 0;
    memcpy(&count, base, sizeof count);
    if (threads > st->cpu_slots)
        threads = st->cpu_slots;
#pragma omp parallel num_threads(threads) reduction(+ : changed) reduction(| : failed)
    {
        uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        for (uint64_t k = count * t / nt; k < count * (t + 1) / nt && !failed; k++) {
            db_row *x = (db_row *)(base + db_row_off(k));
            if (!db_matches(x, u))
                continue;
            if (gpmtx_host_log_undo(wl_log(c, DB_LOG), (uint32_t)t, db_row_off(k), x,
                                    sizeof *x) != 0) {
                failed = 1;
                break;
            }
            db_update(x, u);
            failed |= gpm_region_persist(r, x, sizeof *x);
            changed++;
        }
    }
    if (failed)
        return gpm_set_error("db: statement %llu: a log slot is full or a persist failed",
                             (unsigned long long)u);
    c->bytes_persisted += (double)changed * DB_ROW_BYTES;
    return 0;
}

int db_cpu_step(struct wl_ctx *c, struct db_state *st, uint64_t step)
{
    if (wl_tx_begin(c, DB_LOG) != 0 ||
        (c->opt.op == DB_OP_INSERT ? cpu_insert(c, st, step) : cpu_update(c, st, step)) != 0)
        return -1;
    return wl_tx_logged(c, DB_LOG) || wl_tx_commit(c, DB_LOG) ? -1 : 0;
}
