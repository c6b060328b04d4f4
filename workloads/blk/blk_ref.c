/* BLK's CPU reference: the same options priced in double precision. */
#include <math.h>
#include <stdio.h>

#include "blk.h"

static double cnd(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

void blk_ref_price(double S, double X, double T, double r, double v, double *call, double *put)
{
    double vs = v * sqrt(T);
    double d1 = (log(S / X) + (r + 0.5 * v * v) * T) / vs, d2 = d1 - vs;
    double disc = X * exp(-r * T);
    *call = S * cnd(d1) - disc * cnd(d2);
    *put = disc * cnd(-d2) - S * cnd(-d1);
}

void blk_ref_option(uint64_t seed, uint64_t i, uint64_t iters, double *call, double *put)
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
int blk_check(const float *call, const float *put, uint64_t n, uint64_t seed, uint64_t iters)
{
    double abs_tol = 2e-4 * (double)iters, rel_tol = 1e-5;
    long long bad = -1;
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; i++) {
        double c, p;
        blk_ref_option(seed, i, iters, &c, &p);
        if (!wl_close(call[i], c, abs_tol, rel_tol) || !wl_close(put[i], p, abs_tol, rel_tol)) {
#pragma omp critical
            if (bad < 0 || (long long)i < bad)
                bad = (long long)i;
        }
    }
    if (bad >= 0) {
        double c, p;
        blk_ref_option(seed, (uint64_t)bad, iters, &c, &p);
        gpm_set_error("blk: option %lld: call %.7g put %.7g, expected %.7g and %.7g "
                      "(tolerance %.2g + %.0e relative)", bad, call[bad], put[bad], c, p,
                      abs_tol, rel_tol);
        return 1;
    }
    return 0;
}
