/* SRAD's reference on small images: values computed independently (a
 * double-precision Python transcription of Rodinia's equations), the
 * clamp, the edges, symmetry and conservation, and a tolerance that every
 * kind of wrong result falls far outside. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../srad.h"
#include "gpm/check.h"

#define NEAR(got, want, tol)                                                           \
    CHECKF(fabs((double)(got) - (double)(want)) <= (tol), "%s = %.9g, expected %.9g", #got, \
           (double)(got), (double)(want))

static srad_geom geom(uint64_t rows, uint64_t cols, uint64_t r1, uint64_t r2, uint64_t c1,
                      uint64_t c2)
{
    srad_geom g = {rows, cols, r1, r2, c1, c2};
    return g;
}

/* exp of the seed's uniform values, from Python (splitmix64's finaliser). */
static void input_against_hand_values(void)
{
    static const uint32_t bits[4] = {0x3fa9382a, 0x3fa06948, 0x3fbad218, 0x3fa47964};
    for (uint64_t k = 0; k < 4; k++) {
        float v = srad_input(1, k);
        uint32_t b;
        memcpy(&b, &v, 4);
        CHECKF(b == bits[k], "input %llu is %.9g (%08x)", (unsigned long long)k, v, b);
    }
    for (uint64_t k = 0; k < 4096; k++)
        CHECK(srad_input(7, k) >= 1.0f && srad_input(7, k) < 2.7182819f);
}

