/* gpDB: a PM-resident table of fixed-width rows after Virginian, with
 * failure-atomic INSERT batches and UPDATE statements (paper sections 4.1
 * and 6.1). */
#ifndef DB_H
#define DB_H

#include <stddef.h>
#include <stdint.h>

#include "db_model.h"
#include "wl.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { DB_TABLE, DB_LOG }; /* the PM objects */
enum { DB_OP_INSERT, DB_OP_UPDATE };

/* The UPDATE kernel runs with the log's HCL grid (a slot a thread, 32-row
 * tiles taken warp-stride); the CPU counterpart's threads take contiguous
 * shares of the rows, a slot each. */
#define DB_LOG_BLOCKS 256
#define DB_LOG_THREADS 256
#define DB_CPU_SLOTS 128

struct db_state {
    uint64_t rows;           /* rows before the run */
    uint64_t cap;            /* rows the table holds after it */
    uint64_t batch, steps;   /* rows an INSERT batch; batches or statements */
    int cpu_slots;           /* cpu mode: log slots, and so the most threads */
    uint64_t max_matches;    /* UPDATE: most rows one logging slot changes in a statement */
    size_t chunk;            /* CAP: bytes persisted for each chunk an UPDATE touched */
    uint8_t *h_c0mod;        /* UPDATE: c0 % 20 of every row (the predicate's column) */
    /* GPU modes (device memory): */
    db_row *d_rows;          /* the table's rows, a copy that the kernels read */
    uint32_t *d_list;        /* gpm-ndp: rows an UPDATE changed; CAP: chunk flags */
    unsigned long long *d_counts; /* [0] listed rows, [1] rows changed, [2] log failures */
    uint32_t *h_list;
    gpm_range *ranges;
};

/* Host side (db_ref.c). */
/* The table before the run at HOST (header and ROWS rows), made durable. */
int db_fill(const gpm_region *r, uint64_t rows, uint64_t seed);
/* The most rows of a statement that one of SLOTS logging slots changes:
 * the UPDATE kernel's warps (WARPS: slots / 32 of them, 32-row tiles taken
 * warp-stride, selected rows dealt to the lanes in turn) or contiguous
 * shares of the rows (the CPU counterpart's threads). */
uint64_t db_max_matches(const struct db_state *st, uint64_t slots, int warps);
/* The reference: the table after the first STEPS steps of the operation. */
void db_ref_step(const struct db_state *st, int op, uint64_t seed, uint64_t step,
                 db_row *rows, uint64_t *count);
/* The CPU counterpart's step on the PM table (OpenMP, undo-logged). */
int db_cpu_step(struct wl_ctx *c, struct db_state *st, uint64_t step);

/* Kernels (db_kernels.cu). ROW0: where the step's rows begin. */
int db_gpu_insert_rows(db_row *dev_rows, db_row *pm_rows, uint64_t first, uint64_t n,
                       uint64_t seed, wl_out o);
/* Logs the count's old value (when LOG) and stores the new one at PM_COUNT
 * (when not NULL), or records it in DELTA (when not NULL: cap-delta), in
 * one thread. */
int db_gpu_set_count(uint64_t *pm_count, uint64_t old_count, uint64_t new_count,
                     const gpmlog_dev *log, wl_out o, const wl_delta *delta);
/* UPDATE statement U over COUNT rows of the device copy: PM (NULL: none)
 * gets the changed rows as O says; LOG (non-NULL) the old images; LIST
 * (gpm-ndp) the changed rows, or CHUNK_SHIFT > 0 flags their chunks; DELTA
 * (NULL: none) a record of each changed row (cap-delta). */
int db_gpu_update(struct db_state *st, uint64_t count, uint64_t u, db_row *pm, wl_out o,
                  const gpmlog_dev *log, int list, uint32_t chunk_shift,
                  const wl_delta *delta);
/* gpm-ndp: the listed rows (COUNT of them) from the device copy to PM. */
int db_gpu_copy_listed(struct db_state *st, db_row *pm, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif
