/* CFD kernels: one solver iteration in float (Rodinia's: keep the old
 * state, step factors, then CFD_RK stages of flux and time step), and the
 * check of a result against the same scheme in double run on the GPU. Each
 * kernel is a grid-stride loop over elements around the GPM_HD code of
 * cfd_scheme.h, which the CPU tests exercise. */
#include <cuda_runtime.h>

#include "cfd.h"
#include "gpm/gpm.cuh"
#include "wl.cuh"

#define CFD_THREADS 256
#define CFD_FLUX_THREADS 128 /* the flux kernel holds two cells in registers */

__global__ void cfd_init_kernel_f(float *var, uint64_t n, cfd_cell_f ff)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        cfd_init_elem_f(var, n, i, &ff);
}

__global__ void cfd_step_factor_kernel_f(const float *var, const float *vol, float *sf,
                                         uint64_t n)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        sf[i] = cfd_step_factor_f(var, n, i, vol[i]);
}

__global__ void cfd_flux_kernel_f(const int32_t *nb, const float *normal, const float *var,
                                  float *flux, uint64_t n, cfd_cell_f ff)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        float f[CFD_NVAR];
        cfd_flux_f(i, n, nb, normal, var, &ff, f);
        for (int v = 0; v < CFD_NVAR; v++)
            flux[cfd_var_at(n, i, v)] = f[v];
    }
}

__global__ void cfd_time_step_kernel_f(int j, const float *old, float *var, const float *sf,
                                       const float *flux, uint64_t n)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        cfd_time_step_f(i, n, j, old, var, sf, flux);
}

/* The same kernels in double, for the reference. */
__global__ void cfd_init_kernel_d(double *var, uint64_t n, cfd_cell_d ff)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        cfd_init_elem_d(var, n, i, &ff);
}

__global__ void cfd_step_factor_kernel_d(const double *var, const float *vol, double *sf,
                                         uint64_t n)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        sf[i] = cfd_step_factor_d(var, n, i, vol[i]);
}

__global__ void cfd_flux_kernel_d(const int32_t *nb, const float *normal, const double *var,
                                  double *flux, uint64_t n, cfd_cell_d ff)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        double f[CFD_NVAR];
        cfd_flux_d(i, n, nb, normal, var, &ff, f);
        for (int v = 0; v < CFD_NVAR; v++)
            flux[cfd_var_at(n, i, v)] = f[v];
    }
}

__global__ void cfd_time_step_kernel_d(int j, const double *old, double *var, const double *sf,
                                       const double *flux, uint64_t n)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        cfd_time_step_d(i, n, j, old, var, sf, flux);
}

__global__ void cfd_check_kernel(const float *got, const double *want, uint64_t n,
                                 uint64_t iters, unsigned long long *bad)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        if (!cfd_elem_ok(got, want, n, i, iters))
            atomicMin(bad, (unsigned long long)i);
}

/* The most blocks a launch takes (n <= CFD_MAX_ELEMENTS keeps the count
 * far below the grid's limit; the kernels stride over any rest). */
#define CFD_MAX_BLOCKS 0x7fffffffu

/* Launch errors are caught at once, naming the kernel; execution errors
 * when the caller synchronises (wl_dev_sync). */
static int launched(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return gpm_set_error("%s kernel launch failed (%s)", what, cudaGetErrorString(e));
    return 0;
}

static int copy_dd(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0);
    if (e != cudaSuccess)
        return gpm_set_error("device copy of %zu bytes failed (%s)", bytes, cudaGetErrorString(e));
    return 0;
}

extern "C" int cfd_gpu_init(float *var, uint64_t n)
{
    cfd_cell_f ff;
    cfd_free_stream_f(&ff);
    cfd_init_kernel_f<<<wl_blocks(n, CFD_THREADS, CFD_MAX_BLOCKS), CFD_THREADS>>>(var, n, ff);
    return launched("free-stream") || wl_dev_sync("free-stream kernel") ? -1 : 0;
}

extern "C" int cfd_gpu_iterate(const struct cfd_dev *d)
{
    const uint64_t n = d->n;
    const unsigned nb = wl_blocks(n, CFD_THREADS, CFD_MAX_BLOCKS),
                   nf = wl_blocks(n, CFD_FLUX_THREADS, CFD_MAX_BLOCKS);
    cfd_cell_f ff;
    cfd_free_stream_f(&ff);
    if (copy_dd(d->old, d->var, n * CFD_NVAR * sizeof(float)) != 0)
        return -1;
    cfd_step_factor_kernel_f<<<nb, CFD_THREADS>>>(d->var, d->vol, d->sf, n);
    if (launched("step factor") != 0)
        return -1;
    for (int j = 0; j < CFD_RK; j++) {
        cfd_flux_kernel_f<<<nf, CFD_FLUX_THREADS>>>(d->nb, d->normal, d->var, d->flux, n, ff);
        if (launched("flux") != 0)
            return -1;
        cfd_time_step_kernel_f<<<nb, CFD_THREADS>>>(j, d->old, d->var, d->sf, d->flux, n);
        if (launched("time step") != 0)
            return -1;
    }
    /* Once per iteration rather than per kernel: its 8 launches are
     * ordered on the stream, and a fault is still reported with its
     * iteration. */
    return wl_dev_sync("solver iteration (step factor, flux, time step kernels)");
}

