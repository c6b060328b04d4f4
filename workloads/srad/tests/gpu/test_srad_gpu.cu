/* SRAD's kernels against the CPU reference, to the bit: the run's kernels
 * (4 pixels per thread, stored derivatives, in-place update, the PM copies
 * stored the three ways a mode may ask) and the verification's own
 * reference kernels, on images whose sizes are not multiples of 4, 16 or
 * the block, and on single rows and columns. The GPU result equals the CPU
 * reference exactly only if nvcc fused no multiply-add in srad_model.h and
 * the ROI sums ran in the same order: this is where that is checked. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "../../srad.h"
#include "gpm/check_gpu.h"

struct dev {
    float *j, *c, *dir[4], *pm_j, *pm_c, *q0;
    double *roi;
};

static void dev_free(struct dev *d)
{
    wl_dev_free(d->j), wl_dev_free(d->c), wl_dev_free(d->pm_j), wl_dev_free(d->pm_c);
    wl_dev_free(d->q0), wl_dev_free(d->roi);
    for (int u = 0; u < 4; u++)
        wl_dev_free(d->dir[u]);
}

static int dev_alloc(struct dev *d, const srad_geom *g)
{
    size_t b = g->rows * g->cols * sizeof(float);
    memset(d, 0, sizeof *d);
    if (wl_dev_alloc((void **)&d->j, b) || wl_dev_alloc((void **)&d->c, b) ||
        wl_dev_alloc((void **)&d->pm_j, b) || wl_dev_alloc((void **)&d->pm_c, b) ||
        wl_dev_alloc((void **)&d->q0, sizeof(float)) ||
        wl_dev_alloc((void **)&d->roi, 2 * srad_roi_rows(g) * sizeof(double)))
        return -1;
    for (int u = 0; u < 4; u++)
        if (wl_dev_alloc((void **)&d->dir[u], b))
            return -1;
    return 0;
}

/* ITERS iterations of the run's kernels from J0; HOW: 0 PM copies fenced
 * (gpm), 1 unfenced (gpm-ndp), 2 none (CAP). The image, coefficients and
 * their PM copies come back in J, C, PJ, PC. */
static int run_kernels(const srad_geom *g, float step, const float *j0, uint64_t iters, int how,
                       float *j, float *c, float *pj, float *pc)
{
    struct dev d;
    size_t b = g->rows * g->cols * sizeof(float);
    wl_out o;
    int rc = -1;
    memset(&o, 0, sizeof o);
    o.fence = how == 0;
    if (dev_alloc(&d, g) != 0 || wl_dev_copy(d.j, j0, b, 1) != 0 ||
        wl_dev_zero(d.pm_j, b) != 0 || wl_dev_zero(d.pm_c, b) != 0)
        goto out;
    for (uint64_t t = 0; t < iters; t++)
        if (srad_gpu_q0sqr(d.j, *g, d.roi, d.q0) != 0 ||
            srad_gpu_coef(d.j, *g, d.q0, d.dir, d.c, how == 2 ? NULL : d.pm_c, o) != 0 ||
            srad_gpu_update(d.j, *g, step, d.dir, d.c, how == 2 ? NULL : d.pm_j, o) != 0)
            goto out;
    rc = wl_dev_copy(j, d.j, b, 0) || wl_dev_copy(c, d.c, b, 0) || wl_dev_copy(pj, d.pm_j, b, 0) ||
                 wl_dev_copy(pc, d.pm_c, b, 0)
             ? -1
             : 0;
out:
    dev_free(&d);
    return rc;
}

static int same(const float *a, const float *b, uint64_t n, const char *what)
{
    for (uint64_t k = 0; k < n; k++)
        if (memcmp(&a[k], &b[k], sizeof(float)) != 0) {
            check_fail(__FILE__, __LINE__, "%s: pixel %llu is %.9g, the CPU's %.9g", what,
                       (unsigned long long)k, a[k], b[k]);
            return 0;
        }
    return 1;
}

static const srad_geom shapes[] = {
    {203, 150, 7, 60, 3, 90}, /* 30450 pixels: not a multiple of 4 */
    {64, 64, 0, 31, 0, 31},
    {1, 37, 0, 0, 0, 36},     /* one row */
    {41, 1, 2, 40, 0, 0},     /* one column */
};

static void kernels_equal_the_cpu_reference(void)
{
    NEED_GPU();
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const srad_geom *g = &shapes[s];
        uint64_t n = g->rows * g->cols, iters = 6;
        float step = srad_step(0.5f);
        float *j0 = (float *)malloc(n * 4), *rj = (float *)malloc(n * 4),
              *rc = (float *)malloc(n * 4), *j = (float *)malloc(n * 4),
              *c = (float *)malloc(n * 4), *pj = (float *)malloc(n * 4),
              *pc = (float *)malloc(n * 4);
        CHECK(j0 && rj && rc && j && c && pj && pc);
        srad_cpu_generate(j0, n, 3 + s);
        CHECK_EQ_INT(srad_ref_run(g, step, j0, iters, rj, rc), 0);
        for (int how = 0; how < 3; how++) {
            CHECKF(run_kernels(g, step, j0, iters, how, j, c, pj, pc) == 0, "%s",
                   gpm_last_error());
            if (!same(j, rj, n, "image") || !same(c, rc, n, "coefficients"))
                return;
            if (how < 2 && (!same(pj, rj, n, "PM image") || !same(pc, rc, n, "PM coefficients")))
                return;
        }
        /* The verification's reference kernels. */
        memset(j, 0, n * 4);
        CHECKF(srad_gpu_reference(j0, *g, step, iters, j, c) == 0, "%s", gpm_last_error());
        if (!same(j, rj, n, "reference image") || !same(c, rc, n, "reference coefficients"))
            return;
        free(j0), free(rj), free(rc), free(j), free(c), free(pj), free(pc);
    }
}

int main(void)
{
    RUN(kernels_equal_the_cpu_reference);
    CHECK_EXIT();
}
