/* HS's model on the CPU: Rodinia's coefficients and stencil against values
 * computed by hand, its boundary, the pyramid of a kernel call against one
 * step per pass (bit for bit), the tolerance against the float/double gap,
 * the schedule, the checkpoint record, and the check's verdict. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../hs.h"
#include "gpm/check.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* At 512 x 512: cells of 31.25 um, so k = step/Cap = PRECISION / (MAX_PD
 * gw gh) = 0.001 / (3e6 * 31.25e-6^2) = 0.341333; Rx = Ry = 1 / (2 K_SI
 * t_chip) = 10 (square cells); Rz = t_chip / (K_SI gw gh) = 5120. */
static void coefficients_match_rodinia_by_hand(void)
{
    hs_coef k = hs_coef_make(512, 512), r = hs_coef_make(256, 512);
    CHECKF(near(k.k, 0.3413333, 1e-6), "k %.7f", k.k);
    CHECKF(near(k.cx, 0.03413333, 1e-7) && near(k.cy, 0.03413333, 1e-7), "cx %.8f cy %.8f",
           k.cx, k.cy);
    CHECKF(near(k.cz, 0.3413333 / 5120, 1e-10), "cz %.9g", k.cz);
    CHECK(k.amb == 80.0f && !k.clamped);
    /* 256 rows of 62.5 um, 512 cols of 31.25 um: Rx = 31.25/(0.1 * 62.5) = 5,
     * Ry = 62.5/(0.1 * 31.25) = 20, k = 0.001 / (3e6 * 62.5e-6 * 31.25e-6). */
    CHECKF(near(r.k, 0.1706667, 1e-6), "k %.7f", r.k);
    CHECKF(near(r.cx, 0.1706667 / 5, 1e-7) && near(r.cy, 0.1706667 / 20, 1e-7),
           "cx %.8f cy %.8f", r.cx, r.cy);
    CHECK(!hs_coef_make(1024, 1024).clamped);
}

/* Above ~1200 cells a side Rodinia's step is past the stability limit:
 * there the weights leave 1 - HS_STABLE on the cell itself. */
static void large_grids_take_the_stable_step(void)
{
    hs_coef k = hs_coef_make(2048, 2048), p = hs_coef_make(16384, 16384);
    CHECK(k.clamped && p.clamped);
    CHECKF(near(2 * k.cx + 2 * k.cy + k.cz, HS_STABLE, 1e-6), "%.8f",
           2 * k.cx + 2 * k.cy + k.cz);
    CHECKF(near(2 * p.cx + 2 * p.cy + p.cz, HS_STABLE, 1e-6), "%.8f",
           2 * p.cx + 2 * p.cy + p.cz);
    CHECKF(near(k.k, 0.75 / (0.4 + 1.0 / 81920), 1e-5), "k %.7f", k.k); /* Rz = 81920 */
}

/* The reason: a checkerboard ripple grows under Rodinia's step at 2048
 * (k = 5.46, weights 0.546 on each neighbour) and fades under ours. */
static double ripple_after(const hs_coef *k, int steps)
{
    enum { N = 16 };
    float a[N * N], b[N * N], p[N * N] = {0}, *s = a, *d = b, *t;
    double amp = 0;
    for (int i = 0; i < N * N; i++)
        a[i] = 300.0f + (((i / N) + (i % N)) & 1 ? 0.01f : -0.01f);
    for (int i = 0; i < steps; i++) {
        hs_cpu_step_f(k, p, s, d, N, N);
        t = s;
        s = d;
        d = t;
    }
    for (int i = 1; i < N * N; i++)
        amp = fmax(amp, fabs((double)s[i] - s[i - 1]));
    return amp;
}

static void rodinia_step_is_unstable_on_large_grids(void)
{
    hs_coef ours = hs_coef_make(2048, 2048), rod = ours;
    double k = 0.001 / (3e6 * pow(0.016 / 2048, 2));
    rod.k = (float)k;
    rod.cx = rod.cy = (float)(k / 10);
    rod.cz = (float)(k / 81920);
    CHECKF(ripple_after(&rod, 10) > 100, "ripple %.3g", ripple_after(&rod, 10));
    CHECKF(ripple_after(&ours, 10) < 0.02, "ripple %.3g", ripple_after(&ours, 10));
}

