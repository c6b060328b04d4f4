/* HS's model, shared by the kernels, the CPU reference and the tests:
 * Rodinia HotSpot's physics (constants, the five-point stencil and its
 * boundary), the pyramid tiling of a kernel call, the input generator, the
 * call and checkpoint schedule, the checkpointed record, and the
 * verification tolerance.
 *
 * The float stencil (hs_cell_f) is written so that it rounds the same way
 * on every compiler: each multiply-add is an explicit fmaf and the one
 * plain product cannot be fused (HS_FMUL), so the pyramid kernel, the
 * one-step reference kernel and the CPU give bit-identical floats. */
#ifndef HS_MODEL_H
#define HS_MODEL_H

#include <math.h>
#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

/* Rodinia HotSpot's chip and material constants (SI units). */
#define HS_MAX_PD 3.0e6        /* maximum power density: 300 W on a 10 mm x 10 mm chip */
#define HS_PRECISION 0.001     /* required precision, degrees */
#define HS_SPEC_HEAT_SI 1.75e6 /* volumetric specific heat of silicon */
#define HS_K_SI 100.0          /* thermal conductivity of silicon */
#define HS_FACTOR_CHIP 0.5     /* capacitance fitting factor */
#define HS_T_CHIP 0.0005       /* chip thickness */
#define HS_CHIP_HEIGHT 0.016
#define HS_CHIP_WIDTH 0.016
#define HS_AMB_TEMP 80.0       /* ambient temperature */

/* Rodinia's time step does not shrink with the cells, but the explicit
 * scheme is monotone (and stable) only while the weight left on the cell
 * itself, 1 - step/Cap * (2/Rx + 2/Ry + 1/Rz), is not negative: above about
 * 1200 cells a side Rodinia's step breaks that (at 16K x 16K the
 * temperatures overflow within tens of steps). Where it does, the step is
 * HS_STABLE of the limit; Rodinia's 64, 512 and 1024 grids keep its step. */
#define HS_STABLE 0.75

/* A thread block steps a HS_TILE x HS_TILE tile; a call of HEIGHT steps
 * keeps (HS_TILE - 2 HEIGHT)^2 of its cells (the rest is halo). */
#define HS_TILE 32
#define HS_MAX_HEIGHT ((HS_TILE - 2) / 2)

#ifdef __CUDA_ARCH__
#define HS_FMUL(a, b) __fmul_rn((a), (b)) /* never contracted into an fma */
#else
#define HS_FMUL(a, b) ((a) * (b))
#endif

/* The scheme's weights: T' = T + cy (N + S - 2T) + cx (E + W - 2T)
 * + cz (amb - T) + k P. */
typedef struct hs_coef {
    float cx, cy, cz; /* step / (Cap R) east-west, north-south, to the ambient */
    float k;          /* step / Cap: a power's temperature rise per step */
    float amb;
    int clamped;      /* Rodinia's step was above the stability limit */
} hs_coef;

GPM_HD hs_coef hs_coef_make(uint64_t rows, uint64_t cols)
{
    double gh = HS_CHIP_HEIGHT / (double)rows, gw = HS_CHIP_WIDTH / (double)cols;
    double cap = HS_FACTOR_CHIP * HS_SPEC_HEAT_SI * HS_T_CHIP * gw * gh;
    double rx = gw / (2.0 * HS_K_SI * HS_T_CHIP * gh);
    double ry = gh / (2.0 * HS_K_SI * HS_T_CHIP * gw);
    double rz = HS_T_CHIP / (HS_K_SI * gh * gw);
    double max_slope = HS_MAX_PD / (HS_FACTOR_CHIP * HS_T_CHIP * HS_SPEC_HEAT_SI);
    double step = HS_PRECISION / max_slope;
    double limit = HS_STABLE * cap / (2.0 / rx + 2.0 / ry + 1.0 / rz);
    double k;
    hs_coef c;
    c.clamped = step > limit;
    if (c.clamped)
        step = limit;
    k = step / cap;
    c.k = (float)k;
    c.cx = (float)(k / rx);
    c.cy = (float)(k / ry);
    c.cz = (float)(k / rz);
    c.amb = (float)HS_AMB_TEMP;
    return c;
}

/* One cell's next temperature from itself (T), its neighbours and its
 * power, in float: what the run computes. */
GPM_HD float hs_cell_f(const hs_coef *k, float t, float n, float s, float e, float w, float p)
{
    float ns = (n + s) - (t + t), ew = (e + w) - (t + t);
    float inc = fmaf(k->cz, k->amb - t, fmaf(k->cx, ew, fmaf(k->cy, ns, HS_FMUL(k->k, p))));
    return t + inc;
}

/* The same in double, with the same (float) weights: the reference. */
GPM_HD double hs_cell_d(const hs_coef *k, double t, double n, double s, double e, double w,
                        double p)
{
    return t + ((double)k->cy * ((n + s) - 2.0 * t) + (double)k->cx * ((e + w) - 2.0 * t) +
                (double)k->cz * ((double)k->amb - t) + (double)k->k * p);
}

/* Cell (r, c) of a ROWS x COLS grid and its neighbours' indices; a
 * neighbour outside the grid is the cell itself (Rodinia's boundary: no
 * heat flows across the chip's edge). */
typedef struct hs_nbrs {
    uint64_t i, n, s, e, w;
} hs_nbrs;

GPM_HD hs_nbrs hs_grid_nbrs(uint64_t rows, uint64_t cols, uint64_t r, uint64_t c)
{
    hs_nbrs b;
    b.i = r * cols + c;
    b.n = r > 0 ? b.i - cols : b.i;
    b.s = r + 1 < rows ? b.i + cols : b.i;
    b.w = c > 0 ? b.i - 1 : b.i;
    b.e = c + 1 < cols ? b.i + 1 : b.i;
    return b;
}

/* ---- the pyramid: a kernel call advances HEIGHT steps ----
 * Block (by, bx) loads a HS_TILE^2 tile whose centre, (HS_TILE - 2 HEIGHT)^2
 * cells, it owns; step s (0-based) updates the tile positions s+1 ..
 * HS_TILE-2-s in both directions, whose neighbours the previous step (or
 * the load) made current; after HEIGHT steps the owned centre is exact and
 * is written out. Owned centres tile the grid, so every cell is written
 * once. Positions outside the grid are never read: a neighbour clamps to
 * the cell itself there, as on the grid. */
GPM_HD int hs_out_side(int height) { return HS_TILE - 2 * height; }
GPM_HD uint64_t hs_tiles(uint64_t n, int height)
{
    return (n + (uint64_t)hs_out_side(height) - 1) / (uint64_t)hs_out_side(height);
}

typedef struct hs_tile {
    int64_t r0, c0;             /* grid position of tile position (0, 0) */
    int ymin, ymax, xmin, xmax; /* the tile positions inside the grid */
} hs_tile;

GPM_HD hs_tile hs_tile_at(uint64_t rows, uint64_t cols, int height, uint64_t by, uint64_t bx)
{
    hs_tile t;
    int64_t out = hs_out_side(height), last_r, last_c;
    t.r0 = (int64_t)by * out - height;
    t.c0 = (int64_t)bx * out - height;
    last_r = (int64_t)rows - 1 - t.r0;
    last_c = (int64_t)cols - 1 - t.c0;
    t.ymin = t.r0 < 0 ? (int)-t.r0 : 0;
    t.xmin = t.c0 < 0 ? (int)-t.c0 : 0;
    t.ymax = last_r < HS_TILE - 1 ? (int)last_r : HS_TILE - 1;
    t.xmax = last_c < HS_TILE - 1 ? (int)last_c : HS_TILE - 1;
    return t;
}

GPM_HD int hs_tile_inside(const hs_tile *t, int y, int x)
{
    return y >= t->ymin && y <= t->ymax && x >= t->xmin && x <= t->xmax;
}

/* The grid index of tile position (y, x), which must be inside. */
GPM_HD uint64_t hs_tile_index(const hs_tile *t, uint64_t cols, int y, int x)
{
    return (uint64_t)(t->r0 + y) * cols + (uint64_t)(t->c0 + x);
}

