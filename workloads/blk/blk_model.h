/* BLK's model, shared by the kernels, the CPU reference and the tests:
 * the inputs each option gets from the seed, the market parameters, and
 * the checkpointed metadata that tells recovery where to resume. */
#ifndef BLK_MODEL_H
#define BLK_MODEL_H

#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

#define BLK_RATE 0.02f        /* riskless rate */
#define BLK_VOLATILITY 0.30f  /* volatility */
#define BLK_DT (1.0f / 52.0f) /* each iteration prices one week later */

/* Stock price in [5, 30), strike in [1, 100), years to expiry in [0.25, 10). */
GPM_HD float blk_stock(uint64_t seed, uint64_t i) { return 5.0f + 25.0f * wl_unit_f32(seed, 3 * i); }
GPM_HD float blk_strike(uint64_t seed, uint64_t i) { return 1.0f + 99.0f * wl_unit_f32(seed, 3 * i + 1); }
GPM_HD float blk_years(uint64_t seed, uint64_t i) { return 0.25f + 9.75f * wl_unit_f32(seed, 3 * i + 2); }

#define BLK_META_MAGIC 0x31544d4b4c424750ull /* "PGBLKMT1" */

/* Checkpointed with the prices, so that it is always of the same
 * checkpoint as they are. */
typedef struct blk_meta {
    uint64_t magic;
    uint64_t iters_done;  /* iterations whose prices the accumulators hold */
    uint64_t n;
    uint64_t seed;
    uint64_t iters;       /* of the whole run */
    uint8_t pad[88];
} blk_meta;

/* Is META a checkpoint of the run (N, SEED, ITERS)? */
GPM_HD int blk_meta_matches(const blk_meta *m, uint64_t n, uint64_t seed, uint64_t iters)
{
    return m->magic == BLK_META_MAGIC && m->n == n && m->seed == seed && m->iters == iters &&
           m->iters_done <= iters;
}

/* Does the run checkpoint after iteration DONE (1-based) of ITERS, every K? */
GPM_HD int blk_checkpoint_due(uint64_t done, uint64_t iters, uint64_t k)
{
    return done % k == 0 || done == iters;
}

#endif
