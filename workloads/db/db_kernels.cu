/* gpDB kernels: INSERT appends rows in parallel and one thread logs and
 * raises the row count; UPDATE runs with the log's HCL grid, each warp
 * taking 32 rows at a time and its lanes logging the old images of the
 * selected rows before storing the new ones. The kernels read the device
 * copy of the table and write it and, where the mode says, PM. */
#include <cuda_runtime.h>

#include "db.h"
#include "gpm/tx.cuh"
#include "wl.cuh"

#define MAX_BLOCKS 65535u /* the grid-stride loops take the rest */

/* Thread p writes the 16-byte piece p % 4 of row p / 4, so that a warp's
 * store covers 512 contiguous bytes, whole lines over PCIe: one thread a
 * row would store pieces 64 bytes apart, which the link carries as partial
 * writes. Each of a row's four threads makes the row: that is cheap beside
 * the write. */
__global__ void insert_kernel(db_row *dev_rows, db_row *pm_rows, uint64_t first, uint64_t n,
                              uint64_t seed, wl_out o)
{
    for (uint64_t p = gpm_grid_rank(); p < 4 * n; p += gpm_grid_threads()) {
        uint64_t r = first + p / 4;
        db_row x = db_row_gen(seed, r);
        uint4 piece = ((const uint4 *)&x)[p % 4];
        ((uint4 *)&dev_rows[r])[p % 4] = piece;
        if (pm_rows)
            wl_store_v4(o, (uint4 *)&pm_rows[r] + p % 4, piece);
    }
    wl_persist(o);
}

__global__ void count_kernel(uint64_t *pm_count, uint64_t old_count, uint64_t new_count,
                             gpmlog_dev log, int logged, wl_out o, wl_delta delta,
                             unsigned long long *fail)
{
    wl_delta_put(delta, 0, &new_count); /* cap-delta: the count is the header's first word */
    if (logged && gpmtx_log_undo(log, 0, 0, &old_count, sizeof old_count) != 0) {
        *fail = 1;
        return; /* nothing logged: the count must not change */
    }
    if (pm_count) { /* NULL: the record alone (gpm-ndp logs before it stores) */
        wl_store_u64(o, pm_count, new_count);
        wl_persist(o);
    }
}

struct update_args {
    db_row *rows, *pm;
    uint64_t count, u;
    gpmlog_dev log;
    int logged;
    wl_out o;
    uint32_t *list;
    uint32_t chunk_shift;
    wl_delta delta;
    unsigned long long *counts;
};

/* Row K of a statement, taken by one lane of a warp whose other lanes take
 * theirs at the same time: logs the old image, updates the device copy
 * and stages the new row in ROW. Returns 1 if the row changed. */
__device__ __forceinline__ int update_row(const struct update_args *a, uint64_t k, db_row *row)
{
    db_row x = a->rows[k];
    if (a->logged && gpmtx_log_undo(a->log, -1, db_row_off(k), &x, sizeof x) != 0) {
        atomicAdd(&a->counts[2], 1ull);
        return 0; /* not logged: not changed */
    }
    db_update(&x, a->u);
    a->rows[k] = x;
    *row = x;
    wl_delta_put(a->delta, db_row_off(k), &x);
    if (a->chunk_shift)
        a->list[db_row_off(k) >> a->chunk_shift] = 1;
    else if (a->list)
        a->list[atomicAdd(&a->counts[0], 1ull)] = (uint32_t)k;
    atomicAdd(&a->counts[1], 1ull);
    return 1;
}

/* The first N (at most 32) rows of the warp's queue Q, lane L taking Q[L];
 * every lane of the warp calls it. Each lane's undo record is durable
 * before the __syncwarp, so the rows are stored after all of them: four
 * lanes a row, a 64-byte piece of the link for each, where one lane would
 * store its row in four 16-byte pieces. */
__device__ void update_rows(const struct update_args *a, const uint64_t *q, uint32_t n,
                            db_row *staged)
{
    uint32_t lane = threadIdx.x % 32u;
    unsigned changed =
        __ballot_sync(0xffffffffu, lane < n && update_row(a, q[lane], &staged[lane]));
    __syncwarp();
    if (!a->pm)
        return;
    for (uint32_t j = lane / 4u; j < 32u; j += 8u)
        if (changed >> j & 1u)
            wl_store_v4(a->o, (uint4 *)&a->pm[q[j]] + lane % 4u,
                        ((const uint4 *)&staged[j])[lane % 4u]);
    wl_persist(a->o);
    __syncwarp();
}

/* A statement selects about one row in twenty: a warp whose lanes each
 * took their own row would log with one or two lanes at a time, and each
 * 4-byte chunk of an HCL record would cross the link as a few bytes of a
 * 128-byte line. So each warp reads 32 consecutive rows at a time, queues
 * the selected ones, and logs and stores them 32 at a time, a lane each:
 * a record's chunk then fills its line (gpm/log_layout.h). The I-th
 * selected row of a warp goes to lane I % 32 (db_max_matches counts so). */