/* A neighbour beyond the image is the pixel itself: no difference there. */
static void edges_have_no_outward_difference(void)
{
    const float img[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    srad_geom g = geom(3, 3, 0, 2, 0, 2);
    float d[4];
    srad_derivs(img, &g, 0, 0, d);
    CHECK(d[0] == 0 && d[1] == 3 && d[2] == 0 && d[3] == 1);
    srad_derivs(img, &g, 2, 2, d);
    CHECK(d[0] == -3 && d[1] == 0 && d[2] == -1 && d[3] == 0);
    srad_derivs(img, &g, 1, 1, d);
    CHECK(d[0] == -3 && d[1] == 3 && d[2] == -1 && d[3] == 1);
    CHECK_EQ_INT(srad_south(4, 5), 4);
    CHECK_EQ_INT(srad_east(0, 1), 0);
    CHECK_EQ_INT(srad_north(0), 0);
}

static void coefficient_against_hand_values(void)
{
    const float d1[4] = {0.5f, 0, 0, 0}, bright[4] = {-1, -1, -1, -1};
    NEAR(srad_coef(1.0f, d1, 0.05f), 0.590419993, 1e-6);
    NEAR(srad_coef(2.0f, bright, 0.5f), 0.6, 1e-6);
}

static void coefficient_is_clamped_to_0_1(void)
{
    const float d1[4] = {0.5f, 0, 0, 0}, flat[4] = {0, 0, 0, 0};
    /* Unclamped 1.1408 (hand), 11 (a flat pixel), -1 (q0^2 < 0), NaN (0/0). */
    CHECK(srad_coef(1.0f, d1, 0.1f) == 1.0f);
    CHECK(srad_coef(1.0f, flat, 0.1f) == 1.0f);
    CHECK(srad_coef(1.0f, flat, -0.5f) == 0.0f);
    CHECK(srad_coef(1.0f, flat, 0.0f) == 0.0f);
    CHECK(srad_clamp01(NAN) == 0.0f && srad_clamp01(INFINITY) == 1.0f &&
          srad_clamp01(-INFINITY) == 0.0f && srad_clamp01(0.25f) == 0.25f);
    for (uint64_t k = 0; k < 20000; k++) {
        float d[4], jc = 0.5f + 4 * wl_unit_f32(3, 5 * k), c;
        for (int u = 0; u < 4; u++)
            d[u] = 3 * wl_unit_f32(3, 5 * k + 1 + u) - 1.5f;
        c = srad_coef(jc, d, 0.3f * wl_unit_f32(4, k));
        CHECKF(c >= 0.0f && c <= 1.0f, "c = %g", c);
    }
}

/* One step of a 3 x 3 image whose ROI is all of it, against Python. */
static void one_step_on_3x3_against_hand_values(void)
{
    const float in[9] = {1.0f, 1.5f, 2.0f, 1.25f, 2.5f, 1.125f, 1.75f, 1.375f, 1.625f};
    static const double c_want[9] = {0.926464434, 0.369905364, 0.575551848,
                                     0.277095843, 0.100709888, 0.280115806,
                                     1,           0.49758845,  1};
    static const double j_want[9] = {1.03177833, 1.52544164, 1.93339034,
                                     1.31957667, 2.35355706, 1.26628257,
                                     1.66417554, 1.49954783, 1.53125};
    srad_geom g = geom(3, 3, 0, 2, 0, 2);
    float out[9], c[9];
    double roi[6];
    float q0 = srad_cpu_q0sqr(in, &g, roi);
    NEAR(q0, 0.07909781502075341, 1e-8);
    srad_ref_step(&g, srad_step(0.5f), q0, in, out, c);
    for (int k = 0; k < 9; k++) {
        NEAR(c[k], c_want[k], 2e-6);
        NEAR(out[k], j_want[k], 2e-6);
    }
    /* The same through srad_ref_run. */
    CHECK_EQ_INT(srad_ref_run(&g, srad_step(0.5f), in, 1, out, c), 0);
    NEAR(out[4], 2.35355706, 2e-6);
}

static void constant_image_stays_constant(void)
{
    enum { R = 16, C = 24 };
    static float in[R * C], out[R * C], c[R * C];
    /* A flat ROI: q0^2 = 0, where every coefficient is 0/0; and a ROI
     * elsewhere. Either way nothing moves, to the bit. */
    const srad_geom gs[2] = {geom(R, C, 0, 7, 0, 7), geom(R, C, 3, 15, 10, 23)};
    for (int k = 0; k < R * C; k++)
        in[k] = 1.7f;
    for (int t = 0; t < 2; t++) {
        CHECK_EQ_INT(srad_ref_run(&gs[t], srad_step(0.5f), in, 5, out, c), 0);
        for (int k = 0; k < R * C; k++) {
            CHECKF(out[k] == 1.7f, "pixel %d is %.9g", k, out[k]);
            CHECK(c[k] >= 0.0f && c[k] <= 1.0f);
        }
    }
}

static double total(const float *x, int n)
{
    double s = 0;
    for (int k = 0; k < n; k++)
        s += x[k];
    return s;
}

/* Rodinia's scheme takes a pixel's own coefficient for its north and west
 * edges and its neighbours' for south and east, so one bright pixel
 * spreads the same way along rows as along columns (symmetric under
 * transposition), and the same way in all four directions where the
 * coefficients saturate; the total is conserved. */
static void bright_pixel_diffuses_symmetrically(void)
{
    enum { N = 9, M = N / 2 };
    float in[N * N], out[N * N], c[N * N], a[N * N];
    srad_geom g = geom(N, N, 0, N - 1, 0, N - 1);
    float step = srad_step(0.5f);
    double roi[2 * N];
    for (int k = 0; k < N * N; k++)
        in[k] = 1.0f;
    in[M * N + M] = 2.0f;

    /* One step with the ROI's q0^2: exact transposition symmetry. */
    srad_ref_step(&g, step, srad_cpu_q0sqr(in, &g, roi), in, out, c);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            CHECKF(out[i * N + j] == out[j * N + i], "(%d,%d) %.9g vs %.9g", i, j,
                   out[i * N + j], out[j * N + i]);
    CHECK(out[M * N + M] < 2.0f && out[(M - 1) * N + M] > 1.0f && out[(M + 1) * N + M] > 1.0f);
    CHECK(out[(M - 1) * N + M - 1] == 1.0f && out[0] == 1.0f);
    NEAR(total(out, N * N), total(in, N * N), 1e-5);

    /* Saturated coefficients (q0^2 above every pixel's q^2): four-fold. */
    srad_ref_step(&g, step, 100.0f, in, out, c);
    for (int k = 0; k < N * N; k++)
        CHECK(c[k] == 1.0f);
    CHECK(out[M * N + M] == 1.5f);
    CHECK(out[(M - 1) * N + M] == 1.125f && out[(M + 1) * N + M] == 1.125f &&
          out[M * N + M - 1] == 1.125f && out[M * N + M + 1] == 1.125f);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            CHECK(out[i * N + j] == out[(N - 1 - i) * N + j]);
            CHECK(out[i * N + j] == out[i * N + N - 1 - j]);
        }

    /* Five iterations: symmetric within rounding, the total conserved. */
    CHECK_EQ_INT(srad_ref_run(&g, step, in, 5, a, c), 0);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            NEAR(a[i * N + j], a[j * N + i], 1e-6);
    NEAR(total(a, N * N), total(in, N * N), 1e-5);
}

/* "row R column C" of the first pixel from FROM on that differs by more
 * than the tolerance, as srad_check names it. */
static void first_far(const float *a, const float *b, uint64_t from, uint64_t n, uint64_t cols,
                      uint64_t iters, char *out, size_t len)
{
    uint64_t k = from;
    while (k < n && fabs((double)a[k] - b[k]) <= srad_tol_image(iters))
        k++;
    snprintf(out, len, "image pixel at row %llu column %llu after %llu iterations",
             (unsigned long long)(k / cols), (unsigned long long)(k % cols),
             (unsigned long long)iters);
}

/* The verification tolerance against what goes wrong when persistence
 * does: a wrong iteration count, a torn buffer (half of the image one
 * iteration behind), one missed pixel, stale coefficients, a NaN. Each is
 * caught; rounding of an ulp per pixel is not. */
