/* SRAD's PM layout and completion records (the srad_layout.h code the
 * workload runs), and a resume on a real mapped file: an iteration torn by
 * a "crash" is redone from the last complete one, to the bit. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../srad.h"
#include "tests/wl_test.h"
#include "gpm/check.h"

static void layout_offsets(void)
{
    /* 1000 pixels: 4000 bytes, one page per array. */
    CHECK_EQ_INT(srad_array_bytes(1000), 4096);
    CHECK_EQ_INT(srad_rec_off(0), 0);
    CHECK_EQ_INT(srad_rec_off(1), 128);
    CHECK_EQ_INT(sizeof(srad_record), SRAD_REC_SLOT);
    CHECK_EQ_INT(srad_image_off(1000, 0), 4096);
    CHECK_EQ_INT(srad_image_off(1000, 1), 8192);
    CHECK_EQ_INT(srad_coef_off(1000, 0), 12288);
    CHECK_EQ_INT(srad_coef_off(1000, 1), 16384);
    CHECK_EQ_INT(srad_file_bytes(1000), 20480);
    /* Iteration t writes slot t % 2. */
    CHECK(srad_slot(1) == 1 && srad_slot(2) == 0 && srad_slot(50) == 0);
    /* Paper scale: 128K x 1K floats, 512 MiB per array, 2 GiB in all, and
     * every array on a page (16-byte stores, flush slices, pwrite). */
    CHECK_EQ_INT(srad_file_bytes(131072ull * 1024), 4096 + (2ull << 30));
    CHECK_EQ_INT(srad_coef_off(131072ull * 1024, 1) % 4096, 0);
    CHECK_EQ_INT(srad_image_off(131071ull * 1023, 1) % 4096, 0);
    /* Above 2^32 bytes: 64-bit offsets. */
    CHECK_EQ_INT(srad_coef_off(1ull << 32, 1), 4096 + 3 * (16ull << 30));
}

static void records_say_which_iteration_is_complete(void)
{
    srad_record r = srad_record_make(7, 5, 300, 200), t;
    CHECK(srad_record_valid(&r, 1, 7, 300, 200, 10));
    CHECK(!srad_record_valid(&r, 0, 7, 300, 200, 10));   /* in the other slot */
    CHECK(!srad_record_valid(&r, 1, 8, 300, 200, 10));   /* another run's */
    CHECK(!srad_record_valid(&r, 1, 7, 300, 201, 10));   /* another image's */
    CHECK(!srad_record_valid(&r, 1, 7, 300, 200, 4));    /* beyond the run */
    t = srad_record_make(7, 0, 300, 200);
    CHECK(!srad_record_valid(&t, 0, 7, 300, 200, 10));   /* iteration 0 is the input */
    /* Torn: any field changed without its seal, one byte is enough. */
    for (size_t b = 0; b < offsetof(srad_record, pad); b++) {
        t = r;
        ((uint8_t *)&t)[b] ^= 0x10;
        CHECKF(!srad_record_valid(&t, 1, 7, 300, 200, 10), "byte %zu", b);
    }
    memset(&t, 0, sizeof t);
    CHECK(!srad_record_valid(&t, 0, 0, 0, 0, 10));
}

static void durable_iterations_are_the_newer_valid_record(void)
{
    srad_record rec[2];
    rec[0] = srad_record_make(7, 4, 30, 20);
    rec[1] = srad_record_make(7, 5, 30, 20);
    CHECK_EQ_INT(srad_durable_iters(rec, 7, 30, 20, 10), 5);
    rec[1].iter = 7; /* torn while iteration 7 was recorded... */
    CHECK_EQ_INT(srad_durable_iters(rec, 7, 30, 20, 10), 4); /* ...the previous one stands */
    rec[1] = srad_record_make(6, 9, 30, 20);                  /* an earlier run's */
    CHECK_EQ_INT(srad_durable_iters(rec, 7, 30, 20, 10), 4);
    CHECK_EQ_INT(srad_durable_iters(rec, 8, 30, 20, 10), 0);
    memset(rec, 0, sizeof rec);
    CHECK_EQ_INT(srad_durable_iters(rec, 0, 30, 20, 10), 0);
}