/* Does position (y, x) compute step S of the call? */
GPM_HD int hs_tile_computes(const hs_tile *t, int s, int y, int x)
{
    return hs_tile_inside(t, y, x) && y >= s + 1 && y <= HS_TILE - 2 - s && x >= s + 1 &&
           x <= HS_TILE - 2 - s;
}

/* Does position (y, x) belong to the block's output? */
GPM_HD int hs_tile_owns(const hs_tile *t, int height, int y, int x)
{
    return hs_tile_inside(t, y, x) && y >= height && y < HS_TILE - height && x >= height &&
           x < HS_TILE - height;
}

/* Tile positions of (y, x)'s neighbours, the cell itself past the grid. */
typedef struct hs_tnbrs {
    int n, s, e, w;
} hs_tnbrs;

GPM_HD hs_tnbrs hs_tile_nbrs(const hs_tile *t, int y, int x)
{
    hs_tnbrs b;
    b.n = y - 1 < t->ymin ? y : y - 1;
    b.s = y + 1 > t->ymax ? y : y + 1;
    b.w = x - 1 < t->xmin ? x : x - 1;
    b.e = x + 1 > t->xmax ? x : x + 1;
    return b;
}

/* ---- the schedule: ITERS steps in calls of HEIGHT (the last may be
 * shorter), a checkpoint after every K calls and after the last ---- */
GPM_HD uint64_t hs_calls(uint64_t iters, int height)
{
    return (iters + (uint64_t)height - 1) / (uint64_t)height;
}

GPM_HD int hs_call_steps(uint64_t iters, int height, uint64_t call)
{
    uint64_t left = iters - call * (uint64_t)height;
    return left < (uint64_t)height ? (int)left : height;
}

#define HS_META_MAGIC 0x31544d5f53484750ull /* "PGHS_MT1" */

/* Checkpointed with the temperatures, so that it always describes the
 * checkpoint it is in. */
typedef struct hs_meta {
    uint64_t magic;
    uint64_t calls_done; /* kernel calls whose steps the temperatures hold */
    uint64_t rows, cols;
    uint64_t seed;
    uint64_t iters;      /* of the whole run */
    uint64_t height;
    uint64_t input;      /* fingerprint of the input grids */
    uint8_t pad[64];
} hs_meta;

/* Is M a checkpoint of the run WANT describes (all but calls_done)? */
GPM_HD int hs_meta_matches(const hs_meta *m, const hs_meta *want)
{
    return m->magic == HS_META_MAGIC && m->rows == want->rows && m->cols == want->cols &&
           m->seed == want->seed && m->iters == want->iters && m->height == want->height &&
           m->input == want->input && m->height > 0 &&
           m->calls_done <= hs_calls(m->iters, (int)m->height);
}

/* ---- the generated input: a chip of HS_GEN_UNITS^2 functional units,
 * like Rodinia's sample data: a power per cell that is uniform inside each
 * unit (mostly idle units near 0.002, some busy, a few hot up to 0.08), and
 * initial temperatures between 323 and 344 that are smooth across the chip
 * and highest over the hot units, with a little per-cell noise so that no
 * two cells are alike. The same chip at every grid size; generated on the
 * CPU (hs_input.c), in double, rounded to float once. ---- */
#define HS_GEN_UNITS 8
#define HS_GEN_PMIN 0.002
#define HS_GEN_PMAX 0.08
#define HS_GEN_TMIN 323.0
#define HS_GEN_TSPAN 21.0
#define HS_GEN_NOISE 0.05

GPM_HD double hs_gen_unit_power(uint64_t seed, int uy, int ux)
{
    uint32_t h = wl_hash32(seed, (uint64_t)(uy * HS_GEN_UNITS + ux));
    double f = (double)(h & 0xffffu) / 65536.0;
    uint32_t kind = (h >> 16) % 8u;
    if (kind < 5)
        return HS_GEN_PMIN + 0.0001 * f; /* idle */
    if (kind < 7)
        return 0.008 + 0.022 * f;        /* busy */
    return 0.04 + (HS_GEN_PMAX - 0.04) * f; /* hot */
}

