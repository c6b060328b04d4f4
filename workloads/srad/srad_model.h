/* SRAD's algorithm (speckle-reducing anisotropic diffusion, Rodinia's SRAD
 * v2 steps and constants), written once for the kernels, the CPU reference,
 * the CPU counterpart and the tests.
 *
 * One iteration, on an image J of ROWS x COLS floats:
 *   1. q0^2 = var / mean^2 of the region of interest (ROI);
 *   2. for every pixel, the four differences to its north, south, west and
 *      east neighbours (a neighbour outside the image is the pixel itself,
 *      so the difference there is 0) and the diffusion coefficient c,
 *      clamped to [0, 1];
 *   3. for every pixel, J += lambda/4 * (c*dN + cS*dS + c*dW + cE*dE), where
 *      c is the pixel's own coefficient, cS its south and cE its east
 *      neighbour's (so every edge between two pixels uses one coefficient
 *      from both sides, and the image's total is conserved).
 *
 * Bit-identical on both sides: every float operation is written out, in one
 * order, with the rounding intrinsics on the GPU so that nvcc cannot fuse a
 * multiply and an add (it would by default), and the ROI statistics are
 * summed in double in one fixed order (each row, then the rows). The CPU
 * side (gcc, ISO C: no contraction; SSE: no excess precision) rounds every
 * operation the same way, so GPU runs and the CPU reference agree to the
 * bit; srad_tol_* only allow for a platform that does not. */
#ifndef SRAD_MODEL_H
#define SRAD_MODEL_H

#include <math.h>
#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

#if defined(__CUDA_ARCH__)
#define SRAD_FADD(a, b) __fadd_rn((a), (b))
#define SRAD_FSUB(a, b) __fsub_rn((a), (b))
#define SRAD_FMUL(a, b) __fmul_rn((a), (b))
#define SRAD_FDIV(a, b) __fdiv_rn((a), (b))
#define SRAD_DADD(a, b) __dadd_rn((a), (b))
#define SRAD_DSUB(a, b) __dsub_rn((a), (b))
#define SRAD_DMUL(a, b) __dmul_rn((a), (b))
#define SRAD_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define SRAD_FADD(a, b) ((a) + (b))
#define SRAD_FSUB(a, b) ((a) - (b))
#define SRAD_FMUL(a, b) ((a) * (b))
#define SRAD_FDIV(a, b) ((a) / (b))
#define SRAD_DADD(a, b) ((a) + (b))
#define SRAD_DSUB(a, b) ((a) - (b))
#define SRAD_DMUL(a, b) ((a) * (b))
#define SRAD_DDIV(a, b) ((a) / (b))
#endif

/* The image and its ROI (rows r1..r2, columns c1..c2, inclusive). */
typedef struct srad_geom {
    uint64_t rows, cols;
    uint64_t r1, r2, c1, c2;
} srad_geom;

/* Pixel K of the prepared input: exp of a uniform value in [0, 1), as
 * Rodinia prepares its random image, so in [1, e). Evaluated on the host
 * only (not GPM_HD): the GPU's exp may differ from the C library's in the
 * last bit, and every side must start from the same image. */
static inline float srad_input(uint64_t seed, uint64_t k)
{
    return (float)exp((double)wl_unit_f32(seed, k));
}

/* The neighbours' rows and columns, the image's edge standing in for what
 * lies beyond it (Rodinia's iN/iS/jW/jE). */
GPM_HD uint64_t srad_north(uint64_t i) { return i > 0 ? i - 1 : 0; }
GPM_HD uint64_t srad_south(uint64_t i, uint64_t rows) { return i + 1 < rows ? i + 1 : i; }
GPM_HD uint64_t srad_west(uint64_t j) { return j > 0 ? j - 1 : 0; }
GPM_HD uint64_t srad_east(uint64_t j, uint64_t cols) { return j + 1 < cols ? j + 1 : j; }

/* D[0..3] = north, south, west, east neighbour of pixel (I, J) minus it. */
GPM_HD void srad_derivs(const float *img, const srad_geom *g, uint64_t i, uint64_t j, float d[4])
{
    uint64_t w = g->cols;
    float jc = img[i * w + j];
    d[0] = SRAD_FSUB(img[srad_north(i) * w + j], jc);
    d[1] = SRAD_FSUB(img[srad_south(i, g->rows) * w + j], jc);
    d[2] = SRAD_FSUB(img[i * w + srad_west(j)], jc);
    d[3] = SRAD_FSUB(img[i * w + srad_east(j, w)], jc);
}

/* [0, 1]; NaN (a flat pixel of a flat ROI: 0/0) counts as 0, no diffusion. */
GPM_HD float srad_clamp01(float c)
{
    return c > 0.0f ? (c < 1.0f ? c : 1.0f) : 0.0f;
}

/* The diffusion coefficient of a pixel of value JC with differences D,
 * given the ROI's Q0SQR (Rodinia's equation 33), clamped to [0, 1]. */