static void uniform_grid_without_power_stays_uniform(void)
{
    enum { R = 6, C = 9 };
    hs_coef k = hs_coef_make(512, 512);
    float a[R * C], b[R * C], p[R * C] = {0};
    for (int i = 0; i < R * C; i++)
        a[i] = 80.0f; /* the ambient: nothing moves at all */
    for (int s = 0; s < 50; s++) {
        hs_cpu_step_f(&k, p, a, b, R, C);
        memcpy(a, b, sizeof a);
    }
    for (int i = 0; i < R * C; i++)
        CHECKF(a[i] == 80.0f, "cell %d is %.9g", i, a[i]);
    for (int i = 0; i < R * C; i++)
        a[i] = 300.0f; /* above it: the grid cools through Rz, uniformly */
    hs_cpu_step_f(&k, p, a, b, R, C);
    for (int i = 0; i < R * C; i++)
        CHECKF(b[i] == b[0], "cell %d is %.9g, cell 0 %.9g", i, b[i], b[0]);
    CHECKF(near(b[0], 300 - 220 * (0.3413333 / 5120), 3e-5), "%.9g", b[0]); /* ulp(300) */
}

/* One hot cell, 10 degrees above an 80-degree (ambient) grid, on the
 * 256 x 512 coefficients (cx = 4 cy, so a swap of rows and columns shows):
 * it loses 20 cy + 20 cx + 10 cz; its north and south neighbours gain
 * 10 cy, its east and west ones 10 cx; the diagonal ones nothing. */
static void hot_cell_spreads_as_computed_by_hand(void)
{
    enum { R = 5, C = 7 };
    hs_coef k = hs_coef_make(256, 512);
    const double cx = 0.1706667 / 5, cy = 0.1706667 / 20, cz = 0.1706667 / 2560;
    float a[R * C], b[R * C], p[R * C] = {0};
    double d[R * C], e[R * C];
    for (int i = 0; i < R * C; i++)
        a[i] = 80.0f;
    a[2 * C + 3] = 90.0f;
    hs_cpu_step_f(&k, p, a, b, R, C);
    for (int i = 0; i < R * C; i++)
        d[i] = a[i];
    hs_cpu_step_d(&k, p, d, e, R, C);
    /* Rz = t_chip / (K_SI gw gh) = 5e-4 / (100 * 31.25e-6 * 62.5e-6) = 2560. */
    CHECKF(near(cz, k.cz, 1e-9), "cz %.9g, by hand %.9g", k.cz, cz);
    CHECKF(near(b[2 * C + 3], 90 - 20 * cy - 20 * cx - 10 * cz, 1e-5), "centre %.9g",
           b[2 * C + 3]);
    CHECKF(near(b[1 * C + 3], 80 + 10 * cy, 1e-5), "north %.9g", b[1 * C + 3]);
    CHECKF(near(b[3 * C + 3], 80 + 10 * cy, 1e-5), "south %.9g", b[3 * C + 3]);
    CHECKF(near(b[2 * C + 2], 80 + 10 * cx, 1e-5), "west %.9g", b[2 * C + 2]);
    CHECKF(near(b[2 * C + 4], 80 + 10 * cx, 1e-5), "east %.9g", b[2 * C + 4]);
    CHECK(b[1 * C + 2] == 80.0f && b[3 * C + 4] == 80.0f && b[0] == 80.0f);
    for (int i = 0; i < R * C; i++)
        CHECKF(near(b[i], e[i], 1e-5), "cell %d: float %.9g, double %.12g", i, b[i], e[i]);
    /* A power P raises its cell by k P a step. */
    p[0] = 0.5f;
    hs_cpu_step_f(&k, p, a, b, R, C);
    CHECKF(near(b[0], 80 + 0.5 * 0.1706667, 1e-5), "powered corner %.9g", b[0]);
}

