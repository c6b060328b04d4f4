/* SRAD, speckle-reducing anisotropic diffusion with native persistence
 * (paper Table 1: a 128K x 1K image). Every iteration's image and
 * diffusion coefficients are made durable, then a completion record, so a
 * crash resumes from the last complete iteration (srad_layout.h). */
#ifndef SRAD_H
#define SRAD_H

#include <stddef.h>
#include <stdint.h>

#include "srad_layout.h"
#include "srad_model.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SRAD_PM }; /* the one PM object: the layout of srad_layout.h */

struct srad_state {
    srad_geom g;
    uint64_t n, iters;
    float step;                  /* lambda / 4 */
    float *h_j0;                 /* the prepared input image (host) */
    /* cpu mode: */
    float *h_dir[4];             /* derivatives N, S, W, E */
    double *h_roi;               /* ROI row sums */
    /* GPU modes, device memory: */
    float *d_j;                  /* the image, updated in place */
    float *d_c;                  /* the coefficients */
    float *d_dir[4];             /* derivatives N, S, W, E */
    double *d_roi;               /* ROI row sums */
    float *d_q0;                 /* q0^2 of the iteration */
    uint64_t computed;           /* iterations the last run or recovery computed */
};

/* Kernels (srad_kernels.cu), each checked with wl_dev_sync. ROI_SUMS holds
 * 2 doubles per ROI row; Q0 one float. */
int srad_gpu_q0sqr(const float *d_j, srad_geom g, double *roi_sums, float *q0);
/* Derivatives into DIR[0..3] and coefficients into C; also into PM_C (the
 * PM slot, stored and persisted the way O says) unless it is NULL. */
int srad_gpu_coef(const float *d_j, srad_geom g, const float *q0, float *const dir[4], float *c,
                  float *pm_c, wl_out o);
/* The image update, in place in D_J, and into PM_J unless it is NULL. */
int srad_gpu_update(float *d_j, srad_geom g, float step, float *const dir[4], const float *c,
                    float *pm_j, wl_out o);
/* The verification's reference on the GPU (srad_gpu_ref.cu): ITERS
 * iterations from the host image J0, by kernels of their own (one pixel
 * per thread, derivatives recomputed) around the same srad_model.h code;
 * the final image and coefficients are copied to the host arrays J and C. */
int srad_gpu_reference(const float *j0, srad_geom g, float step, uint64_t iters, float *j,
                       float *c);

/* CPU side (srad_ref.c). */
void srad_cpu_generate(float *j0, uint64_t n, uint64_t seed);
/* q0^2 of IMG; ROI_SUMS has room for 2 doubles per ROI row. */
float srad_cpu_q0sqr(const float *img, const srad_geom *g, double *roi_sums);
/* One reference iteration with the given Q0SQR: coefficients into C, the
 * new image into OUT (not IN). */
void srad_ref_step(const srad_geom *g, float step, float q0sqr, const float *in, float *out,
                   float *c);
/* ITERS reference iterations from J0: the image into J, the last
 * iteration's coefficients into C. 0, or -1 out of memory. */
int srad_ref_run(const srad_geom *g, float step, const float *j0, uint64_t iters, float *j,
                 float *c);
/* Compares a result (J, C) with the reference (REF_J, REF_C) within the
 * tolerances for ITERS iterations: 0 right, 1 wrong (the first wrong pixel
 * in the message). *MAX_DJ, *MAX_DC get the largest differences (infinite
 * for a NaN). Adds to W (NULL: not wanted) the pixels compared, those whose
 * value or coefficient is outside its tolerance, and the largest
 * difference of a value (absolute, as the tolerance). */
int srad_check(const float *j, const float *c, const float *ref_j, const float *ref_c,
               const srad_geom *g, uint64_t iters, double *max_dj, double *max_dc,
               struct wl_wrong *w);
/* Iteration ITER of the CPU counterpart: from IN (the input, or the image
 * of ITER - 1) into slot ITER % 2 of region SRAD_PM, coefficients then
 * image, each row made durable with libpmem by the thread that wrote it.
 * The caller writes the record. 0, or -1 if a persist failed. */
int srad_cpu_iteration(struct wl_ctx *c, const struct srad_state *st, const float *in,
                       uint64_t iter);

#ifdef __cplusplus
}
#endif

#endif
