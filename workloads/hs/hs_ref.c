/* HS on the CPU, from hs_model.h's shared code: the reference (one step
 * per pass, in float and in double), a kernel call as the GPU computes it
 * (block by block, for the tests), and the comparison of a result with the
 * references (the GPU check, hs_kernels.cu, reports through the same
 * verdict). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs.h"

void hs_cpu_step_f(const hs_coef *k, const float *power, const float *src, float *dst,
                   uint64_t rows, uint64_t cols)
{
#pragma omp parallel for schedule(static)
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++) {
            hs_nbrs b = hs_grid_nbrs(rows, cols, r, c);
            dst[b.i] = hs_cell_f(k, src[b.i], src[b.n], src[b.s], src[b.e], src[b.w], power[b.i]);
        }
}

void hs_cpu_step_d(const hs_coef *k, const float *power, const double *src, double *dst,
                   uint64_t rows, uint64_t cols)
{
#pragma omp parallel for schedule(static)
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++) {
            hs_nbrs b = hs_grid_nbrs(rows, cols, r, c);
            dst[b.i] = hs_cell_d(k, src[b.i], src[b.n], src[b.s], src[b.e], src[b.w], power[b.i]);
        }
}

/* One block of a call: hs_pyramid_kernel's steps, each thread's work a
 * loop iteration and each __syncthreads the end of a loop. */
static void cpu_block(const hs_coef *k, const float *power, const float *src, float *dst,
                      uint64_t rows, uint64_t cols, int height, int steps, uint64_t by,
                      uint64_t bx)
{
    float t[HS_TILE][HS_TILE], v[HS_TILE][HS_TILE], p[HS_TILE][HS_TILE];
    hs_tile tl = hs_tile_at(rows, cols, height, by, bx);
    for (int y = 0; y < HS_TILE; y++)
        for (int x = 0; x < HS_TILE; x++)
            if (hs_tile_inside(&tl, y, x)) {
                uint64_t i = hs_tile_index(&tl, cols, y, x);
                t[y][x] = src[i];
                p[y][x] = power[i];
            }
    for (int s = 0; s < steps; s++) {
        for (int y = 0; y < HS_TILE; y++)
            for (int x = 0; x < HS_TILE; x++)
                if (hs_tile_computes(&tl, s, y, x)) {
                    hs_tnbrs b = hs_tile_nbrs(&tl, y, x);
                    v[y][x] = hs_cell_f(k, t[y][x], t[b.n][x], t[b.s][x], t[y][b.e], t[y][b.w],
                                        p[y][x]);
                }
        for (int y = 0; y < HS_TILE; y++)
            for (int x = 0; x < HS_TILE; x++)
                if (hs_tile_computes(&tl, s, y, x))
                    t[y][x] = v[y][x];
    }
    for (int y = 0; y < HS_TILE; y++)
        for (int x = 0; x < HS_TILE; x++)
            if (hs_tile_owns(&tl, height, y, x))
                dst[hs_tile_index(&tl, cols, y, x)] = t[y][x];
}

void hs_cpu_call(const hs_coef *k, const float *power, const float *src, float *dst,
                 uint64_t rows, uint64_t cols, int height, int steps)
{
    uint64_t ty = hs_tiles(rows, height), tx = hs_tiles(cols, height);
#pragma omp parallel for schedule(static)
    for (uint64_t b = 0; b < ty * tx; b++)
        cpu_block(k, power, src, dst, rows, cols, height, steps, b / tx, b % tx);
}