/* The iterations as the harness runs them in cpu mode, on mapping R. */
static int iterations(const gpm_region *r, const struct srad_state *st, const float *j0,
                      uint32_t epoch, uint64_t from, uint64_t to)
{
    struct wl_ctx c;
    struct wl_harness h;
    wl_test_ctx(&c, &h);
    c.m = wl_mode(WL_CPU);
    c.h->obj[SRAD_PM].region = *r;
    for (uint64_t t = from + 1; t <= to; t++) {
        const float *in = t == 1 ? j0
                                 : (const float *)((uint8_t *)r->host +
                                                   srad_image_off(st->n, srad_slot(t - 1)));
        srad_record rec = srad_record_make(epoch, t, st->g.rows, st->g.cols);
        if (srad_cpu_iteration(&c, st, in, t) != 0)
            return -1;
        memcpy((uint8_t *)r->host + srad_rec_off(srad_slot(t)), &rec, sizeof rec);
    }
    return 0;
}

/* The CPU counterpart on a mapped file: three iterations of epoch 5 are
 * complete, the fourth dies half way (half its slot written with garbage,
 * its record torn). Recovery finds 3, redoes 4 and 5 from slot 1, and the
 * result is the reference's to the bit. */
static void torn_iteration_is_redone_from_the_last_complete_one(void)
{
    const uint64_t rows = 100, cols = 77, n = rows * cols;
    struct srad_state st;
    gpm_region r;
    char name[64];
    float *j0 = malloc(n * 4), *ref_j = malloc(n * 4), *ref_c = malloc(n * 4), *img;
    srad_record *rec, torn;
    memset(&st, 0, sizeof st);
    st.g.rows = rows, st.g.cols = cols, st.g.r1 = 10, st.g.r2 = 40, st.g.c1 = 5, st.g.c2 = 60;
    st.n = n;
    st.iters = 5;
    st.step = srad_step(0.5f);
    st.h_roi = malloc(2 * srad_roi_rows(&st.g) * sizeof(double));
    for (int u = 0; u < 4; u++)
        st.h_dir[u] = malloc(n * 4);
    CHECK(j0 && ref_j && ref_c && st.h_roi && st.h_dir[0] && st.h_dir[1] && st.h_dir[2] &&
          st.h_dir[3]);
    snprintf(name, sizeof name, "test-srad-resume-%d.pm", (int)getpid());
    CHECKF(gpm_map(&r, name, srad_file_bytes(n), GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    rec = (srad_record *)((uint8_t *)r.host + srad_rec_off(0));
    srad_cpu_generate(j0, n, 9);

    CHECK_EQ_INT(iterations(&r, &st, j0, 5, 0, 3), 0);
    CHECK_EQ_INT(srad_durable_iters(rec, 5, rows, cols, 5), 3);
    img = (float *)((uint8_t *)r.host + srad_image_off(n, srad_slot(4)));
    for (uint64_t k = 0; k < n / 2; k++)
        img[k] = -1.0f;
    torn = srad_record_make(5, 4, rows, cols);
    torn.seal ^= 1;
    rec[srad_slot(4)] = torn;
    CHECK_EQ_INT(srad_durable_iters(rec, 5, rows, cols, 5), 3);
    CHECK_EQ_INT(iterations(&r, &st, j0, 5, 3, 5), 0);
    CHECK_EQ_INT(srad_durable_iters(rec, 5, rows, cols, 5), 5);

    CHECK_EQ_INT(srad_ref_run(&st.g, st.step, j0, 5, ref_j, ref_c), 0);
    CHECK(memcmp(ref_j, (uint8_t *)r.host + srad_image_off(n, srad_slot(5)), n * 4) == 0);
    CHECK(memcmp(ref_c, (uint8_t *)r.host + srad_coef_off(n, srad_slot(5)), n * 4) == 0);
    /* A later run (epoch 6) finds nothing of its own. */
    CHECK_EQ_INT(srad_durable_iters(rec, 6, rows, cols, 5), 0);
    gpm_unmap(&r);
    unlink(r.path);
    free(j0), free(ref_j), free(ref_c), free(st.h_roi);
    for (int u = 0; u < 4; u++)
        free(st.h_dir[u]);
}

int main(void)
{
    RUN(layout_offsets);
    RUN(records_say_which_iteration_is_complete);
    RUN(durable_iterations_are_the_newer_valid_record);
    RUN(torn_iteration_is_redone_from_the_last_complete_one);
    CHECK_EXIT();
}