GPM_HD float srad_coef(float jc, const float d[4], float q0sqr)
{
    /* Sums left to right, as Rodinia writes them. */
    float d2 = SRAD_FADD(SRAD_FMUL(d[0], d[0]), SRAD_FMUL(d[1], d[1]));
    float sum = SRAD_FADD(SRAD_FADD(SRAD_FADD(d[0], d[1]), d[2]), d[3]);
    d2 = SRAD_FADD(SRAD_FADD(d2, SRAD_FMUL(d[2], d[2])), SRAD_FMUL(d[3], d[3]));
    float g2 = SRAD_FDIV(d2, SRAD_FMUL(jc, jc));
    float l = SRAD_FDIV(sum, jc);
    float num = SRAD_FSUB(SRAD_FMUL(0.5f, g2), SRAD_FMUL(0.0625f, SRAD_FMUL(l, l)));
    float den = SRAD_FADD(1.0f, SRAD_FMUL(0.25f, l));
    float qsqr = SRAD_FDIV(num, SRAD_FMUL(den, den));
    den = SRAD_FDIV(SRAD_FSUB(qsqr, q0sqr), SRAD_FMUL(q0sqr, SRAD_FADD(1.0f, q0sqr)));
    return srad_clamp01(SRAD_FDIV(1.0f, SRAD_FADD(1.0f, den)));
}

/* The updated value of a pixel JC with differences D, its coefficient C and
 * those of its south and east neighbours CS, CE (equations 58 and 61).
 * STEP = lambda / 4 (srad_step). */
GPM_HD float srad_update(float jc, float c, float cs, float ce, const float d[4], float step)
{
    float div = SRAD_FADD(SRAD_FMUL(c, d[0]), SRAD_FMUL(cs, d[1]));
    div = SRAD_FADD(SRAD_FADD(div, SRAD_FMUL(c, d[2])), SRAD_FMUL(ce, d[3]));
    return SRAD_FADD(jc, SRAD_FMUL(step, div));
}

GPM_HD float srad_step(float lambda) { return 0.25f * lambda; /* exact */ }

/* The coefficients CS and CE a pixel's update reads. */
GPM_HD float srad_coef_south(const float *c, const srad_geom *g, uint64_t i, uint64_t j)
{
    return c[srad_south(i, g->rows) * g->cols + j];
}
GPM_HD float srad_coef_east(const float *c, const srad_geom *g, uint64_t i, uint64_t j)
{
    return c[i * g->cols + srad_east(j, g->cols)];
}

GPM_HD uint64_t srad_roi_rows(const srad_geom *g) { return g->r2 - g->r1 + 1; }

/* Sum and sum of squares, in double, of ROI row R (an image row), columns
 * c1..c2 in order: OUT[0], OUT[1]. */
GPM_HD void srad_roi_row(const float *img, const srad_geom *g, uint64_t r, double out[2])
{
    double s = 0, s2 = 0;
    for (uint64_t j = g->c1; j <= g->c2; j++) {
        double v = img[r * g->cols + j];
        s = SRAD_DADD(s, v);
        s2 = SRAD_DADD(s2, SRAD_DMUL(v, v));
    }
    out[0] = s;
    out[1] = s2;
}

/* q0^2 from the ROI's row sums (pairs of srad_roi_row, rows in order):
 * the variance over the squared mean. */
GPM_HD float srad_q0sqr(const double *row_sums, const srad_geom *g)
{
    uint64_t nr = srad_roi_rows(g);
    double n = SRAD_DMUL((double)nr, (double)(g->c2 - g->c1 + 1)), s = 0, s2 = 0, mean, var;
    for (uint64_t r = 0; r < nr; r++) {
        s = SRAD_DADD(s, row_sums[2 * r]);
        s2 = SRAD_DADD(s2, row_sums[2 * r + 1]);
    }
    mean = SRAD_DDIV(s, n);
    var = SRAD_DSUB(SRAD_DDIV(s2, n), SRAD_DMUL(mean, mean));
    return (float)SRAD_DDIV(var, SRAD_DMUL(mean, mean));
}

/* Verification tolerances after ITERS iterations (absolute; the image lies
 * in [1, e) and the coefficients in [0, 1]). The GPU is expected to match
 * the reference exactly (see above); these allow for a platform that
 * rounds differently. With every multiply-add of this file fused (gcc
 * -mfma -ffp-contract=fast, as nvcc would fuse them without the
 * intrinsics), the reference moved by at most 3.0e-6 in the image and
 * 3.4e-5 in the coefficients after 20 iterations of 16K x 1K, and by
 * 6.2e-6 and 1.0e-4 after 50 iterations of 64K x 1K: diffusion damps such
 * differences rather than growing them. So 2e-6 and 2e-5 per iteration
 * keep a margin of 10x or more, while one iteration of SRAD moves most
 * pixels far more: after 50 iterations of the random image, 89% of the
 * pixels still move by more than 1e-4 (the image tolerance at 50) and the
 * largest moves are 0.025 (README.md; wrong iteration counts, torn
 * buffers and missed updates all fail: tests/cpu/test_srad_ref.c). */
GPM_HD double srad_tol_image(uint64_t iters) { return 2e-6 * (double)iters; }
GPM_HD double srad_tol_coef(uint64_t iters) { return 2e-5 * (double)iters; }

#endif
