/* SRAD's PM layout and the completion records that let a crashed run
 * resume from its last complete iteration, shared by the kernels, the CPU
 * counterpart, recovery and the CPU tests.
 *
 *   [rec 0 | rec 1 (128 B each) ... 4 KiB][image 0][image 1][coef 0][coef 1]
 *
 * (each array n = rows x cols floats, starting on a 4 KiB page). Iteration
 * t (1-based) reads the image of iteration t-1 (the input for t = 1) and
 * writes its coefficients and its image to slot t % 2, so the slot of the
 * last complete iteration is never written while the next one runs: a crash
 * half way through an iteration leaves a mixed slot that no record names,
 * never a mixed image that one does. Once both arrays are durable, record
 * slot t % 2 gets {epoch, t} sealed by a checksum; the other record (of
 * t-1) stays valid meanwhile, so a record torn by a crash leaves the
 * previous iteration's. Recovery resumes after the newest valid record of
 * the run's epoch (the harness gives every run a new one, so records and
 * slots of earlier runs never count). */
#ifndef SRAD_LAYOUT_H
#define SRAD_LAYOUT_H

#include <stdint.h>

#include "gpm/hd.h"

#define SRAD_PAGE 4096u
#define SRAD_REC_SLOT 128u /* one record per 128-byte line: sizeof(srad_record) */

GPM_HD uint64_t srad_page_align(uint64_t x)
{
    return (x + SRAD_PAGE - 1) & ~(uint64_t)(SRAD_PAGE - 1);
}
GPM_HD uint64_t srad_array_bytes(uint64_t n) { return srad_page_align(n * 4); }
GPM_HD uint32_t srad_slot(uint64_t iter) { return (uint32_t)(iter & 1); }
GPM_HD uint64_t srad_rec_off(uint32_t slot) { return (uint64_t)slot * SRAD_REC_SLOT; }
GPM_HD uint64_t srad_image_off(uint64_t n, uint32_t slot)
{
    return SRAD_PAGE + (uint64_t)slot * srad_array_bytes(n);
}
GPM_HD uint64_t srad_coef_off(uint64_t n, uint32_t slot)
{
    return SRAD_PAGE + (2 + (uint64_t)slot) * srad_array_bytes(n);
}
GPM_HD uint64_t srad_file_bytes(uint64_t n) { return SRAD_PAGE + 4 * srad_array_bytes(n); }

#define SRAD_REC_MAGIC 0x3144415253475047ull /* "GPGSRAD1" */

/* Iteration ITER of the run EPOCH is complete: its image and coefficients
 * are durable in slot ITER % 2. */
typedef struct srad_record {
    uint64_t magic;
    uint64_t epoch;
    uint64_t iter;
    uint64_t rows, cols;
    uint64_t seal; /* srad_record_seal of the fields above */
    uint64_t pad[10]; /* one slot: the two records are an array */
} srad_record;

GPM_HD uint64_t srad_record_seal(const srad_record *r)
{
    uint64_t h = 0x7372616473656131ull;
    h = gpm_mix64(h ^ r->magic);
    h = gpm_mix64(h ^ r->epoch);
    h = gpm_mix64(h ^ r->iter);
    h = gpm_mix64(h ^ r->rows);
    return gpm_mix64(h ^ r->cols);
}

GPM_HD srad_record srad_record_make(uint32_t epoch, uint64_t iter, uint64_t rows, uint64_t cols)
{
    srad_record r;
    r.magic = SRAD_REC_MAGIC;
    r.epoch = epoch;
    r.iter = iter;
    r.rows = rows;
    r.cols = cols;
    for (int k = 0; k < 10; k++)
        r.pad[k] = 0;
    r.seal = srad_record_seal(&r);
    return r;
}

/* Does R, found in record slot SLOT, say that an iteration of the run
 * EPOCH (ITERS iterations of a ROWS x COLS image) is complete? A torn or
 * stale record does not. */
GPM_HD int srad_record_valid(const srad_record *r, uint32_t slot, uint32_t epoch, uint64_t rows,
                             uint64_t cols, uint64_t iters)
{
    return r->magic == SRAD_REC_MAGIC && r->seal == srad_record_seal(r) && r->epoch == epoch &&
           r->rows == rows && r->cols == cols && r->iter >= 1 && r->iter <= iters &&
           srad_slot(r->iter) == slot;
}

/* Iterations complete on PM for the run EPOCH: the newer of the two valid
 * records (REC[0], REC[1]: the record slots), 0 if neither is. */
GPM_HD uint64_t srad_durable_iters(const srad_record *rec, uint32_t epoch, uint64_t rows,
                                   uint64_t cols, uint64_t iters)
{
    uint64_t best = 0;
    for (uint32_t s = 0; s < 2; s++)
        if (srad_record_valid(&rec[s], s, epoch, rows, cols, iters) && rec[s].iter > best)
            best = rec[s].iter;
    return best;
}

#endif