/* ITERS iterations of the double scheme from the free stream into VAR,
 * with OLD, FLUX (CFD_NVAR n each) and SF (n) as scratch. */
static int reference(const struct cfd_dev *d, uint64_t iters, double *var, double *old,
                     double *flux, double *sf)
{
    const uint64_t n = d->n;
    const unsigned nb = wl_blocks(n, CFD_THREADS, CFD_MAX_BLOCKS),
                   nf = wl_blocks(n, CFD_FLUX_THREADS, CFD_MAX_BLOCKS);
    cfd_cell_d ff;
    cfd_free_stream_d(&ff);
    cfd_init_kernel_d<<<nb, CFD_THREADS>>>(var, n, ff);
    if (launched("reference free-stream") != 0)
        return -1;
    for (uint64_t it = 0; it < iters; it++) {
        if (copy_dd(old, var, n * CFD_NVAR * sizeof(double)) != 0)
            return -1;
        cfd_step_factor_kernel_d<<<nb, CFD_THREADS>>>(var, d->vol, sf, n);
        if (launched("reference step factor") != 0)
            return -1;
        for (int j = 0; j < CFD_RK; j++) {
            cfd_flux_kernel_d<<<nf, CFD_FLUX_THREADS>>>(d->nb, d->normal, var, flux, n, ff);
            if (launched("reference flux") != 0)
                return -1;
            cfd_time_step_kernel_d<<<nb, CFD_THREADS>>>(j, old, var, sf, flux, n);
            if (launched("reference time step") != 0)
                return -1;
        }
        if (wl_dev_sync("reference iteration (double step factor, flux, time step kernels)") != 0)
            return -1;
    }
    return 0;
}

/* The measure of a wrong state: it and the reference VAR copied to the
 * host and counted there (nothing where they do not fit). */
static void count_wrong(const struct cfd_dev *d, const double *var, uint64_t iters,
                        struct wl_wrong *w)
{
    const uint64_t n = d->n;
    float *got = (float *)malloc(n * CFD_NVAR * sizeof *got);
    double *want = (double *)malloc(n * CFD_NVAR * sizeof *want);
    if (got && want && wl_dev_copy(got, d->var, n * CFD_NVAR * sizeof *got, 0) == 0 &&
        wl_dev_copy(want, var, n * CFD_NVAR * sizeof *want, 0) == 0)
        cfd_count_wrong(got, want, n, iters, w);
    free(got);
    free(want);
}

extern "C" int cfd_gpu_check(const struct cfd_dev *d, uint64_t iters, struct wl_wrong *w)
{
    const uint64_t n = d->n;
    double *var = NULL, *old = NULL, *flux = NULL, *sf = NULL, want[CFD_NVAR];
    unsigned long long *bad = NULL, first = ~0ull;
    float got[CFD_NVAR];
    int rc = -1;
    if (wl_dev_alloc((void **)&var, n * CFD_NVAR * sizeof(double)) != 0 ||
        wl_dev_alloc((void **)&old, n * CFD_NVAR * sizeof(double)) != 0 ||
        wl_dev_alloc((void **)&flux, n * CFD_NVAR * sizeof(double)) != 0 ||
        wl_dev_alloc((void **)&sf, n * sizeof(double)) != 0 ||
        wl_dev_alloc((void **)&bad, sizeof *bad) != 0 ||
        wl_dev_copy(bad, &first, sizeof first, 1) != 0 ||
        reference(d, iters, var, old, flux, sf) != 0)
        goto out;
    cfd_check_kernel<<<wl_blocks(n, CFD_THREADS, CFD_MAX_BLOCKS), CFD_THREADS>>>(d->var, var, n,
                                                                             iters, bad);
    if (launched("reference check") != 0 || wl_dev_sync("reference check kernel") != 0 ||
        wl_dev_copy(&first, bad, sizeof first, 0) != 0)
        goto out;
    rc = 0;
    if (first == ~0ull)
        goto out;
    rc = -1;
    for (int v = 0; v < CFD_NVAR; v++)
        if (wl_dev_copy(&got[v], d->var + cfd_var_at(n, first, v), sizeof got[v], 0) != 0 ||
            wl_dev_copy(&want[v], var + cfd_var_at(n, first, v), sizeof want[v], 0) != 0)
            goto out;
    rc = cfd_report_bad(got, want, first, iters);
    if (w) {
        char why[1024];
        snprintf(why, sizeof why, "%s", gpm_last_error());
        count_wrong(d, var, iters, w);
        gpm_set_error("%s", why);
    }
out:
    wl_dev_free(var);
    wl_dev_free(old);
    wl_dev_free(flux);
    wl_dev_free(sf);
    wl_dev_free(bad);
    return rc;
}
