/* Checks made once (wl_check_*): a fake CPU workload whose verify digests
 * its region and skips its check where the same bytes passed before. A
 * second run of the same parameters is cached; another seed, a rewritten
 * input file, wrong bytes or GPM_CHECK_CACHE=off are checked in full; the digest covers every byte
 * and its place. A copy of this program whose reference is changed (one
 * constant of its check, rewritten in the copy's bytes) is checked, and
 * fails, where the original's verdict on the same bytes is kept. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    {.flag = "input", .help = "an input file or folder (the output ignores it)", .type = WL_STR,
     .sscale = {"none", "none", "none"}},
    {0},
};

static const struct wl_obj_decl out_objects[] = {
    [OUT_DATA] = {"data", WL_OBJ_REGION},
    {NULL, WL_OBJ_REGION},
};

static uint64_t value(uint64_t seed, uint64_t i) { return gpm_mix64(seed * 7919 + i); }

/* The reference's one constant, behind a mark that a test finds in a copy
 * of this program to change it there: the copy's check then expects
 * BIAS more in every word. Volatile, so the check reads it from the file's
 * bytes rather than from an immediate. */
static const volatile struct {
    char mark[32];
    uint64_t bias;
} reference = {"check-cache-test reference:", 0};
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
        words(c)[i] = value(wl_seed(c), i) + (i + 1 == (uint64_t)wl_int(c, "wrong"));
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
        if (words(c)[i] != value(wl_seed(c), i) + reference.bias)
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

static char dir[4096], rows[4200], errf[4200];
/* Where copies of this program go: a folder of their own on a file system
 * that runs programs (the scratch directory may be on a noexec PM mount). */
static char copydir[4200];

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
    struct wl_harness h[4];
    wl_test_ctx(&one, &h[0]), wl_test_ctx(&two, &h[1]);
    wl_test_ctx(&swapped, &h[2]), wl_test_ctx(&byte, &h[3]);
    CHECK(wl_check_digest(&one, w, sizeof w, 0) == 0);
    CHECK(wl_check_digest(&two, w, 16, 0) == 0 && wl_check_digest(&two, w + 2, 8, 0) == 0);
    CHECK(one.h->check_digest[0] == two.h->check_digest[0] &&
          one.h->check_digest[1] == two.h->check_digest[1]);
    CHECK(wl_check_digest(&swapped, s, sizeof s, 0) == 0);
    CHECK(swapped.h->check_digest[0] != one.h->check_digest[0]);
    w[1] ^= 1ull << 40;
    CHECK(wl_check_digest(&byte, w, sizeof w, 0) == 0);
    CHECK(byte.h->check_digest[0] != one.h->check_digest[0] &&
          byte.h->check_digest[1] != one.h->check_digest[1]);
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

static int run_on(const char *input)
{
    char *av[] = {"checked", "--mode", "cpu", "--pm-dir", dir, "--out", rows, "--reps", "1",
                  "--seed", "8", "--input", (char *)input};
    return wl_test_run(&WORKLOAD, av, ARGC(av), NULL);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A dataset rewritten in place, named alone, in a list or by its folder,
 * is another input: the same output bytes are checked again on it. */
static void a_rewritten_input_never_meets_a_cached_verdict(void)
{
    char folder[4300], file[4400], list[8800];
    snprintf(folder, sizeof folder, "%s/inputs", dir);
    snprintf(file, sizeof file, "%s/temp", folder);
    snprintf(list, sizeof list, "gen,%s", file);
    CHECK(mkdir(folder, 0700) == 0);
    write_file(file, "one");
    for (int i = 0; i < 3; i++) {
        const char *input = i == 0 ? file : i == 1 ? list : folder;
        unlink(rows);
        CHECK_EQ_INT(run_on(input), 0);
        CHECK_EQ_INT(run_on(input), 0);
        CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 1);
        write_file(file, i % 2 ? "three" : "two"); /* its size or its time changes */
        CHECK_EQ_INT(run_on(input), 0);
        CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 1);
        CHECK_EQ_INT(run_on(input), 0);
        CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 2);
    }
    unlink(file);
    rmdir(folder);
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
    unsetenv("GPM_CHECK_CACHE");
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 0);
}

