/* BLK's CPU check: the double-precision reference of blk_model.h over every
 * option (the GPU check, blk_kernels.cu, runs the same code). */
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

int blk_check(const float *call, const float *put, uint64_t n, uint64_t seed, uint64_t iters)
{
    long long bad = -1;
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; i++) {
        if (!blk_option_ok(seed, i, iters, call[i], put[i])) {
#pragma omp critical
            if (bad < 0 || (long long)i < bad)
                bad = (long long)i;
        }
    }
    return bad < 0 ? 0 : blk_report_bad(&call[bad], &put[bad], seed, iters, bad);
}
