/* HS's kernels on the GPU against the CPU: the pyramid kernel equals one
 * step per pass bit for bit for grids of every awkward shape and every
 * pyramid height, and the GPU check passes a right result and names a
 * wrong one (so a verified run means something). */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "../../hs.h"
#include "tests/wl_test.h"
#include "gpm/check_gpu.h"

struct grids {
    uint64_t rows, cols, n;
    float *t, *p;             /* host: initial temperatures, power */
    float *d_t, *d_p, *d_a, *d_b;
};

static int grids_make(struct grids *g, uint64_t rows, uint64_t cols, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->rows = rows;
    g->cols = cols;
    g->n = rows * cols;
    g->t = (float *)malloc(g->n * 4);
    g->p = (float *)malloc(g->n * 4);
    if (!g->t || !g->p)
        return -1;
    hs_generate(seed, rows, cols, g->t, g->p);
    return wl_dev_alloc((void **)&g->d_t, g->n * 4) || wl_dev_alloc((void **)&g->d_p, g->n * 4) ||
                   wl_dev_alloc((void **)&g->d_a, g->n * 4) ||
                   wl_dev_alloc((void **)&g->d_b, g->n * 4) ||
                   wl_dev_copy(g->d_t, g->t, g->n * 4, 1) || wl_dev_copy(g->d_p, g->p, g->n * 4, 1)
               ? -1
               : 0;
}

static void grids_free(struct grids *g)
{
    free(g->t);
    free(g->p);
    wl_dev_free(g->d_t);
    wl_dev_free(g->d_p);
    wl_dev_free(g->d_a);
    wl_dev_free(g->d_b);
}

/* ITERS steps in calls of HEIGHT on the GPU; the result in *OUT (device). */
static int gpu_steps(struct grids *g, const hs_coef *k, uint64_t iters, int height, float **out)
{
    float *cur = g->d_a, *next = g->d_b, *t;
    if (wl_dev_copy_within(cur, g->d_t, g->n * sizeof(float)) != 0)
        return -1;
    for (uint64_t c = 0; c < hs_calls(iters, height); c++) {
        if (hs_gpu_call(g->d_p, cur, next, g->rows, g->cols, height,
                        hs_call_steps(iters, height, c), *k) != 0)
            return -1;
        t = cur;
        cur = next;
        next = t;
    }
    *out = cur;
    return 0;
}

static void pyramid_kernel_equals_one_step_per_pass(void)
{
    static const uint64_t sizes[][2] = {{37, 53}, {1, 40}, {45, 1}, {64, 64}, {100, 257},
                                        {513, 70}};
    static const int heights[] = {1, 2, 3, 4, 7, HS_MAX_HEIGHT};
    static const uint64_t iters[] = {1, 5, 16};
    NEED_GPU();
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct grids g;
        hs_coef k = hs_coef_make(16384, 16384);
        float *want = (float *)malloc(sizes[s][0] * sizes[s][1] * 4),
              *got = (float *)malloc(sizes[s][0] * sizes[s][1] * 4), *d;
        CHECK(want && got && grids_make(&g, sizes[s][0], sizes[s][1], 9) == 0);
        for (size_t i = 0; i < sizeof iters / sizeof iters[0]; i++) {
            CHECK(hs_cpu_reference(&k, g.p, g.t, g.rows, g.cols, iters[i], want, NULL) == 0);
            for (size_t h = 0; h < sizeof heights / sizeof heights[0]; h++) {
                CHECKF(gpu_steps(&g, &k, iters[i], heights[h], &d) == 0, "%s", gpm_last_error());
                CHECK(wl_dev_copy(got, d, g.n * 4, 0) == 0);
                for (uint64_t j = 0; j < g.n; j++)
                    CHECKF(memcmp(&got[j], &want[j], 4) == 0,
                           "%llux%llu, %llu steps, height %d: cell %llu is %.9g, one-step "
                           "%.9g", (unsigned long long)g.rows, (unsigned long long)g.cols,
                           (unsigned long long)iters[i], heights[h], (unsigned long long)j,
                           got[j], want[j]);
            }
        }
        grids_free(&g);
        free(want);
        free(got);
    }
}