/* Rodinia clamps a neighbour past the edge to the cell itself: no flow
 * across the chip's boundary. */
static void boundary_uses_the_cell_itself(void)
{
    enum { R = 3, C = 4 };
    hs_coef k = hs_coef_make(512, 512);
    float pw[R * C] = {0};
    double a[R * C], b[R * C], x = k.cx, y = k.cy, z = k.cz, row[5], out[5];
    for (int i = 0; i < R * C; i++)
        a[i] = 300 + i;
    hs_cpu_step_d(&k, pw, a, b, R, C);
    /* (0,0): north and west are itself; south 304, east 301. */
    CHECKF(near(b[0], 300 + y * (300 + 304 - 600) + x * (301 + 300 - 600) + z * (80 - 300),
                1e-12), "corner %.12g", b[0]);
    /* (0,1): north itself (301); south 305, west 300, east 302. */
    CHECKF(near(b[1], 301 + y * (301 + 305 - 602) + x * (302 + 300 - 602) + z * (80 - 301),
                1e-12), "top edge %.12g", b[1]);
    /* (2,3): south and east are itself (311); north 307, west 310. */
    CHECKF(near(b[11], 311 + y * (307 + 311 - 622) + x * (311 + 310 - 622) + z * (80 - 311),
                1e-12), "far corner %.12g", b[11]);
    /* One row: north and south are both the cell itself. */
    for (int i = 0; i < 5; i++)
        row[i] = 300 + 2 * i;
    hs_cpu_step_d(&k, pw, row, out, 1, 5);
    CHECKF(near(out[2], 304 + x * (306 + 302 - 608) + z * (80 - 304), 1e-12), "%.12g", out[2]);
    CHECKF(near(out[4], 308 + x * (308 + 306 - 616) + z * (80 - 308), 1e-12), "%.12g", out[4]);
}

/* ITERS steps in calls of HEIGHT, the GPU's way. */
static void by_calls(const hs_coef *k, const float *pw, const float *init, float *out,
                     uint64_t rows, uint64_t cols, uint64_t iters, int height)
{
    uint64_t n = rows * cols;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *t;
    memcpy(a, init, n * sizeof *a);
    for (uint64_t c = 0; c < hs_calls(iters, height); c++) {
        hs_cpu_call(k, pw, a, b, rows, cols, height, hs_call_steps(iters, height, c));
        t = a;
        a = b;
        b = t;
    }
    memcpy(out, a, n * sizeof *a);
    free(a);
    free(b);
}

/* Grids larger and smaller than a tile, not multiples of the output tile,
 * one row, one column; heights up to the largest; step counts that leave a
 * short last call. The result must be the one-step reference, bit for bit. */
static void pyramid_equals_one_step_per_pass(void)
{
    static const uint64_t sizes[][2] = {{37, 53}, {5, 7}, {1, 40}, {45, 1}, {64, 64}, {30, 91}};
    static const int heights[] = {1, 2, 3, 4, 5, 9, HS_MAX_HEIGHT};
    static const uint64_t iters[] = {1, 7, 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint64_t r = sizes[s][0], c = sizes[s][1], n = r * c;
        float *t = malloc(n * 4), *p = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
        /* The 16K coefficients: the largest weights the runs use. */
        hs_coef k = hs_coef_make(16384, 16384);
        CHECK(t && p && want && got);
        hs_generate(3, r, c, t, p);
        for (size_t i = 0; i < sizeof iters / sizeof iters[0]; i++) {
            CHECK(hs_cpu_reference(&k, p, t, r, c, iters[i], want, NULL) == 0);
            for (size_t h = 0; h < sizeof heights / sizeof heights[0]; h++) {
                by_calls(&k, p, t, got, r, c, iters[i], heights[h]);
                for (uint64_t j = 0; j < n; j++)
                    CHECKF(memcmp(&got[j], &want[j], 4) == 0,
                           "%llux%llu, %llu steps, height %d: cell %llu is %.9g, one-step %.9g",
                           (unsigned long long)r, (unsigned long long)c,
                           (unsigned long long)iters[i], heights[h], (unsigned long long)j,
                           got[j], want[j]);
            }
        }
        free(t);
        free(p);
        free(want);
        free(got);
    }
}