__global__ void update_kernel(struct update_args a)
{
    __shared__ uint64_t queues[DB_LOG_THREADS / 32][64];
    __shared__ __align__(16) db_row staging[DB_LOG_THREADS / 32][32];
    uint32_t lane = threadIdx.x % 32u, w = threadIdx.x / 32u, n = 0;
    uint64_t *q = queues[w];
    uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32u);
    for (uint64_t t = (uint64_t)blockIdx.x * (blockDim.x / 32u) + w; 32 * t < a.count;
         t += warps) {
        uint64_t k = 32 * t + lane;
        int hit = k < a.count && db_matches(&a.rows[k], a.u);
        unsigned m = __ballot_sync(0xffffffffu, hit);
        if (hit)
            q[n + __popc(m & ((1u << lane) - 1u))] = k;
        n += __popc(m);
        __syncwarp();
        if (n >= 32u) {
            update_rows(&a, q, 32u, staging[w]);
            n -= 32u;
            if (lane < n)
                q[lane] = q[lane + 32u];
            __syncwarp();
        }
    }
    if (n)
        update_rows(&a, q, n, staging[w]);
}

__global__ void copy_listed_kernel(const db_row *rows, db_row *pm, const uint32_t *list,
                                   uint64_t count)
{
    for (uint64_t k = gpm_grid_rank(); k < count; k += gpm_grid_threads())
        pm[list[k]] = rows[list[k]];
}

extern "C" int db_gpu_insert_rows(db_row *dev_rows, db_row *pm_rows, uint64_t first, uint64_t n,
                                  uint64_t seed, wl_out o)
{
    insert_kernel<<<wl_blocks(4 * n, 256, MAX_BLOCKS), 256>>>(dev_rows, pm_rows, first, n, seed, o);
    return wl_dev_sync("db: the INSERT kernel");
}

extern "C" int db_gpu_set_count(uint64_t *pm_count, uint64_t old_count, uint64_t new_count,
                                const gpmlog_dev *log, wl_out o, const wl_delta *delta)
{
    unsigned long long *fail = NULL, f = 0;
    gpmlog_dev none;
    wl_delta no_delta;
    memset(&none, 0, sizeof none);
    memset(&no_delta, 0, sizeof no_delta);
    if (wl_dev_alloc((void **)&fail, sizeof f) != 0 || wl_dev_zero(fail, sizeof f) != 0) {
        wl_dev_free(fail);
        return -1;
    }
    count_kernel<<<1, 1>>>(pm_count, old_count, new_count, log ? *log : none, log != NULL, o,
                           delta ? *delta : no_delta, fail);
    if (wl_dev_sync("db: the row count's kernel") != 0 || wl_dev_copy(&f, fail, sizeof f, 0)) {
        wl_dev_free(fail);
        return -1;
    }
    wl_dev_free(fail);
    return f ? gpm_set_error("db: the row count's undo record did not fit the log") : 0;
}

extern "C" int db_gpu_update(struct db_state *st, uint64_t count, uint64_t u, db_row *pm,
                             wl_out o, const gpmlog_dev *log, int list, uint32_t chunk_shift,
                             const wl_delta *delta)
{
    struct update_args a;
    unsigned long long fails = 0;
    memset(&a, 0, sizeof a);
    a.rows = st->d_rows;
    a.pm = pm;
    a.count = count;
    a.u = u;
    if (log) {
        a.log = *log;
        a.logged = 1;
    }
    a.o = o;
    a.list = list || chunk_shift ? st->d_list : NULL;
    a.chunk_shift = chunk_shift;
    if (delta)
        a.delta = *delta;
    a.counts = st->d_counts;
    if (wl_dev_zero(st->d_counts, 3 * sizeof fails) != 0)
        return -1;
    /* The log's HCL grid: each thread logs into its own slot. */
    update_kernel<<<DB_LOG_BLOCKS, DB_LOG_THREADS>>>(a);
    if (wl_dev_sync("db: the UPDATE kernel") != 0 ||
        wl_dev_copy(&fails, &st->d_counts[2], sizeof fails, 0) != 0)
        return -1;
    if (fails)
        return gpm_set_error("db: statement %llu: %llu old rows did not fit the log",
                             (unsigned long long)u, fails);
    return 0;
}

extern "C" int db_gpu_copy_listed(struct db_state *st, db_row *pm, uint64_t count)
{
    if (count == 0)
        return 0;
    copy_listed_kernel<<<wl_blocks(count, 256, MAX_BLOCKS), 256>>>(st->d_rows, pm, st->d_list,
                                                                    count);
    return wl_dev_sync("db: the copy of the changed rows");
}
