/* BLK, Black-Scholes with checkpointed prices. The result of a run is, for
 * every option, the sum over ITERS weekly repricings of its call and put
 * prices (the accumulators are the state that is checkpointed, so a run
 * restored from iteration k must finish exactly what an uninterrupted run
 * computes). */
#ifndef BLK_H
#define BLK_H

#include <stddef.h>
#include <stdint.h>

#include "blk_model.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#include "wl_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BLK_PRICES }; /* the one PM object: a checkpoint of the accumulators */

struct blk_state {
    uint64_t n, iters, every;
    float *d_s, *d_x, *d_t;       /* inputs */
    float *d_call, *d_put;        /* accumulators (checkpointed) */
    blk_meta meta;                /* the checkpoint's record (wl_cp_register_record) */
    unsigned long long *d_bad;    /* the GPU check's first wrong option */
};

int blk_gpu_generate(float *s, float *x, float *t, uint64_t n, uint64_t seed);
int blk_gpu_price(const float *s, const float *x, const float *t, float *call, float *put,
                  uint64_t n, uint64_t iter);
/* The reference check on the GPU: 0 ok, 1 wrong (message set), -1 error.
 * BAD is device scratch for one index. */
int blk_gpu_check(const float *call, const float *put, uint64_t n, uint64_t seed,
                  uint64_t iters, unsigned long long *bad);

/* The reference check on the CPU (blk_ref.c): 0 ok, 1 wrong (message set:
 * the first wrong option). Adds to W (NULL: not wanted) the options
 * compared, those whose call or put is outside the tolerance, and the
 * largest error of a price (absolute: the tolerance is mostly; infinite
 * for a NaN). It prices every option ITERS times: N x ITERS reference
 * prices. */
int blk_check(const float *call, const float *put, uint64_t n, uint64_t seed, uint64_t iters,
              struct wl_wrong *w);
/* Sets the message for option BAD, whose results are *CALL and *PUT; returns 1. */
int blk_report_bad(const float *call, const float *put, uint64_t seed, uint64_t iters,
                   long long bad);

#ifdef __cplusplus
}
#endif

#endif
