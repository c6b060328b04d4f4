/* gpDB: a PM-resident table of fixed-width rows after Virginian, with
 * failure-atomic INSERT batches and UPDATE statements (paper sections 4.1
 * and 6.1). */
#ifndef DB_H
#define DB_H

#include <stddef.h>
#include <stdint.h>

#include "db_model.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#include "wl_tx.h"

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
    uint8_t *h_c0mod;        /* UPDATE: c0 % 20 of every row (the predicate's column) */
    /* GPU modes: the table's device copy, header and rows at their offsets
     * on PM, which the kernels read and keep equal to what PM must hold. */
    uint8_t *d_table;
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
/* The CPU counterpart (OpenMP): INSERT step STEP's rows, durable before
 * the count covers them; and a step's transaction (the count, or an
 * UPDATE), each old value logged (wl_tx_host_undo) before it changes. */
int db_cpu_insert_rows(struct wl_ctx *c, struct db_state *st, uint64_t step);
int db_cpu_apply(struct wl_ctx *c, struct db_state *st, uint64_t step);

/* Kernels (db_kernels.cu), on the device copy TABLE (DB_HEADER_BYTES of
 * header, then the rows). */
/* INSERT's rows FIRST.. FIRST+N-1, in the copy and at PM_TABLE (NULL: not)
 * as O says. */
int db_gpu_insert_rows(uint8_t *table, uint8_t *pm_table, uint64_t first, uint64_t n,
                       uint64_t seed, wl_out o);
/* The count from OLD_COUNT to NEW_COUNT as a transaction's batch (D). */
int db_gpu_set_count(uint8_t *table, uint64_t old_count, uint64_t new_count, const wl_txdev *d);
/* UPDATE statement U over COUNT rows as a transaction's batch (D). */
int db_gpu_update(uint8_t *table, uint64_t count, uint64_t u, const wl_txdev *d);

#ifdef __cplusplus
}
#endif

#endif
