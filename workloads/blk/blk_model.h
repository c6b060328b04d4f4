/* BLK's model, shared by the kernels, the CPU reference and the tests:
 * the inputs each option gets from the seed, the market parameters, and
 * the checkpointed metadata that tells recovery where to resume. */
#ifndef BLK_MODEL_H
#define BLK_MODEL_H

#include <math.h>
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

/* The reference, in double precision: written once, run by the CPU tests
 * and by the GPU check that verifies a run (a CPU pass over 256M options
 * times the iterations takes longer than the run it checks). */
GPM_HD double blk_cnd(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* One Black-Scholes call and put price. */
GPM_HD void blk_ref_price(double S, double X, double T, double r, double v, double *call,
                          double *put)
{
    double vs = v * sqrt(T);
    double d1 = (log(S / X) + (r + 0.5 * v * v) * T) / vs, d2 = d1 - vs;
    double disc = X * exp(-r * T);
    *call = S * blk_cnd(d1) - disc * blk_cnd(d2);
    *put = disc * blk_cnd(-d2) - S * blk_cnd(-d1);
}

/* Option I's accumulated prices after ITERS iterations. */
GPM_HD void blk_ref_option(uint64_t seed, uint64_t i, uint64_t iters, double *call, double *put)
{
    double S = blk_stock(seed, i), X = blk_strike(seed, i), T0 = blk_years(seed, i);
    double c = 0, p = 0;
    for (uint64_t it = 0; it < iters; it++) {
        double ci, pi;
        /* The GPU computes the week offset in float: so does the reference
         * (it then adds it in double; the tolerance covers that rounding). */
        blk_ref_price(S, X, T0 + (double)((float)it * BLK_DT), BLK_RATE, BLK_VOLATILITY, &ci,
                      &pi);
        c += ci;
        p += pi;
    }
    *call = c;
    *put = p;
}

/* Tolerance: prices are at most ~100 (strike < 100). A float price carries
 * rounding of a few ulps of its largest term (ulp(100) = 7.6e-6; the call's
 * S*N(d1) - X*exp(-rT)*N(d2) cancels, so ~4 ulps) and the inputs may differ
 * from the double ones by an ulp where the GPU fused a multiply-add (a price
 * moves at most one unit per unit of S or X), so each price is within ~5e-5;
 * each float accumulation adds half an ulp of a sum below 100 * ITERS. So
 * 2e-4 per iteration plus 1e-5 relative keeps a factor >2 of margin, while
 * a wrong iteration count, a lost checkpoint or a torn copy is off by whole
 * prices (>= 1e-2 for all but worthless options, and those are caught by
 * their partner price). */
GPM_HD double blk_abs_tol(uint64_t iters) { return 2e-4 * (double)iters; }
#define BLK_REL_TOL 1e-5

/* Is option I's float result (CALL, PUT) the reference's? */
GPM_HD int blk_option_ok(uint64_t seed, uint64_t i, uint64_t iters, float call, float put)
{
    double c, p, tol_c, tol_p;
    blk_ref_option(seed, i, iters, &c, &p);
    tol_c = blk_abs_tol(iters) + BLK_REL_TOL * fabs(c);
    tol_p = blk_abs_tol(iters) + BLK_REL_TOL * fabs(p);
    /* Written so that a NaN is never within tolerance. */
    return fabs((double)call - c) <= tol_c && fabs((double)put - p) <= tol_p;
}

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

#endif
