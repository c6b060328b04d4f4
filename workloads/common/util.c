/* Clock and output checks shared by every workload. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "wl.h"

double wl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int wl_check_u32(const char *what, const uint32_t *got, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            gpm_set_error("%s: element %zu is %u, expected %u", what, i, got[i], want[i]);
            return 1;
        }
    return 0;
}

int wl_check_close_f32(const char *what, const float *got, const double *want, size_t n,
                       double abs_tol, double rel_tol)
{
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        if (!wl_close(g, w, abs_tol, rel_tol)) {
            gpm_set_error("%s: element %zu is %.9g, expected %.9g (tolerance %.3g)", what, i,
                          g, w, abs_tol + rel_tol * fabs(w));
            return 1;
        }
    }
    return 0;
}
