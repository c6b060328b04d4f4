/* CFD on the CPU: the solver in double (the reference every run is checked
 * against) and in float (the kernels' code, for the tests), both OpenMP
 * over elements with Rodinia's iteration: keep the old state, compute the
 * step factors, then CFD_RK stages of flux and time step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfd.h"

/* Below this many elements one thread is faster: an iteration has 8
 * barriers, and a small mesh gives each thread too little between them. */
#define CFD_OMP_MIN 50000

/* The solver, once for each precision (cfd_solve.h). */
#define CFD_R double
#define CFD_FN(name) name##_d
#include "cfd_solve.h"
#undef CFD_R
#undef CFD_FN

#define CFD_R float
#define CFD_FN(name) name##_f
#include "cfd_solve.h"
#undef CFD_R
#undef CFD_FN

static const char *const var_names[CFD_NVAR] = {"density", "momentum x", "momentum y",
                                                "momentum z", "energy"};

int cfd_report_bad(const float got[CFD_NVAR], const double want[CFD_NVAR], uint64_t i,
                   uint64_t iters)
{
    int v = 0;
    for (int k = 0; k < CFD_NVAR; k++)
        if (!(fabs((double)got[k] - want[k]) <= cfd_tol(iters, want[k]))) {
            v = k;
            break;
        }
    gpm_set_error("cfd: element %llu after %llu iterations: %s %.9g, expected %.9g (tolerance "
                  "%.2g)", (unsigned long long)i, (unsigned long long)iters, var_names[v],
                  (double)got[v], want[v], cfd_tol(iters, want[v]));
    return 1;
}

uint64_t cfd_count_wrong(const float *got, const double *want, uint64_t n, uint64_t iters,
                         struct wl_wrong *w)
{
    uint64_t first = n, bad = 0;
    double max_err = 0;
#pragma omp parallel for schedule(static) reduction(min : first) reduction(+ : bad) \
    reduction(max : max_err) if (n >= CFD_OMP_MIN)
    for (uint64_t i = 0; i < n; i++) {
        for (int v = 0; v < CFD_NVAR; v++) {
            double x = want[cfd_var_at(n, i, v)];
            double e = fabs((double)got[cfd_var_at(n, i, v)] - x) / (1 + fabs(x));
            max_err = e > max_err ? e : e == e ? max_err : INFINITY; /* a NaN: infinite */
        }
        if (!cfd_elem_ok(got, want, n, i, iters)) {
            bad++;
            first = i < first ? i : first;
        }
    }
    if (w) {
        w->units = "elements";
        w->bad += bad;
        w->total += n;
        w->err = "rel";
        w->max_err = max_err > w->max_err ? max_err : w->max_err;
    }
    return first;
}

int cfd_check(const struct cfd_mesh *m, const float *got, uint64_t iters, struct wl_wrong *w)
{
    const uint64_t n = m->n;
    double *want = malloc(n * CFD_NVAR * sizeof *want), x[CFD_NVAR];
    float g[CFD_NVAR];
    uint64_t bad;
    if (!want)
        return gpm_set_error("cfd: out of memory for the reference of %llu elements",
                             (unsigned long long)n);
    if (cfd_cpu_solve_d(m, iters, want) != 0) {
        free(want);
        return -1;
    }
    bad = cfd_count_wrong(got, want, n, iters, w);
    if (bad < n)
        for (int v = 0; v < CFD_NVAR; v++) {
            g[v] = got[cfd_var_at(n, bad, v)];
            x[v] = want[cfd_var_at(n, bad, v)];
        }
    free(want);
    return bad == n ? 0 : cfd_report_bad(g, x, bad, iters);
}
