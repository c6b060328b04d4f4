/* HS kernels: one pyramid call (HEIGHT steps per launch, each block on its
 * tile with a halo), and the reference check (one step per launch, in
 * float and in double, then the comparison). The stencil, the tiling and
 * the tolerance are hs_model.h's, which the CPU tests run. */
#include <string.h>

#include <cuda_runtime.h>

#include "gpm/gpm.cuh"
#include "hs.h"

__global__ void __launch_bounds__(HS_TILE * HS_TILE)
    hs_pyramid_kernel(const float *__restrict__ power, const float *__restrict__ src,
                      float *__restrict__ dst, uint64_t rows, uint64_t cols, int height,
                      int steps, hs_coef coef)
{
    __shared__ float t[HS_TILE][HS_TILE];
    const hs_coef k = coef; /* a local copy: the stencil takes its address */
    const int x = threadIdx.x, y = threadIdx.y;
    const hs_tile tl = hs_tile_at(rows, cols, height, blockIdx.y, blockIdx.x);
    const int inside = hs_tile_inside(&tl, y, x);
    uint64_t i = 0;
    float p = 0.0f, v = 0.0f;
    if (inside) {
        i = hs_tile_index(&tl, cols, y, x);
        t[y][x] = src[i];
        p = power[i];
    }
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        const int computes = hs_tile_computes(&tl, s, y, x);
        if (computes) {
            const hs_tnbrs b = hs_tile_nbrs(&tl, y, x);
            v = hs_cell_f(&k, t[y][x], t[b.n][x], t[b.s][x], t[y][b.e], t[y][b.w], p);
        }
        __syncthreads(); /* every read of step s before any write */
        if (computes)
            t[y][x] = v;
        __syncthreads();
    }
    if (hs_tile_owns(&tl, height, y, x))
        dst[i] = t[y][x];
}

extern "C" int hs_gpu_call(const float *power, const float *src, float *dst, uint64_t rows,
                           uint64_t cols, int height, int steps, hs_coef k)
{
    uint64_t bx = hs_tiles(cols, height), by = hs_tiles(rows, height);
    if (height < 1 || height > HS_MAX_HEIGHT || steps < 1 || steps > height)
        return gpm_set_error("hs: a call of %d steps at pyramid height %d: pass "
                             "--pyramid-height 1..%d", steps, height, HS_MAX_HEIGHT);
    if (bx > 0x7fffffffull || by > 65535)
        return gpm_set_error("hs: %llu x %llu tiles exceed the CUDA grid: use fewer --rows or "
                             "a lower --pyramid-height", (unsigned long long)by,
                             (unsigned long long)bx);
    hs_pyramid_kernel<<<dim3((unsigned)bx, (unsigned)by), dim3(HS_TILE, HS_TILE)>>>(
        power, src, dst, rows, cols, height, steps, k);
    return wl_dev_sync("pyramid kernel");
}

/* ---- the reference check ---- */

__global__ void hs_ref_init_kernel(const float *init, float *f, double *d, uint64_t n)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        f[i] = init[i];
        d[i] = init[i];
    }
}

/* One step of the whole grid, in float and in double. */
__global__ void hs_ref_step_kernel(const float *__restrict__ power, const float *__restrict__ sf,
                                   float *__restrict__ df, const double *__restrict__ sd,
                                   double *__restrict__ dd, uint64_t rows, uint64_t cols,
                                   hs_coef coef)
{
    const hs_coef k = coef;
    const uint64_t n = rows * cols;
    const int narrow = n <= 0xffffffffull; /* 32-bit division where it suffices */
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        const uint64_t r = narrow ? (uint32_t)i / (uint32_t)cols : i / cols;
        const hs_nbrs b = hs_grid_nbrs(rows, cols, r, i - r * cols);
        const float p = power[i];
        df[i] = hs_cell_f(&k, sf[b.i], sf[b.n], sf[b.s], sf[b.e], sf[b.w], p);
        dd[i] = hs_cell_d(&k, sd[b.i], sd[b.n], sd[b.s], sd[b.e], sd[b.w], p);
    }
}

