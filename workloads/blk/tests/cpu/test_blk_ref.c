/* BLK's CPU reference and model: textbook prices, tolerance, metadata. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../blk.h"
#include "gpm/check.h"

/* Hull, Options, Futures and Other Derivatives, example 15.6: S=42, K=40,
 * r=10%, sigma=20%, T=0.5 gives c = 4.76 and p = 0.81. */
static void textbook_prices(void)
{
    double c, p;
    blk_ref_price(42, 40, 0.5, 0.10, 0.20, &c, &p);
    CHECKF(fabs(c - 4.7594) < 5e-4, "call %.5f", c);
    CHECKF(fabs(p - 0.8086) < 5e-4, "put %.5f", p);
}

/* Put-call parity holds for every generated option: c - p = S - X e^{-rT}. */
static void parity_of_generated_options(void)
{
    for (uint64_t i = 0; i < 1000; i++) {
        double S = blk_stock(7, i), X = blk_strike(7, i), T = blk_years(7, i), c, p;
        CHECK(S >= 5 && S < 30 && X >= 1 && X < 100 && T >= 0.25 && T < 10);
        blk_ref_price(S, X, T, BLK_RATE, BLK_VOLATILITY, &c, &p);
        CHECKF(fabs((c - p) - (S - X * exp(-BLK_RATE * T))) < 1e-9, "option %d", (int)i);
    }
}

static void option_sums_iterations(void)
{
    double c3, p3, c, p, sc = 0, sp = 0;
    blk_ref_option(3, 5, 3, &c3, &p3);
    for (int it = 0; it < 3; it++) {
        blk_ref_price(blk_stock(3, 5), blk_strike(3, 5),
                      blk_years(3, 5) + (double)((float)it * BLK_DT), BLK_RATE, BLK_VOLATILITY,
                      &c, &p);
        sc += c;
        sp += p;
    }
    CHECK(fabs(c3 - sc) < 1e-12 && fabs(p3 - sp) < 1e-12);
}

static void check_accepts_float_and_rejects_errors(void)
{
    enum { N = 4096, IT = 4 };
    float *call = malloc(N * sizeof *call), *put = malloc(N * sizeof *put);
    struct wl_wrong w = {0};
    float keep;
    CHECK(call && put);
    for (int i = 0; i < N; i++) {
        double c, p;
        blk_ref_option(11, (uint64_t)i, IT, &c, &p);
        call[i] = (float)c;
        put[i] = (float)p;
    }
    CHECK_EQ_INT(blk_check(call, put, N, 11, IT, &w), 0);
    CHECK(w.bad == 0 && w.total == N && w.max_err < blk_abs_tol(IT));
    call[1234] += 0.01f; /* a hundredth of a unit is far outside */
    put[3000] -= 0.25f;
    keep = put[3001];
    put[3001] = NAN;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(blk_check(call, put, N, 11, IT, &w), 1);
    CHECK_MSG(gpm_last_error(), "option 1234");
    /* Every wrong option counted; the NaN's error is the largest. */
    CHECK(w.bad == 3 && w.total == N && !strcmp(w.units, "options") && isinf(w.max_err));
    put[3001] = keep;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(blk_check(call, put, N, 11, IT, &w), 1);
    CHECK(w.bad == 2 && fabs(w.max_err - 0.25) < 1e-3 && !strcmp(w.err, "abs"));
    call[1234] -= 0.01f;
    CHECK_EQ_INT(blk_check(call, put, N, 11, IT + 1, NULL), 1); /* one iteration too few */
    free(call);
    free(put);
}

static void meta_and_schedule(void)
{
    blk_meta m = {0};
    m.magic = BLK_META_MAGIC;
    m.n = 100;
    m.seed = 2;
    m.iters = 8;
    m.iters_done = 3;
    CHECK(blk_meta_matches(&m, 100, 2, 8));
    CHECK(!blk_meta_matches(&m, 101, 2, 8));
    CHECK(!blk_meta_matches(&m, 100, 3, 8));
    CHECK(!blk_meta_matches(&m, 100, 2, 9));
    m.iters_done = 9;
    CHECK(!blk_meta_matches(&m, 100, 2, 8));
    CHECK(wl_checkpoint_due(3, 8, 3) && !wl_checkpoint_due(4, 8, 3) &&
          wl_checkpoint_due(8, 8, 3) && wl_checkpoint_due(1, 8, 1));
}

int main(void)
{
    RUN(textbook_prices);
    RUN(parity_of_generated_options);
    RUN(option_sums_iterations);
    RUN(check_accepts_float_and_rejects_errors);
    RUN(meta_and_schedule);
    CHECK_EXIT();
}