static void another_value_of_the_switch_is_refused(void)
{
    char *av[] = {"checked", "--mode", "cpu", "--pm-dir", dir, "--out", rows, "--reps", "1"};
    setenv("GPM_CHECK_CACHE", "yes", 1);
    CHECK_EQ_INT(wl_test_run(&WORKLOAD, av, ARGC(av), errf), 1);
    unsetenv("GPM_CHECK_CACHE");
    CHECK(wl_test_count_lines(errf, "GPM_CHECK_CACHE=yes: pass on or off") == 1);
}

/* This program copied to COPY with the reference's constant set to BIAS:
 * 0, or -1 if the mark is not found exactly once. */
static int copy_with_bias(const char *copy, uint64_t bias)
{
    static char buf[64 << 20];
    char mark[sizeof reference.mark];
    size_t n, at = 0, found = 0;
    FILE *in = fopen("/proc/self/exe", "rb"), *out;
    /* The needle from the constant itself: a string literal of it would be
     * a second copy in the file. */
    for (size_t i = 0; i < sizeof mark; i++)
        mark[i] = reference.mark[i];
    if (!in)
        return -1;
    n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    for (size_t i = 0; i + sizeof mark + 8 <= n; i++)
        if (memcmp(buf + i, mark, sizeof mark) == 0)
            at = i, found++;
    if (found != 1 || n == sizeof buf)
        return -1;
    memcpy(buf + at + sizeof mark, &bias, sizeof bias);
    if (!(out = fopen(copy, "wb")) || fwrite(buf, 1, n, out) != n || fclose(out) != 0)
        return -1;
    return chmod(copy, 0700);
}

/* The program at EXE run as the workload (see main), stderr in errf. */
static int run_program(const char *exe, const char *seed)
{
    char *av[] = {(char *)exe, "--mode", "cpu", "--pm-dir", dir, "--out", rows, "--reps", "1",
                  "--seed", (char *)seed, NULL};
    int st;
    pid_t pid;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen(errf, "w", stderr))
            _exit(99);
        execv(exe, av);
        _exit(98);
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* What a rebuild after an edit to the reference does: the same output
 * bytes, the same revision, workload, parameters and seed, but other code.
 * Its check runs (and fails: the changed reference expects other bytes);
 * the unchanged program still meets its own verdict. */
static void a_changed_reference_never_meets_a_cached_verdict(void)
{
    char copy[4300];
    CHECK(copydir[0] != '\0');
    snprintf(copy, sizeof copy, "%s/checked", copydir);
    unlink(rows);
    CHECK_EQ_INT(run_program("/proc/self/exe", "17"), 0);
    CHECK_EQ_INT(run_program("/proc/self/exe", "17"), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 1);
    CHECK_EQ_INT(copy_with_bias(copy, 0), 0); /* the same bytes: the same code */
    CHECK_EQ_INT(run_program(copy, "17"), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 2);
    CHECK_EQ_INT(copy_with_bias(copy, 1), 0);
    CHECK_EQ_INT(run_program(copy, "17"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK(wl_test_count_lines(errf, "word 0 is wrong") == 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 2);
    CHECK_EQ_INT(run_program("/proc/self/exe", "17"), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "check=cached:"), 3);
}

int main(int argc, char **argv)
{
    char data[4200];
    /* With arguments this program is the workload: the way a copy of it
     * runs (a_changed_reference_never_meets_a_cached_verdict). */
    if (argc > 1)
        return wl_main(&WORKLOAD, argc, argv);
    wl_test_scratch("check-cache-test", dir, rows, errf);
    snprintf(data, sizeof data, "%s/data", dir);
    setenv("GPM_DATA_DIR", data, 1);
    unsetenv("GPM_CHECK_CACHE"); /* on by default, whatever the tree */
    /* The programs first: they run in forked children, which OpenMP
     * threads started in this process would deadlock. */
    RUN(a_second_run_of_the_same_bytes_is_not_checked_again);
    RUN(a_rewritten_input_never_meets_a_cached_verdict);
    RUN(wrong_bytes_are_checked_and_fail);
    RUN(the_cache_can_be_turned_off);
    RUN(another_value_of_the_switch_is_refused);
    {
        const char *t = getenv("TMPDIR");
        snprintf(copydir, sizeof copydir, "%s/check-cache-copy.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(copydir))
            copydir[0] = '\0';
        RUN(a_changed_reference_never_meets_a_cached_verdict);
        if (copydir[0])
            wl_test_scratch_remove(copydir);
    }
    RUN(the_digest_covers_every_byte_and_its_place);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
