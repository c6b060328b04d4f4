/* The CPU solver of CFD, written once in the precision CFD_R (cfd_ref.c
 * includes it twice, as cfd_scheme.h is): double is the reference every run
 * is checked against, float the kernels' own arithmetic for the tests.
 * OpenMP over elements with Rodinia's iteration: keep the old state,
 * compute the step factors, then CFD_RK stages of flux and time step. */
#if !defined(CFD_R) || !defined(CFD_FN)
#error "cfd_solve.h is included by cfd_ref.c with CFD_R and CFD_FN defined"
#endif

int CFD_FN(cfd_cpu_solve)(const struct cfd_mesh *m, uint64_t iters, CFD_R *var)
{
    const uint64_t n = m->n;
    CFD_R *old = malloc(n * CFD_NVAR * sizeof *old), *flux = malloc(n * CFD_NVAR * sizeof *flux);
    CFD_R *sf = malloc(n * sizeof *sf);
    CFD_FN(cfd_cell) ff;
    if (!old || !flux || !sf) {
        free(old);
        free(flux);
        free(sf);
        return gpm_set_error("cfd: out of memory for the CPU solver of %llu elements",
                             (unsigned long long)n);
    }
    CFD_FN(cfd_free_stream)(&ff);
#pragma omp parallel if (n >= CFD_OMP_MIN)
    {
#pragma omp for schedule(static)
        for (uint64_t i = 0; i < n; i++)
            CFD_FN(cfd_init_elem)(var, n, i, &ff);
        for (uint64_t it = 0; it < iters; it++) {
#pragma omp single
            memcpy(old, var, n * CFD_NVAR * sizeof *old);
#pragma omp for schedule(static)
            for (uint64_t i = 0; i < n; i++)
                sf[i] = CFD_FN(cfd_step_factor)(var, n, i, m->vol[i]);
            for (int j = 0; j < CFD_RK; j++) {
#pragma omp for schedule(static)
                for (uint64_t i = 0; i < n; i++) {
                    CFD_R f[CFD_NVAR];
                    CFD_FN(cfd_flux)(i, n, m->nb, m->normal, var, &ff, f);
                    for (int v = 0; v < CFD_NVAR; v++)
                        flux[cfd_var_at(n, i, v)] = f[v];
                }
#pragma omp for schedule(static)
                for (uint64_t i = 0; i < n; i++)
                    CFD_FN(cfd_time_step)(i, n, j, old, var, sf, flux);
            }
        }
    }
    free(old);
    free(flux);
    free(sf);
    return 0;
}