GPM_HD int hs_gen_unit(uint64_t pos, uint64_t n) { return (int)(pos * HS_GEN_UNITS / n); }

GPM_HD float hs_gen_power(uint64_t seed, uint64_t rows, uint64_t cols, uint64_t r, uint64_t c)
{
    return (float)hs_gen_unit_power(seed, hs_gen_unit(r, rows), hs_gen_unit(c, cols));
}

/* A unit's heat in [0, 1]: its power's place between idle and hot. */
GPM_HD double hs_gen_heat(uint64_t seed, int uy, int ux)
{
    return (hs_gen_unit_power(seed, uy, ux) - HS_GEN_PMIN) / (HS_GEN_PMAX - HS_GEN_PMIN);
}

/* Position POS of N in unit coordinates between unit centres: the lower
 * unit *U and the weight *F of the next one. */
GPM_HD void hs_gen_between(uint64_t pos, uint64_t n, int *u, double *f)
{
    double y = ((double)pos + 0.5) * HS_GEN_UNITS / (double)n - 0.5;
    if (y < 0)
        y = 0;
    if (y > HS_GEN_UNITS - 1)
        y = HS_GEN_UNITS - 1;
    *u = (int)y;
    if (*u > HS_GEN_UNITS - 2)
        *u = HS_GEN_UNITS - 2;
    *f = y - *u;
}

GPM_HD float hs_gen_temp(uint64_t seed, uint64_t rows, uint64_t cols, uint64_t r, uint64_t c)
{
    int uy, ux;
    double fy, fx, h, noise;
    hs_gen_between(r, rows, &uy, &fy);
    hs_gen_between(c, cols, &ux, &fx);
    h = (1 - fy) * ((1 - fx) * hs_gen_heat(seed, uy, ux) + fx * hs_gen_heat(seed, uy, ux + 1)) +
        fy * ((1 - fx) * hs_gen_heat(seed, uy + 1, ux) + fx * hs_gen_heat(seed, uy + 1, ux + 1));
    noise = HS_GEN_NOISE * ((double)wl_unit_f32(seed ^ 0x7465u, r * cols + c) - 0.5);
    return (float)(HS_GEN_TMIN + HS_GEN_TSPAN * h + noise);
}

/* ---- verification ----
 * The run (float) against the double reference of the same scheme and
 * weights. The exact scheme is a convex combination of a cell, its
 * neighbours and the ambient plus k P (every weight >= 0 while
 * 2 cx + 2 cy + cz <= 1), so it never amplifies an error: after N steps
 * the float result is off by at most the sum of each step's rounding. One
 * step rounds at most 8 u U + 4 u kP (u = 2^-24, U a bound on |T|, kP on
 * |k P|; README.md derives it); the tolerance takes 10 and 5 for the
 * double reference's own rounding and U's. By the same convexity |T| stays
 * within max(|T0|, amb) plus N k P over the run: that is U. */
GPM_HD double hs_tbound(const hs_coef *k, uint64_t iters, double tmin, double tmax, double pmin,
                        double pmax)
{
    double n = (double)iters, amb = (double)k->amb;
    double hi = (tmax > amb ? tmax : amb) + n * (double)k->k * (pmax > 0 ? pmax : 0);
    double lo = (tmin < amb ? tmin : amb) + n * (double)k->k * (pmin < 0 ? pmin : 0);
    return fabs(hi) > fabs(lo) ? fabs(hi) : fabs(lo);
}

GPM_HD double hs_tolerance(const hs_coef *k, uint64_t iters, double tbound, double pabs)
{
    return (double)iters * (10.0 * tbound + 5.0 * (double)k->k * pabs) / 16777216.0;
}

/* Is GOT within TOL of the double reference WANT? (A NaN never is.) */
GPM_HD int hs_close(float got, double want, double tol) { return fabs((double)got - want) <= tol; }

#endif
