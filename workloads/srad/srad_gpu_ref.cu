/* The verification's reference on the GPU, for sizes at which a CPU pass
 * takes longer than the run it checks (paper scale: 128M pixels x 50
 * iterations). Kernels of its own, the simplest form of each step (one
 * pixel per thread, derivatives recomputed, the image double-buffered in
 * device memory, nothing on PM), around the srad_model.h code that the CPU
 * tests check against hand-computed values. */
#include <cuda_runtime.h>

#include "gpm/gpm.cuh"
#include "srad.h"

__global__ void srad_ref_coef_kernel(const float *img, srad_geom g, const float *q0p, float *c)
{
    uint64_t n = g.rows * g.cols;
    float q0 = *q0p;
    for (uint64_t k = gpm_grid_rank(); k < n; k += gpm_grid_threads()) {
        float d[4];
        srad_derivs(img, &g, k / g.cols, k % g.cols, d);
        c[k] = srad_coef(img[k], d, q0);
    }
}

__global__ void srad_ref_update_kernel(const float *img, float *out, srad_geom g, float step,
                                       const float *c)
{
    uint64_t n = g.rows * g.cols;
    for (uint64_t k = gpm_grid_rank(); k < n; k += gpm_grid_threads()) {
        uint64_t i = k / g.cols, j = k % g.cols;
        float d[4];
        srad_derivs(img, &g, i, j, d);
        out[k] = srad_update(img[k], c[k], srad_coef_south(c, &g, i, j),
                             srad_coef_east(c, &g, i, j), d, step);
    }
}

extern "C" int srad_gpu_reference(const float *j0, srad_geom g, float step, uint64_t iters,
                                  float *j, float *c)
{
    uint64_t n = g.rows * g.cols;
    size_t bytes = n * sizeof(float);
    float *a = NULL, *b = NULL, *dc = NULL, *q0 = NULL;
    double *roi = NULL;
    int rc = -1;
    if (wl_dev_alloc((void **)&a, bytes) != 0 || wl_dev_alloc((void **)&b, bytes) != 0 ||
        wl_dev_alloc((void **)&dc, bytes) != 0 || wl_dev_alloc((void **)&q0, sizeof *q0) != 0 ||
        wl_dev_alloc((void **)&roi, 2 * srad_roi_rows(&g) * sizeof *roi) != 0 ||
        wl_dev_copy(a, j0, bytes, 1) != 0)
        goto out;
    for (uint64_t t = 0; t < iters; t++) {
        float *x;
        if (srad_gpu_q0sqr(a, g, roi, q0) != 0)
            goto out;
        srad_ref_coef_kernel<<<4096, 256>>>(a, g, q0, dc);
        if (wl_dev_sync("reference coefficient kernel") != 0)
            goto out;
        srad_ref_update_kernel<<<4096, 256>>>(a, b, g, step, dc);
        if (wl_dev_sync("reference update kernel") != 0)
            goto out;
        x = a, a = b, b = x;
    }
    rc = wl_dev_copy(j, a, bytes, 0) != 0 || wl_dev_copy(c, dc, bytes, 0) != 0 ? -1 : 0;
out:
    wl_dev_free(a);
    wl_dev_free(b);
    wl_dev_free(dc);
    wl_dev_free(q0);
    wl_dev_free(roi);
    return rc;
}
