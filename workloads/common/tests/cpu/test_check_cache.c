/* Checks made once (wl_check_*): a fake CPU workload whose verify digests
 * its region and skips its check where the same bytes passed before. A
 * second run of the same parameters is cached; another seed, wrong bytes or
 * GPM_CHECK_CACHE=off are checked in full; the digest covers every byte
 * and its place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/check.h"
#include "tests/wl_test.h"
#include "wl.h"
#include "wl_hd.h"

#define WORDS 4096
enum { OUT_DATA };

static const struct wl_param out_params[] = {
    {.flag = "wrong", .help = "word to get wrong (0: none)", .scale = {0, 0, 0}, .min = 0,
     .max = WORDS},
    {0},
};

static const struct wl_obj_decl out_objects[] = {
    [OUT_DATA] = {"data", WL_OBJ_REGION},
    {NULL, WL_OBJ_REGION},
};

static uint64_t value(uint64_t seed, uint64_t i) { return gpm_mix64(seed * 7919 + i); }
static uint64_t *words(struct wl_ctx *c) { return wl_region(c, OUT_DATA)->host; }

static int out_layout(struct wl_ctx *c)
{
    wl_obj_region(c, OUT_DATA, WORDS * 8);
    c->data_bytes = WORDS * 8;
    c->expected_s = 0.01;
    return 0;
}

static int out_run(struct wl_ctx *c)
{
    gpm_range v = {0, WORDS * 8, NULL};
    for (uint64_t i = 0; i < WORDS; i++)
        words(c)[i] = value(c->opt.seed, i) + (i + 1 == (uint64_t)wl_int(c, "wrong"));
    return wl_commit(c, OUT_DATA, &v, 1);
}

static int out_verify(struct wl_ctx *c)
{
    int rc;
    if (wl_check_digest(c, words(c), WORDS * 8, 0) != 0)
        return -1;
    if ((rc = wl_check_known(c)) != 0)
        return rc < 0 ? -1 : 0;
    for (uint64_t i = 0; i < WORDS; i++)
        if (words(c)[i] != value(c->opt.seed, i))
            return gpm_set_error("word %llu is wrong", (unsigned long long)i), 1;
    return wl_check_passed(c);
}

const struct wl_workload WORKLOAD = {
    .name = "checked",
    .about = "the check cache's test workload",
    .modes = WL_MODE_BIT(WL_CPU),
    .objects = out_objects,
    .params = out_params,
    .layout = out_layout,
    .run = out_run,
    .verify = out_verify,
};

static char dir[4096], rows[4200];

static int run(const char *seed, const char *wrong)
{
    char *av[] = {"checked", "--mode", "cpu", "--pm-dir", dir, "--out", rows, "--reps", "1",
                  "--seed", (char *)seed, "--wrong", (char *)wrong};
    return wl_test_run(&WORKLOAD, av, ARGC(av), NULL);
}

static void the_digest_covers_every_byte_and_its_place(void)
{
    uint64_t w[3] = {1, 2, 3}, s[3] = {3, 2, 1};
    struct wl_ctx one, two, swapped, byte;
    memset(&one, 0, sizeof one), memset(&two, 0, sizeof two);
    memset(&swapped, 0, sizeof swapped), memset(&byte, 0, sizeof byte);
    CHECK(wl_check_digest(&one, w, sizeof w, 0) == 0);
    CHECK(wl_check_digest(&two, w, 16, 0) == 0 && wl_check_digest(&two, w + 2, 8, 0) == 0);
    CHECK(one.check_digest[0] == two.check_digest[0] && one.check_digest[1] == two.check_digest[1]);
    CHECK(wl_check_digest(&swapped, s, sizeof s, 0) == 0);
    CHECK(swapped.check_digest[0] != one.check_digest[0]);
    w[1] ^= 1ull << 40;
    CHECK(wl_check_digest(&byte, w, sizeof w, 0) == 0);
    CHECK(byte.check_digest[0] != one.check_digest[0] &&
          byte.check_digest[1] != one.check_digest[1]);
}

static void a_second_run_of_the_same_bytes_is_not_checked_again(void)
{
    unlink(rows);
    CHECK_EQ_INT(run("5", "0"), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 0);
    CHECK_EQ_INT(run("5", "0"), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 1);
    CHECK_EQ_INT(run("6", "0"), 0); /* another seed: another key */
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
}

static void wrong_bytes_are_checked_and_fail(void)
{
    unlink(rows);
    CHECK_EQ_INT(run("5", "9"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 0);
}

static void the_cache_can_be_turned_off(void)
{
    unlink(rows);
    setenv("GPM_CHECK_CACHE", "off", 1);
    CHECK_EQ_INT(run("5", "0"), 0);
    setenv("GPM_CHECK_CACHE", "on", 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 0);
}

int main(void)
{
    char data[4200];
    wl_test_scratch("check-cache-test", dir, rows, NULL);
    snprintf(data, sizeof data, "%s/data", dir);
    setenv("GPM_DATA_DIR", data, 1);
    setenv("GPM_CHECK_CACHE", "on", 1);
    /* The programs first: they run in forked children, which OpenMP
     * threads started in this process would deadlock. */
    RUN(a_second_run_of_the_same_bytes_is_not_checked_again);
    RUN(wrong_bytes_are_checked_and_fail);
    RUN(the_cache_can_be_turned_off);
    RUN(the_digest_covers_every_byte_and_its_place);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
