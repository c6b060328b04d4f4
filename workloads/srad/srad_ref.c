/* SRAD on the CPU: the input, the reference that verifies every mode, the
 * comparison, and the CPU counterpart (OpenMP, persisted through libpmem:
 * the paper's Figure 1b baseline) on the same layout and records. All of
 * them compute pixels with the srad_model.h code the kernels run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srad.h"

void srad_cpu_generate(float *j0, uint64_t n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < n; k++)
        j0[k] = srad_input(seed, k);
}

float srad_cpu_q0sqr(const float *img, const srad_geom *g, double *roi_sums)
{
    uint64_t nr = srad_roi_rows(g);
#pragma omp parallel for schedule(static)
    for (uint64_t r = 0; r < nr; r++)
        srad_roi_row(img, g, g->r1 + r, &roi_sums[2 * r]);
    return srad_q0sqr(roi_sums, g);
}

void srad_ref_step(const srad_geom *g, float step, float q0sqr, const float *in, float *out,
                   float *c)
{
    uint64_t rows = g->rows, cols = g->cols;
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < rows; i++)
        for (uint64_t j = 0; j < cols; j++) {
            float d[4];
            srad_derivs(in, g, i, j, d);
            c[i * cols + j] = srad_coef(in[i * cols + j], d, q0sqr);
        }
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < rows; i++)
        for (uint64_t j = 0; j < cols; j++) {
            float d[4];
            uint64_t k = i * cols + j;
            srad_derivs(in, g, i, j, d);
            out[k] = srad_update(in[k], c[k], srad_coef_south(c, g, i, j),
                                 srad_coef_east(c, g, i, j), d, step);
        }
}

int srad_ref_run(const srad_geom *g, float step, const float *j0, uint64_t iters, float *j,
                 float *c)
{
    uint64_t n = g->rows * g->cols;
    float *other = malloc(n * sizeof *other), *cur = j, *next = other;
    double *roi = malloc(2 * srad_roi_rows(g) * sizeof *roi);
    if (!other || !roi) {
        free(other);
        free(roi);
        return gpm_set_error("srad: out of memory for the reference (%llu pixels): use a "
                             "smaller image", (unsigned long long)n);
    }
    memcpy(cur, j0, n * sizeof *cur);
    for (uint64_t t = 0; t < iters; t++) {
        float *x;
        srad_ref_step(g, step, srad_cpu_q0sqr(cur, g, roi), cur, next, c);
        x = cur, cur = next, next = x;
    }
    if (cur != j)
        memcpy(j, cur, n * sizeof *j);
    free(other);
    free(roi);
    return 0;
}

static int report(const char *what, const float *got, const float *want, uint64_t k,
                  const srad_geom *g, uint64_t iters, double tol)
{
    gpm_set_error("srad: %s at row %llu column %llu after %llu iterations is %.9g, expected "
                  "%.9g (tolerance %.2g)", what, (unsigned long long)(k / g->cols),
                  (unsigned long long)(k % g->cols), (unsigned long long)iters, got[k], want[k],
                  tol);
    return 1;
}

int srad_check(const float *j, const float *c, const float *ref_j, const float *ref_c,
               const srad_geom *g, uint64_t iters, double *max_dj, double *max_dc,
               struct wl_wrong *w)
{
    uint64_t n = g->rows * g->cols, bad_j = UINT64_MAX, bad_c = UINT64_MAX, bad = 0;
    double tj = srad_tol_image(iters), tc = srad_tol_coef(iters), mj = 0, mc = 0;
#pragma omp parallel for schedule(static) reduction(max : mj, mc) \
    reduction(min : bad_j, bad_c) reduction(+ : bad)
    for (uint64_t k = 0; k < n; k++) {
        double dj = (double)j[k] - ref_j[k], dc = (double)c[k] - ref_c[k];
        /* wl_close: a NaN is never close; its difference is infinite. */
        int far_j = !wl_close(j[k], ref_j[k], tj, 0), far_c = !wl_close(c[k], ref_c[k], tc, 0);
        dj = dj != dj ? INFINITY : dj < 0 ? -dj : dj;
        dc = dc != dc ? INFINITY : dc < 0 ? -dc : dc;
        mj = dj > mj ? dj : mj;
        mc = dc > mc ? dc : mc;
        if (far_j && k < bad_j)
            bad_j = k;
        if (far_c && k < bad_c)
            bad_c = k;
        bad += far_j || far_c;
    }
    *max_dj = mj;
    *max_dc = mc;
    if (w) {
        w->units = "pixels";
        w->bad += bad;
        w->total += n;
        w->err = "abs";
        w->max_err = mj > w->max_err ? mj : w->max_err;
    }
    if (bad_j != UINT64_MAX)
        return report("image pixel", j, ref_j, bad_j, g, iters, tj);
    if (bad_c != UINT64_MAX)
        return report("coefficient", c, ref_c, bad_c, g, iters, tc);
    return 0;
}

/* The first failed persist's message, carried out of the parallel loop by
 * hand (the message is per thread). */
struct persist_err {
    int failed;
    char why[512];
};

static void persist_row(struct wl_ctx *c, const void *p, size_t len, struct persist_err *e)
{
    if (wl_pm_persist(c, SRAD_PM, p, len) == 0)
        return;
#pragma omp critical
    if (!e->failed) {
        e->failed = 1;
        snprintf(e->why, sizeof e->why, "%s", gpm_last_error());
    }
}

int srad_cpu_iteration(struct wl_ctx *c, const struct srad_state *st, const float *in,
                       uint64_t iter)
{
    const gpm_region *r = wl_region(c, SRAD_PM);
    const srad_geom *g = &st->g;
    uint64_t rows = g->rows, cols = g->cols, n = st->n;
    uint32_t slot = srad_slot(iter);
    float *pm_j = (float *)((uint8_t *)r->host + srad_image_off(n, slot));
    float *pm_c = (float *)((uint8_t *)r->host + srad_coef_off(n, slot));
    float *const *dir = st->h_dir;
    float q0sqr = srad_cpu_q0sqr(in, g, st->h_roi);
    struct persist_err e = {0, ""};

    /* Rodinia's OpenMP SRAD: derivatives and coefficients, then the update;
     * what goes to PM is persisted row by row as it is written. */
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < rows; i++) {
        for (uint64_t j = 0; j < cols; j++) {
            float d[4];
            uint64_t k = i * cols + j;
            srad_derivs(in, g, i, j, d);
            for (int u = 0; u < 4; u++)
                dir[u][k] = d[u];
            pm_c[k] = srad_coef(in[k], d, q0sqr);
        }
        persist_row(c, &pm_c[i * cols], cols * sizeof(float), &e);
    }
    if (e.failed)
        return gpm_set_error("%s", e.why);
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < rows; i++) {
        for (uint64_t j = 0; j < cols; j++) {
            uint64_t k = i * cols + j;
            float d[4] = {dir[0][k], dir[1][k], dir[2][k], dir[3][k]};
            pm_j[k] = srad_update(in[k], pm_c[k], srad_coef_south(pm_c, g, i, j),
                                  srad_coef_east(pm_c, g, i, j), d, st->step);
        }
        persist_row(c, &pm_j[i * cols], cols * sizeof(float), &e);
    }
    return e.failed ? gpm_set_error("%s", e.why) : 0;
}
