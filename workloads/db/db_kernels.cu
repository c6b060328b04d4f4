/* gpDB kernels: INSERT appends rows in parallel, then one thread logs and
 * raises the row count (a transaction's batch of one change); UPDATE runs
 * with the log's HCL grid, each warp taking 32 rows at a time and its
 * lanes logging the old images of the selected rows (wl_tx_undo) before
 * storing the new ones. The kernels read the device copy of the table
 * (header and rows) and write it and, where the mode says, PM. */
#include <cuda_runtime.h>

#include "db.h"
#include "wl_tx.cuh"

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

/* The count's change, a batch of one: its undo record, then the device
 * copy and, where the mode stores there, PM. */
__global__ void count_kernel(uint64_t *dev_count, uint64_t old_count, uint64_t new_count,
                             wl_txdev d)
{
    if (wl_tx_undo(&d, 0, &old_count, sizeof old_count) != 0)
        return; /* not logged: the count must not change */
    *dev_count = new_count;
    if (d.pm) {
        wl_store_u64(d.o, (uint64_t *)d.pm, new_count);
        wl_persist(d.o);
    }
    wl_tx_changed(&d, 0, &new_count); /* the count is the header's first word */
}

struct update_args {
    db_row *rows, *pm;     /* the device copy's rows; PM's (NULL: the kernel stores none) */
    uint64_t count, u;
    wl_txdev d;
};

/* Row K of a statement, taken by one lane of a warp whose other lanes take
 * theirs at the same time: logs the old image, updates the device copy
 * and stages the new row in ROW. Returns 1 if the row changed. */
__device__ __forceinline__ int update_row(const struct update_args *a, uint64_t k, db_row *row)
{
    db_row x = a->rows[k];
    if (wl_tx_undo(&a->d, db_row_off(k), &x, sizeof x) != 0)
        return 0; /* not logged: not changed */
    db_update(&x, a->u);
    a->rows[k] = x;
    *row = x;
    wl_tx_changed(&a->d, db_row_off(k), &x);
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
            wl_store_v4(a->d.o, (uint4 *)&a->pm[q[j]] + lane % 4u,
                        ((const uint4 *)&staged[j])[lane % 4u]);
    wl_persist(a->d.o);
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

extern "C" int db_gpu_insert_rows(uint8_t *dev_table, uint8_t *pm_table, uint64_t first,
                                  uint64_t n, uint64_t seed, wl_out o)
{
    insert_kernel<<<wl_blocks(4 * n, 256, MAX_BLOCKS), 256>>>(
        (db_row *)(dev_table + DB_HEADER_BYTES),
        pm_table ? (db_row *)(pm_table + DB_HEADER_BYTES) : NULL, first, n, seed, o);
    return wl_dev_sync("db: the INSERT kernel");
}

extern "C" int db_gpu_set_count(uint8_t *dev_table, uint64_t old_count, uint64_t new_count,
                                const wl_txdev *d)
{
    count_kernel<<<1, 1>>>((uint64_t *)dev_table, old_count, new_count, *d);
    return wl_dev_sync("db: the row count's kernel");
}

extern "C" int db_gpu_update(uint8_t *dev_table, uint64_t count, uint64_t u, const wl_txdev *d)
{
    struct update_args a;
    memset(&a, 0, sizeof a);
    a.rows = (db_row *)(dev_table + DB_HEADER_BYTES);
    a.pm = d->pm ? (db_row *)(d->pm + DB_HEADER_BYTES) : NULL;
    a.count = count;
    a.u = u;
    a.d = *d;
    /* The log's HCL grid: each thread logs into its own slot. */
    update_kernel<<<DB_LOG_BLOCKS, DB_LOG_THREADS>>>(a);
    return wl_dev_sync("db: the UPDATE kernel");
}