__global__ void hs_compare_kernel(const float *got, const float *rf, const double *rd,
                                  uint64_t n, double tol, struct hs_check *r)
{
    unsigned long long checked = 0, bad_exact = 0, bad_tol = 0;
    double maxerr = 0;
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        const float g = got[i];
        const double err = fabs((double)g - rd[i]);
        checked++;
        if (__float_as_uint(g) != __float_as_uint(rf[i])) {
            bad_exact++;
            atomicMin(&r->first_exact, (unsigned long long)i);
        }
        if (!hs_close(g, rd[i], tol)) {
            bad_tol++;
            atomicMin(&r->first_tol, (unsigned long long)i);
        }
        /* A NaN counts as the largest error. */
        maxerr = err > maxerr ? err : err == err ? maxerr : HUGE_VAL;
    }
    atomicAdd(&r->checked, checked);
    if (bad_exact)
        atomicAdd(&r->bad_exact, bad_exact);
    if (bad_tol)
        atomicAdd(&r->bad_tol, bad_tol);
    atomicMax(&r->maxerr_bits, (unsigned long long)__double_as_longlong(maxerr));
}

enum { HS_CHECK_BLOCKS = 4096, HS_CHECK_THREADS = 256 };

static int cell_values(const float *got, const float *rf, const double *rd,
                       const struct hs_check *r, float *g1, float *wf, float *g2, double *wd)
{
    *g1 = *wf = *g2 = 0;
    *wd = 0;
    if (r->bad_exact && (wl_dev_copy(g1, got + r->first_exact, sizeof *g1, 0) != 0 ||
                         wl_dev_copy(wf, rf + r->first_exact, sizeof *wf, 0) != 0))
        return -1;
    if (r->bad_tol && (wl_dev_copy(g2, got + r->first_tol, sizeof *g2, 0) != 0 ||
                       wl_dev_copy(wd, rd + r->first_tol, sizeof *wd, 0) != 0))
        return -1;
    return 0;
}

extern "C" int hs_gpu_check(const float *got, const float *power, const float *init,
                            uint64_t rows, uint64_t cols, uint64_t iters, hs_coef k, double tol,
                            struct hs_check *d_check, struct hs_check *r)
{
    const uint64_t n = rows * cols;
    float *f[2] = {NULL, NULL}, g1, wf, g2;
    double *d[2] = {NULL, NULL}, wd;
    int rc = -1;
    memset(r, 0, sizeof *r);
    r->first_exact = r->first_tol = ~0ull;
    if (wl_dev_alloc((void **)&f[0], n * sizeof(float)) != 0 ||
        wl_dev_alloc((void **)&f[1], n * sizeof(float)) != 0 ||
        wl_dev_alloc((void **)&d[0], n * sizeof(double)) != 0 ||
        wl_dev_alloc((void **)&d[1], n * sizeof(double)) != 0 ||
        wl_dev_copy(d_check, r, sizeof *r, 1) != 0)
        goto out;
    hs_ref_init_kernel<<<HS_CHECK_BLOCKS, HS_CHECK_THREADS>>>(init, f[0], d[0], n);
    if (wl_dev_sync("reference initialisation kernel") != 0)
        goto out;
    for (uint64_t s = 0; s < iters; s++) {
        int a = (int)(s & 1);
        hs_ref_step_kernel<<<HS_CHECK_BLOCKS, HS_CHECK_THREADS>>>(power, f[a], f[!a], d[a],
                                                                   d[!a], rows, cols, k);
        if (wl_dev_sync("reference step kernel") != 0)
            goto out;
    }
    hs_compare_kernel<<<HS_CHECK_BLOCKS, HS_CHECK_THREADS>>>(got, f[iters & 1], d[iters & 1], n,
                                                             tol, d_check);
    if (wl_dev_sync("reference comparison kernel") != 0 ||
        wl_dev_copy(r, d_check, sizeof *r, 0) != 0 ||
        cell_values(got, f[iters & 1], d[iters & 1], r, &g1, &wf, &g2, &wd) != 0)
        goto out;
    rc = hs_check_verdict(r, n, cols, tol, g1, wf, g2, wd);
out:
    wl_dev_free(f[0]);
    wl_dev_free(f[1]);
    wl_dev_free(d[0]);
    wl_dev_free(d[1]);
    return rc;
}