static void gpu_check_passes_right_and_names_wrong(void)
{
    enum { R = 200, C = 300, N = 24, H = 4 };
    struct grids g;
    hs_coef k = hs_coef_make(4096, 4096);
    struct hs_check *dc = NULL, r;
    float *d, v;
    const double tol = hs_tolerance(&k, N, hs_tbound(&k, N, 322, 345, 0, 0.08), 0.08);
    NEED_GPU();
    CHECK(grids_make(&g, R, C, 4) == 0 && wl_dev_alloc((void **)&dc, sizeof *dc) == 0);
    CHECK(gpu_steps(&g, &k, N, H, &d) == 0);
    CHECK_EQ_INT(hs_gpu_check(d, g.d_p, g.d_t, R, C, N, k, tol, dc, &r), 0);
    CHECK(r.checked == (unsigned long long)R * C && r.bad_exact == 0 && r.bad_tol == 0);
    CHECKF(hs_check_maxerr(&r) < tol / 10, "maxerr %.3g, tolerance %.3g", hs_check_maxerr(&r),
           tol);
    CHECK_EQ_INT(hs_gpu_check(d, g.d_p, g.d_t, R, C, N + 1, k, tol, dc, &r), 1); /* a step short */
    /* one ulp off: only the exact check sees it */
    CHECK(wl_dev_copy(&v, d + 17 * C + 5, 4, 0) == 0);
    v = nextafterf(v, 1e9f);
    CHECK(wl_dev_copy(d + 17 * C + 5, &v, 4, 1) == 0);
    CHECK_EQ_INT(hs_gpu_check(d, g.d_p, g.d_t, R, C, N, k, tol, dc, &r), 1);
    CHECK_MSG(gpm_last_error(), "row 17 col 5");
    CHECK_MSG(gpm_last_error(), "bit for bit");
    CHECK(r.bad_exact == 1 && r.bad_tol == 0);
    /* a NaN: the double check, and the largest error */
    v = nanf("");
    CHECK(wl_dev_copy(d + 150 * C + 299, &v, 4, 1) == 0);
    CHECK_EQ_INT(hs_gpu_check(d, g.d_p, g.d_t, R, C, N, k, tol, dc, &r), 1);
    CHECK_MSG(gpm_last_error(), "row 150 col 299");
    CHECK(r.bad_tol == 1 && r.bad_exact == 2 && isinf(hs_check_maxerr(&r)));
    wl_dev_free(dc);
    grids_free(&g);
}

/* The output digest that lets later modes skip HS's check (wl_check_*):
 * the GPU's equals the CPU's for the same temperatures, an odd length
 * included, and one changed bit changes it. */
static void device_digest_equals_the_host_digest(void)
{
    struct grids g;
    struct wl_ctx host, dev;
    struct wl_harness hh, dh;
    uint64_t n = 999999; /* floats; with 2 bytes more, an odd length within the grid */
    CHECK(grids_make(&g, 1000, 1000, 11) == 0);
    wl_test_ctx(&host, &hh);
    wl_test_ctx(&dev, &dh);
    CHECK(wl_check_digest(&host, g.t, n * 4 + 2, 0) == 0);
    CHECK(wl_check_digest(&dev, g.d_t, n * 4 + 2, 1) == 0);
    CHECK(host.h->check_digest[0] == dev.h->check_digest[0] &&
          host.h->check_digest[1] == dev.h->check_digest[1] &&
          host.h->check_digest[2] == dev.h->check_digest[2]);
    g.t[777] = -g.t[777];
    wl_test_ctx(&host, &hh);
    CHECK(wl_check_digest(&host, g.t, n * 4 + 2, 0) == 0);
    CHECK(host.h->check_digest[0] != dev.h->check_digest[0]);
    grids_free(&g);
}

static void bad_height_is_refused(void)
{
    hs_coef k = hs_coef_make(64, 64);
    NEED_GPU();
    CHECK_EQ_INT(hs_gpu_call(NULL, NULL, NULL, 64, 64, HS_MAX_HEIGHT + 1, 1, k), -1);
    CHECK_MSG(gpm_last_error(), "--pyramid-height");
    CHECK_EQ_INT(hs_gpu_call(NULL, NULL, NULL, 64, 64, 2, 3, k), -1);
}

int main(void)
{
    RUN(pyramid_kernel_equals_one_step_per_pass);
    RUN(gpu_check_passes_right_and_names_wrong);
    RUN(device_digest_equals_the_host_digest);
    RUN(bad_height_is_refused);
    CHECK_EXIT();
}
