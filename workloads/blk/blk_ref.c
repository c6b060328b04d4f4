/* BLK's CPU check: the double-precision reference of blk_model.h over every
 * option (the GPU check, blk_kernels.cu, runs the same code). */
#include <math.h>
#include <stdio.h>

#include "blk.h"

int blk_report_bad(const float *call, const float *put, uint64_t seed, uint64_t iters,
                   long long bad)
{
    double c, p;
    blk_ref_option(seed, (uint64_t)bad, iters, &c, &p);
    gpm_set_error("blk: option %lld: call %.7g put %.7g, expected %.7g and %.7g (tolerance "
                  "%.2g + %.0e relative)", bad, call[0], put[0], c, p, blk_abs_tol(iters),
                  BLK_REL_TOL);
    return 1;
}

int blk_check(const float *call, const float *put, uint64_t n, uint64_t seed, uint64_t iters,
              struct wl_wrong *w)
{
    uint64_t first = n, bad = 0;
    double max_err = 0;
#pragma omp parallel for schedule(static) reduction(min : first) reduction(+ : bad) \
    reduction(max : max_err)
    for (uint64_t i = 0; i < n; i++) {
        double c, p, ec, ep;
        blk_ref_option(seed, i, iters, &c, &p);
        ec = fabs((double)call[i] - c);
        ep = fabs((double)put[i] - p);
        ec = ec == ec ? ec : INFINITY; /* a NaN: no error is larger */
        ep = ep == ep ? ep : INFINITY;
        max_err = ec > max_err ? ec : max_err;
        max_err = ep > max_err ? ep : max_err;
        if (!(ec <= blk_abs_tol(iters) + BLK_REL_TOL * fabs(c) &&
              ep <= blk_abs_tol(iters) + BLK_REL_TOL * fabs(p))) {
            bad++;
            first = i < first ? i : first;
        }
    }
    if (w) {
        w->units = "options";
        w->bad += bad;
        w->total += n;
        w->err = "abs";
        w->max_err = max_err > w->max_err ? max_err : w->max_err;
    }
    return bad ? blk_report_bad(&call[first], &put[first], seed, iters, (long long)first) : 0;
}