int hs_cpu_reference(const hs_coef *k, const float *power, const float *init, uint64_t rows,
                     uint64_t cols, uint64_t iters, float *out_f, double *out_d)
{
    uint64_t n = rows * cols;
    float *f = out_f ? malloc(n * sizeof *f) : NULL;
    double *d = out_d ? malloc(n * sizeof *d) : NULL;
    if ((out_f && !f) || (out_d && !d)) {
        free(f);
        free(d);
        return gpm_set_error("hs: cannot allocate the reference of %llu cells: use a smaller "
                             "--scale", (unsigned long long)n);
    }
    /* Ping-pong between OUT and the scratch so that step ITERS ends in OUT. */
    if (out_f) {
        float *a = iters & 1 ? f : out_f, *b = iters & 1 ? out_f : f;
        memcpy(a, init, n * sizeof *a);
        for (uint64_t s = 0; s < iters; s++) {
            float *tmp;
            hs_cpu_step_f(k, power, a, b, rows, cols);
            tmp = a;
            a = b;
            b = tmp;
        }
    }
    if (out_d) {
        double *a = iters & 1 ? d : out_d, *b = iters & 1 ? out_d : d;
        for (uint64_t i = 0; i < n; i++)
            a[i] = init[i];
        for (uint64_t s = 0; s < iters; s++) {
            double *tmp;
            hs_cpu_step_d(k, power, a, b, rows, cols);
            tmp = a;
            a = b;
            b = tmp;
        }
    }
    free(f);
    free(d);
    return 0;
}

void hs_compare(const float *got, const float *ref_f, const double *ref_d, uint64_t n,
                double tol, struct hs_check *r)
{
    double maxerr = 0;
    memset(r, 0, sizeof *r);
    r->first_exact = r->first_tol = ~0ull;
    for (uint64_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - ref_d[i]);
        r->checked++;
        if (memcmp(&got[i], &ref_f[i], sizeof got[i]) != 0 && r->bad_exact++ == 0)
            r->first_exact = i;
        if (!hs_close(got[i], ref_d[i], tol) && r->bad_tol++ == 0)
            r->first_tol = i;
        maxerr = err > maxerr ? err : err == err ? maxerr : HUGE_VAL;
    }
    memcpy(&r->maxerr_bits, &maxerr, sizeof maxerr);
}

double hs_check_maxerr(const struct hs_check *r)
{
    double e;
    memcpy(&e, &r->maxerr_bits, sizeof e);
    return e;
}

void hs_check_wrong(const struct hs_check *r, struct wl_wrong *w)
{
    w->units = "cells";
    w->bad += r->bad_exact > r->bad_tol ? r->bad_exact : r->bad_tol;
    w->total += r->checked;
    w->err = "abs";
    if (hs_check_maxerr(r) > w->max_err)
        w->max_err = hs_check_maxerr(r);
}

int hs_check_verdict(const struct hs_check *r, uint64_t n, uint64_t cols, double tol, float g1,
                     float wf, float g2, double wd)
{
    if (r->checked != n) {
        gpm_set_error("hs: the check compared %llu of %llu cells", r->checked,
                      (unsigned long long)n);
        return 1;
    }
    if (r->bad_tol) {
        gpm_set_error("hs: %llu cells off the double reference by more than %.3g; the first, "
                      "row %llu col %llu, is %.9g, expected %.9g", r->bad_tol, tol,
                      r->first_tol / cols, r->first_tol % cols, g2, wd);
        return 1;
    }
    if (r->bad_exact) {
        gpm_set_error("hs: %llu cells differ from the float one-step reference (bit for bit "
                      "expected); the first, row %llu col %llu, is %.9g, expected %.9g",
                      r->bad_exact, r->first_exact / cols, r->first_exact % cols, g1, wf);
        return 1;
    }
    return 0;
}

int hs_cpu_check(const hs_coef *k, const float *power, const float *init, uint64_t rows,
                 uint64_t cols, uint64_t iters, const float *got, double tol,
                 struct hs_check *r)
{
    uint64_t n = rows * cols;
    float *f = malloc(n * sizeof *f);
    double *d = malloc(n * sizeof *d);
    int rc = -1;
    if (!f || !d)
        gpm_set_error("hs: cannot allocate the CPU reference of %llu cells",
                      (unsigned long long)n);
    else if (hs_cpu_reference(k, power, init, rows, cols, iters, f, d) == 0) {
        hs_compare(got, f, d, n, tol, r);
        rc = hs_check_verdict(r, n, cols, tol, r->bad_exact ? got[r->first_exact] : 0,
                              r->bad_exact ? f[r->first_exact] : 0,
                              r->bad_tol ? got[r->first_tol] : 0,
                              r->bad_tol ? d[r->first_tol] : 0);
    }
    free(f);
    free(d);
    return rc;
}