static void wrong_results_fall_far_outside_the_tolerance(void)
{
    enum { R = 128, C = 96, IT = 12 };
    srad_geom g = geom(R, C, 0, 31, 0, 31);
    const uint64_t n = R * C;
    float *j0 = malloc(n * 4), *jn = malloc(n * 4), *cn = malloc(n * 4), *jp = malloc(n * 4),
          *cp = malloc(n * 4), *x = malloc(n * 4);
    double dj, dc, big = 0, big2;
    uint64_t far = 0, kbig = 0;
    struct wl_wrong w = {0};
    char want[128];
    CHECK(j0 && jn && cn && jp && cp && x);
    srad_cpu_generate(j0, n, 1);
    CHECK_EQ_INT(srad_ref_run(&g, srad_step(0.5f), j0, IT, jn, cn), 0);
    CHECK_EQ_INT(srad_ref_run(&g, srad_step(0.5f), j0, IT - 1, jp, cp), 0);
    CHECK_EQ_INT(srad_check(jn, cn, jn, cn, &g, IT, &dj, &dc, NULL), 0);
    CHECK(dj == 0 && dc == 0);
    for (uint64_t k = 0; k < n; k++) {
        double d = fabs((double)jn[k] - jp[k]);
        far += d > 10 * srad_tol_image(IT);
        if (d > big)
            big = d, kbig = k;
    }
    /* Most pixels move by more than 10x the tolerance in one iteration. */
    CHECKF(far > n / 2, "%llu of %llu pixels", (unsigned long long)far, (unsigned long long)n);
    CHECK(big > 100 * srad_tol_image(IT));

    CHECK_EQ_INT(srad_check(jp, cp, jn, cn, &g, IT, &dj, &dc, NULL), 1);
    first_far(jp, jn, 0, n, C, IT, want, sizeof want);
    CHECK_MSG(gpm_last_error(), want);
    memcpy(x, jn, n * 4);
    memcpy(x + n / 2, jp + n / 2, n / 2 * 4); /* torn: the second half is stale */
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(srad_check(x, cn, jn, cn, &g, IT, &dj, &dc, &w), 1);
    first_far(x, jn, n / 2, n, C, IT, want, sizeof want);
    CHECK_MSG(gpm_last_error(), want);
    CHECK(strstr(want, "row 64 ") != NULL);
    /* The measure: every stale pixel outside the tolerance, the largest
     * difference of the image. */
    far = 0, big2 = 0;
    for (uint64_t k = n / 2; k < n; k++) {
        double d = fabs((double)jn[k] - jp[k]);
        far += d > srad_tol_image(IT);
        big2 = d > big2 ? d : big2;
    }
    CHECKF(w.bad == far && w.total == n && w.max_err == big2 && !strcmp(w.err, "abs") &&
           !strcmp(w.units, "pixels"), "%llu of %llu pixels, max %g",
           (unsigned long long)w.bad, (unsigned long long)w.total, w.max_err);
    CHECK(w.bad > n / 4);
    memcpy(x, jn, n * 4);
    x[kbig] = jp[kbig]; /* one missed update */
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(srad_check(x, cn, jn, cn, &g, IT, &dj, &dc, &w), 1);
    CHECK(dj == big);
    CHECK(w.bad == 1 && w.max_err == big);
    /* Stale coefficients: pixels whose value is right count too. */
    far = 0;
    for (uint64_t k = 0; k < n; k++)
        far += fabs((double)cn[k] - cp[k]) > srad_tol_coef(IT);
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(srad_check(jn, cp, jn, cn, &g, IT, &dj, &dc, &w), 1);
    CHECK_MSG(gpm_last_error(), "coefficient");
    CHECK(far > 0 && w.bad == far && w.max_err == 0);
    memcpy(x, jn, n * 4);
    x[77] = NAN;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(srad_check(x, cn, jn, cn, &g, IT, &dj, &dc, &w), 1);
    CHECK(w.bad == 1 && isinf(w.max_err) && isinf(dj));
    /* An ulp everywhere is within it. */
    for (uint64_t k = 0; k < n; k++)
        x[k] = nextafterf(jn[k], 10.0f);
    CHECK_EQ_INT(srad_check(x, cn, jn, cn, &g, IT, &dj, &dc, NULL), 0);
    free(j0), free(jn), free(cn), free(jp), free(cp), free(x);
}

int main(void)
{
    RUN(input_against_hand_values);
    RUN(edges_have_no_outward_difference);
    RUN(coefficient_against_hand_values);
    RUN(coefficient_is_clamped_to_0_1);
    RUN(one_step_on_3x3_against_hand_values);
    RUN(constant_image_stays_constant);
    RUN(bright_pixel_diffuses_symmetrically);
    RUN(wrong_results_fall_far_outside_the_tolerance);
    CHECK_EXIT();
}