/* Each tile position computes a shrinking ring, and the owned centres of
 * all blocks cover every cell exactly once. */
static void owned_tiles_cover_the_grid_once(void)
{
    for (int h = 1; h <= HS_MAX_HEIGHT; h += 2) {
        uint64_t rows = 70, cols = 33, n = rows * cols;
        unsigned char *hits = calloc(n, 1);
        CHECK(hits);
        for (uint64_t by = 0; by < hs_tiles(rows, h); by++)
            for (uint64_t bx = 0; bx < hs_tiles(cols, h); bx++) {
                hs_tile t = hs_tile_at(rows, cols, h, by, bx);
                for (int y = 0; y < HS_TILE; y++)
                    for (int x = 0; x < HS_TILE; x++)
                        if (hs_tile_owns(&t, h, y, x)) {
                            hits[hs_tile_index(&t, cols, y, x)]++;
                            /* an owned cell computes every step of the call */
                            CHECK(hs_tile_computes(&t, h - 1, y, x));
                        }
            }
        for (uint64_t i = 0; i < n; i++)
            CHECKF(hits[i] == 1, "height %d: cell %llu written %d times", h,
                   (unsigned long long)i, hits[i]);
        free(hits);
    }
}

/* The rigorous bound holds, with room, over many steps at the largest
 * weights; and it is small where the runs are short. */
static void float_run_stays_within_the_tolerance(void)
{
    enum { R = 48, C = 40, N = 600 };
    hs_coef k = hs_coef_make(16384, 16384);
    float *t = malloc(R * C * 4), *p = malloc(R * C * 4), *f = malloc(R * C * 4);
    double *d = malloc(R * C * 8), tmin = 1e9, tmax = -1e9, pmax = 0, tol, err = 0;
    CHECK(t && p && f && d);
    hs_generate(5, R, C, t, p);
    for (int i = 0; i < R * C; i++) {
        tmin = fmin(tmin, t[i]);
        tmax = fmax(tmax, t[i]);
        pmax = fmax(pmax, p[i]);
    }
    CHECK(hs_cpu_reference(&k, p, t, R, C, N, f, d) == 0);
    tol = hs_tolerance(&k, N, hs_tbound(&k, N, tmin, tmax, 0, pmax), pmax);
    for (int i = 0; i < R * C; i++) {
        CHECKF(d[i] <= hs_tbound(&k, N, tmin, tmax, 0, pmax), "cell %d: %.6g above the bound",
               i, d[i]);
        err = fmax(err, fabs(f[i] - d[i]));
    }
    CHECKF(err <= tol, "float off by %.3g, tolerance %.3g", err, tol);
    /* tiny: 512 x 512, 40 steps of Rodinia's step over 323..344 degrees */
    k = hs_coef_make(512, 512);
    tol = hs_tolerance(&k, 40, hs_tbound(&k, 40, 323, 344, 0.002, 0.08), 0.08);
    CHECKF(tol > 1e-3 && tol < 1e-2, "tiny tolerance %.3g", tol);
    free(t);
    free(p);
    free(f);
    free(d);
}

