/* SRAD kernels: the ROI statistics, then Rodinia's two kernels (derivatives
 * and coefficients; the image update), each storing its output to PM and
 * persisting it in-kernel where the mode says (wl.cuh). */
#include <cuda_runtime.h>

#include "srad.h"
#include "wl.cuh"

#define SRAD_THREADS 256
#define SRAD_MAX_BLOCKS 65535u

/* Pixels per thread and step: one 16-byte store and one persist to PM. A
 * fenced store costs about the same at any width (paper Figure 3), so
 * persisting 4 pixels at a time runs at the link's rate, not the fence's. */
#define SRAD_PIX 4

__global__ void srad_roi_rows_kernel(const float *img, srad_geom g, double *sums)
{
    uint64_t nr = srad_roi_rows(&g);
    for (uint64_t r = gpm_grid_rank(); r < nr; r += gpm_grid_threads())
        srad_roi_row(img, &g, g.r1 + r, &sums[2 * r]);
}

/* One thread: the rows' sums in order, as on the CPU. */
__global__ void srad_q0sqr_kernel(const double *sums, srad_geom g, float *q0)
{
    *q0 = srad_q0sqr(sums, &g);
}

/* M (1..4) values V to PM at P[K0..K0+M), K0 a multiple of 4 (16-byte
 * aligned: every PM array starts on a page), then one persist. In the SBRP
 * variant nothing orders a thread's pixels among themselves (the host's
 * record after the kernel covers them all): no oFence, and the thread's
 * one dFence at its end makes them durable. */
__device__ __forceinline__ void store_pixels(wl_out o, float *p, uint64_t k0, int m,
                                             const float *v)
{
    if (m == SRAD_PIX) {
        wl_store_v4(o, (uint4 *)(p + k0),
                    make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]),
                               __float_as_uint(v[2]), __float_as_uint(v[3])));
    } else {
        for (int u = 0; u < m; u++)
            wl_store_u32(o, (uint32_t *)(p + k0 + u), __float_as_uint(v[u]));
    }
    if (!o.sbrp)
        wl_persist(o);
}

/* Rodinia's first kernel: every pixel's derivatives and coefficient. */
__global__ void srad_coef_kernel(const float *img, srad_geom g, const float *q0p, float *dn,
                                 float *ds, float *dw, float *de, float *c, float *pm_c, wl_out o)
{
    uint64_t n = g.rows * g.cols, nq = (n + SRAD_PIX - 1) / SRAD_PIX;
    float q0 = *q0p;
    for (uint64_t q = gpm_grid_rank(); q < nq; q += gpm_grid_threads()) {
        uint64_t k0 = q * SRAD_PIX, i = k0 / g.cols, j = k0 - i * g.cols;
        int m = n - k0 < SRAD_PIX ? (int)(n - k0) : SRAD_PIX;
        float v[SRAD_PIX];
        for (int u = 0; u < m; u++) {
            uint64_t k = k0 + u;
            float d[4];
            srad_derivs(img, &g, i, j, d);
            dn[k] = d[0];
            ds[k] = d[1];
            dw[k] = d[2];
            de[k] = d[3];
            v[u] = srad_coef(img[k], d, q0);
            c[k] = v[u];
            if (++j == g.cols)
                j = 0, i++;
        }
        if (pm_c)
            store_pixels(o, pm_c, k0, m, v);
    }
    if (pm_c)
        wl_dfence(o);
}

/* Rodinia's second kernel: the update, in place (a pixel's update reads no
 * other pixel's image value), and to PM. */
__global__ void srad_update_kernel(float *img, srad_geom g, float step, const float *dn,
                                   const float *ds, const float *dw, const float *de,
                                   const float *c, float *pm_j, wl_out o)
{
    uint64_t n = g.rows * g.cols, nq = (n + SRAD_PIX - 1) / SRAD_PIX;
    for (uint64_t q = gpm_grid_rank(); q < nq; q += gpm_grid_threads()) {
        uint64_t k0 = q * SRAD_PIX, i = k0 / g.cols, j = k0 - i * g.cols;
        int m = n - k0 < SRAD_PIX ? (int)(n - k0) : SRAD_PIX;
        float v[SRAD_PIX];
        for (int u = 0; u < m; u++) {
            uint64_t k = k0 + u;
            float d[4] = {dn[k], ds[k], dw[k], de[k]};
            v[u] = srad_update(img[k], c[k], srad_coef_south(c, &g, i, j),
                               srad_coef_east(c, &g, i, j), d, step);
            img[k] = v[u];
            if (++j == g.cols)
                j = 0, i++;
        }
        if (pm_j)
            store_pixels(o, pm_j, k0, m, v);
    }
    if (pm_j)
        wl_dfence(o);
}

extern "C" int srad_gpu_q0sqr(const float *d_j, srad_geom g, double *roi_sums, float *q0)
{
    const unsigned blocks = wl_blocks(srad_roi_rows(&g), SRAD_THREADS, SRAD_MAX_BLOCKS);
    srad_roi_rows_kernel<<<blocks, SRAD_THREADS>>>(d_j, g, roi_sums);
    if (wl_dev_sync("ROI row sums kernel") != 0)
        return -1;
    srad_q0sqr_kernel<<<1, 1>>>(roi_sums, g, q0);
    return wl_dev_sync("ROI statistics kernel");
}

extern "C" int srad_gpu_coef(const float *d_j, srad_geom g, const float *q0, float *const dir[4],
                             float *c, float *pm_c, wl_out o)
{
    uint64_t nq = (g.rows * g.cols + SRAD_PIX - 1) / SRAD_PIX;
    const unsigned blocks = wl_blocks(nq, SRAD_THREADS, SRAD_MAX_BLOCKS);
    srad_coef_kernel<<<blocks, SRAD_THREADS>>>(d_j, g, q0, dir[0], dir[1], dir[2], dir[3], c, pm_c,
                                               o);
    return wl_dev_sync("coefficient kernel");
}

extern "C" int srad_gpu_update(float *d_j, srad_geom g, float step, float *const dir[4],
                               const float *c, float *pm_j, wl_out o)
{
    uint64_t nq = (g.rows * g.cols + SRAD_PIX - 1) / SRAD_PIX;
    const unsigned blocks = wl_blocks(nq, SRAD_THREADS, SRAD_MAX_BLOCKS);
    srad_update_kernel<<<blocks, SRAD_THREADS>>>(d_j, g, step, dir[0], dir[1], dir[2], dir[3], c,
                                                 pm_j, o);
    return wl_dev_sync("image update kernel");
}