static void schedule_and_record(void)
{
    hs_meta m, want;
    CHECK(hs_calls(4000, 4) == 1000 && hs_calls(40, 2) == 20 && hs_calls(10, 4) == 3);
    CHECK(hs_call_steps(10, 4, 0) == 4 && hs_call_steps(10, 4, 2) == 2);
    CHECK(wl_checkpoint_due(10, 1000, 10) && !wl_checkpoint_due(11, 1000, 10) &&
          wl_checkpoint_due(3, 3, 10) && wl_checkpoint_due(1, 5, 1));
    CHECK(sizeof(hs_meta) == 128);
    memset(&want, 0, sizeof want);
    want.magic = HS_META_MAGIC;
    want.rows = 64;
    want.cols = 32;
    want.seed = 2;
    want.iters = 10;
    want.height = 4;
    want.input = 99;
    m = want;
    m.calls_done = 3;
    CHECK(hs_meta_matches(&m, &want));
    m.calls_done = 4; /* 10 steps are 3 calls */
    CHECK(!hs_meta_matches(&m, &want));
    m.calls_done = 1;
    m.input = 98;
    CHECK(!hs_meta_matches(&m, &want));
    m.input = 99;
    m.height = 2;
    CHECK(!hs_meta_matches(&m, &want));
    m.height = 4;
    m.cols = 64;
    CHECK(!hs_meta_matches(&m, &want));
    m.cols = 32;
    m.magic = 0;
    CHECK(!hs_meta_matches(&m, &want));
}

static void check_names_the_first_wrong_cell(void)
{
    enum { R = 20, C = 30, N = 6 };
    hs_coef k = hs_coef_make(512, 512);
    float t[R * C], p[R * C], got[R * C];
    struct hs_check r;
    struct wl_wrong w = {0};
    hs_generate(1, R, C, t, p);
    CHECK(hs_cpu_reference(&k, p, t, R, C, N, got, NULL) == 0);
    CHECK_EQ_INT(hs_cpu_check(&k, p, t, R, C, N, got, 1e-3, &r), 0);
    CHECK(r.checked == R * C && r.bad_exact == 0 && hs_check_maxerr(&r) < 1e-4);
    got[7 * C + 11] = nextafterf(got[7 * C + 11], 1e9f); /* one ulp: only the exact check */
    CHECK_EQ_INT(hs_cpu_check(&k, p, t, R, C, N, got, 1e-3, &r), 1);
    CHECK_MSG(gpm_last_error(), "row 7 col 11");
    CHECK_MSG(gpm_last_error(), "bit for bit");
    got[3 * C + 2] += 0.5f; /* far off: the double check, which is reported first */
    CHECK_EQ_INT(hs_cpu_check(&k, p, t, R, C, N, got, 1e-3, &r), 1);
    CHECK_MSG(gpm_last_error(), "1 cells off the double reference");
    CHECK_MSG(gpm_last_error(), "row 3 col 2");
    CHECK(r.bad_exact == 2);
    /* The measure: both cells wrong of the 600, the largest error 0.5 off. */
    hs_check_wrong(&r, &w);
    CHECKF(w.bad == 2 && w.total == R * C && !strcmp(w.units, "cells") &&
           !strcmp(w.err, "abs") && fabs(w.max_err - 0.5) < 1e-3, "%llu of %llu, max %g",
           (unsigned long long)w.bad, (unsigned long long)w.total, w.max_err);
    got[3 * C + 2] = nanf("");
    CHECK_EQ_INT(hs_cpu_check(&k, p, t, R, C, N, got, 1e-3, &r), 1);
    CHECK(isinf(hs_check_maxerr(&r)));
    memset(&w, 0, sizeof w);
    hs_check_wrong(&r, &w);
    CHECK(w.bad == 2 && isinf(w.max_err));
    CHECK_EQ_INT(hs_cpu_check(&k, p, t, R, C, N + 1, got, 1e-3, &r), 1); /* a step short */
}

int main(void)
{
    RUN(coefficients_match_rodinia_by_hand);
    RUN(large_grids_take_the_stable_step);
    RUN(rodinia_step_is_unstable_on_large_grids);
    RUN(uniform_grid_without_power_stays_uniform);
    RUN(hot_cell_spreads_as_computed_by_hand);
    RUN(boundary_uses_the_cell_itself);
    RUN(pyramid_equals_one_step_per_pass);
    RUN(owned_tiles_cover_the_grid_once);
    RUN(float_run_stays_within_the_tolerance);
    RUN(schedule_and_record);
    RUN(check_names_the_first_wrong_cell);
    CHECK_EXIT();
}
