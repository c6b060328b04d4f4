/* HS's inputs on the CPU: the reader of Rodinia's text files (good,
 * truncated, corrupt), the generator (deterministic, Rodinia-like), the
 * binary cache (hit, rebuilt when the source changes, never trusted when
 * corrupt), --input's file pairs, and the flags layout() refuses. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../hs.h"
#include "gpm/check.h"
#include "tests/wl_test.h"

static char dir[4096], data[4200], errf[4200];

/* Writes TEXT to DIR/NAME; returns its path (in a buffer the next call
 * reuses). */
static const char *put(const char *name, const char *text)
{
    static char path[8400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return check_write_file(path, text) == 0 ? path : NULL;
}

/* "v0\nv1\n..." for N values 300 + i / 4 (exact in float). */
static char *grid_text(int n, double base)
{
    char *s = malloc((size_t)n * 16 + 1), *p = s;
    for (int i = 0; s && i < n; i++)
        p += sprintf(p, "%.6f\n", base + i / 4.0);
    return s;
}

static void reader_reads_rodinia_format(void)
{
    float v[12];
    char *t = grid_text(12, 323.5);
    char path[8400];
    CHECK(t);
    snprintf(path, sizeof path, "%s", put("temp_good", t));
    free(t);
    CHECK_EQ_INT(hs_read_text(path, 3, 4, v), 0);
    for (int i = 0; i < 12; i++)
        CHECKF(v[i] == (float)(323.5 + i / 4.0), "value %d is %.9g", i, v[i]);
    /* CR LF line ends, spaces, no newline after the last value, blank
     * lines after the grid: all fine. */
    snprintf(path, sizeof path, "%s", put("temp_crlf", " 1.5\r\n2\r\n  3.25 \r\n4e-3\n\n"));
    CHECK_EQ_INT(hs_read_text(path, 2, 2, v), 0);
    CHECK(v[0] == 1.5f && v[1] == 2.0f && v[2] == 3.25f && v[3] == 4e-3f);
    snprintf(path, sizeof path, "%s", put("temp_nonl", "1\n2\n3\n4"));
    CHECK_EQ_INT(hs_read_text(path, 4, 1, v), 0);
    CHECK(v[3] == 4.0f);
}

static void truncated_file_names_file_and_line(void)
{
    float v[12];
    char *t = grid_text(11, 300), path[8400];
    CHECK(t);
    snprintf(path, sizeof path, "%s", put("temp_short", t));
    free(t);
    CHECK_EQ_INT(hs_read_text(path, 3, 4, v), -1);
    CHECK_MSG(gpm_last_error(), path);
    CHECK_MSG(gpm_last_error(), ":12: truncated: the file ends after 11 of 3 x 4 values");
    snprintf(path, sizeof path, "%s", put("temp_empty", ""));
    CHECK_EQ_INT(hs_read_text(path, 3, 4, v), -1);
    CHECK_MSG(gpm_last_error(), ":1: truncated: the file ends after 0 of 3 x 4");
}

static void corrupt_values_name_file_and_line(void)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"1\n2\n3\n4\n32x.5\n6\n", ":5: '32x.5' is not a number"},
        {"1\n2\n\n4\n5\n6\n", ":3: '' is not a number"},
        {"1\n2\n3\nabc\n5\n6\n", ":4: 'abc' is not a number"},
        {"1 2\n3\n4\n5\n6\n7\n", ":1: '1 2' is not a number"},
        {"1\nnan\n3\n4\n5\n6\n", ":2: 'nan' is not a finite number"},
        {"1\n2\n3\n4\n5\n1e999\n", ":6: '1e999' is not a finite number"},
        {"1\n2\n3\n4\n5\n6\n7\n", ":7: more than 2 x 3 values"},
    };
    float v[6];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[8400];
        snprintf(path, sizeof path, "%s", put("temp_bad", bad[i].text));
        CHECK_EQ_INT(hs_read_text(path, 2, 3, v), -1);
        CHECK_MSG(gpm_last_error(), path);
        CHECK_MSG(gpm_last_error(), bad[i].msg);
    }
    CHECK_EQ_INT(hs_read_text("/nonexistent/temp_1", 1, 1, v), -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent/temp_1: cannot open");
}

static void generator_is_deterministic_and_rodinia_like(void)
{
    enum { R = 512, C = 384 };
    float *t = malloc(R * C * 4), *p = malloc(R * C * 4), *t2 = malloc(R * C * 4),
          *p2 = malloc(R * C * 4), *t3 = malloc(R * C * 4), *p3 = malloc(R * C * 4);
    int idle = 0, hot = 0;
    CHECK(t && p && t2 && p2 && t3 && p3);
    hs_generate(7, R, C, t, p);
    hs_generate(7, R, C, t2, p2);
    hs_generate(8, R, C, t3, p3);
    CHECK(memcmp(t, t2, R * C * 4) == 0 && memcmp(p, p2, R * C * 4) == 0);
    CHECK(memcmp(t, t3, R * C * 4) != 0 && memcmp(p, p3, R * C * 4) != 0);
    for (int i = 0; i < R * C; i++) {
        CHECKF(t[i] >= 322.97f && t[i] <= 344.03f, "temperature %d is %.9g", i, t[i]);
        CHECKF(p[i] >= 0.002f && p[i] <= 0.08f, "power %d is %.9g", i, p[i]);
        idle += p[i] < 0.0022f;
        hot += p[i] >= 0.04f;
        /* smooth: a unit is 64 x 48 cells, the noise 0.05 */
        if (i % C)
            CHECKF(fabsf(t[i] - t[i - 1]) < 0.6f, "cells %d and %d: %.6g and %.6g", i - 1, i,
                   t[i - 1], t[i]);
    }
    CHECKF(idle > R * C / 4 && idle < R * C * 9 / 10 && hot > 0, "idle %d hot %d", idle, hot);
    /* power is uniform within a unit; the same chip at another resolution */
    CHECK(p[0] == p[63 * C + 47] && p[64 * C] == hs_gen_power(7, 2 * R, 2 * C, 128, 0));
    CHECK(hs_gen_power(7, R, C, 300, 200) == hs_gen_power(7, 2 * R, 2 * C, 601, 401));
    free(t);
    free(p);
    free(t2);
    free(p2);
    free(t3);
    free(p3);
}

static void flip_byte(const char *path, long at)
{
    int fd = open(path, O_RDWR);
    unsigned char b;
    if (fd < 0)
        return;
    if (pread(fd, &b, 1, at) == 1) {
        b ^= 0x10;
        if (pwrite(fd, &b, 1, at) != 1)
            b = 0;
    }
    close(fd);
}

static void cache_hit_rebuilt_on_change_and_when_corrupt(void)
{
    float v[12];
    uint64_t sum;
    const char *how;
    char *t = grid_text(12, 330), src[8400], cache[8400];
    struct stat st;
    struct timespec times[2];
    CHECK(t);
    snprintf(src, sizeof src, "%s", put("temp_cached", t));
    free(t);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "parsed") == 0 && v[5] == 331.25f && sum == hs_sum(v, 12));
    CHECK_EQ_INT(hs_cache_path(src, 3, 4, cache, sizeof cache), 0);
    CHECKF(strncmp(cache, data, strlen(data)) == 0 && stat(cache, &st) == 0 &&
           st.st_size == 128 + 48, "cache %s", cache);
    memset(v, 0, sizeof v);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "cached") == 0 && v[5] == 331.25f && sum == hs_sum(v, 12));
    /* another grid size of the same file is another cache */
    CHECK_EQ_INT(hs_cache_load(src, 4, 3, v, &sum, &how), 0);
    CHECK(strcmp(how, "parsed") == 0 && v[5] == 331.25f);

    /* the source changes (same size; its time moves on) */
    t = grid_text(12, 340);
    CHECK(t);
    put("temp_cached", t);
    free(t);
    CHECK(stat(src, &st) == 0);
    times[0] = st.st_atim;
    times[1] = st.st_mtim;
    times[1].tv_sec += 10;
    CHECK(utimensat(AT_FDCWD, src, times, 0) == 0);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "cache-rebuilt") == 0 && v[5] == 341.25f);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "cached") == 0 && v[5] == 341.25f);

    /* corrupt data, a corrupt header, a short file: never trusted */
    flip_byte(cache, 128 + 5 * 4 + 2);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "cache-rebuilt") == 0 && v[5] == 341.25f && sum == hs_sum(v, 12));
    flip_byte(cache, 9);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "cache-rebuilt") == 0 && v[5] == 341.25f);
    CHECK(truncate(cache, 128 + 40) == 0);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "cache-rebuilt") == 0 && v[11] == 342.75f);
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), 0);
    CHECK(strcmp(how, "cached") == 0);

    /* a corrupt source is reported, whatever the cache held */
    put("temp_cached", "1\n2\nx\n");
    CHECK_EQ_INT(hs_cache_load(src, 3, 4, v, &sum, &how), -1);
    CHECK_MSG(gpm_last_error(), ":3: 'x' is not a number");
}

static void input_names_its_power_file(void)
{
    char tp[4096], pp[4096], want[8400];
    put("hotspot_temp_64", "1\n");
    put("hotspot_power_64", "2\n");
    put("other", "3\n");
    snprintf(want, sizeof want, "%s/hotspot_temp_64", dir);
    CHECK_EQ_INT(hs_input_files(want, tp, pp, sizeof tp), 0);
    CHECK(strcmp(tp, want) == 0);
    snprintf(want, sizeof want, "%s/hotspot_power_64", dir);
    CHECK(strcmp(pp, want) == 0);
    snprintf(want, sizeof want, "%s/other,%s/hotspot_temp_64", dir, dir);
    CHECK_EQ_INT(hs_input_files(want, tp, pp, sizeof tp), 0);
    CHECK(strstr(tp, "/other") && strstr(pp, "/hotspot_temp_64"));
    snprintf(want, sizeof want, "%s/other", dir);
    CHECK_EQ_INT(hs_input_files(want, tp, pp, sizeof tp), -1);
    CHECK_MSG(gpm_last_error(), "cannot tell the power file");
    snprintf(want, sizeof want, "%s/temp_missing", dir);
    CHECK_EQ_INT(hs_input_files(want, tp, pp, sizeof tp), -1);
    CHECK_MSG(gpm_last_error(), "temp_missing: cannot read");
    /* a bare name is looked up in the dataset cache */
    snprintf(want, sizeof want, "%s/hotspot_temp_9", data);
    CHECK(check_write_file(want, "") == 0);
    snprintf(want, sizeof want, "%s/hotspot_power_9", data);
    CHECK(check_write_file(want, "") == 0);
    CHECK_EQ_INT(hs_input_files("hotspot_temp_9", tp, pp, sizeof tp), 0);
    CHECK(strcmp(pp, want) == 0);
}

static void input_load_generates_or_reads(void)
{
    struct hs_input a, b;
    char *t = grid_text(6, 320), *p = grid_text(6, 0.25), spec[8400];
    CHECK(t && p);
    put("hs_temp_in", t);
    put("hs_power_in", p);
    free(t);
    free(p);
    CHECK_EQ_INT(hs_input_load("gen", 16, 8, 3, &a), 0);
    CHECK_EQ_INT(hs_input_load("gen", 16, 8, 3, &b), 0);
    CHECK(a.generated && strcmp(a.how, "generated") == 0 && a.fingerprint == b.fingerprint);
    CHECK(a.tmin >= 322.9 && a.tmax <= 344.1 && a.pmin >= 0.002 && a.pmax <= 0.08);
    hs_input_free(&b);
    CHECK_EQ_INT(hs_input_load("gen", 16, 8, 4, &b), 0);
    CHECK(a.fingerprint != b.fingerprint);
    hs_input_free(&a);
    hs_input_free(&b);
    snprintf(spec, sizeof spec, "%s/hs_temp_in", dir);
    CHECK_EQ_INT(hs_input_load(spec, 2, 3, 1, &a), 0);
    CHECK(!a.generated && strcmp(a.how, "parsed") == 0 && a.temp[5] == 321.25f &&
          a.power[1] == 0.5f && a.tmin == 320 && a.pmax == 1.5);
    CHECK_EQ_INT(hs_input_load(spec, 2, 3, 2, &b), 0);
    CHECK(strcmp(b.how, "cached") == 0 && a.fingerprint == b.fingerprint); /* not the seed */
    hs_input_free(&a);
    hs_input_free(&b);
    CHECK_EQ_INT(hs_input_load(spec, 3, 3, 1, &a), -1);
    CHECK_MSG(gpm_last_error(), "truncated: the file ends after 6 of 3 x 3 values");
}

/* layout() refuses before anything is made (no GPU needed). */
static void layout_refuses_impossible_flags(void)
{
    static const struct {
        const char *flag, *val, *msg;
    } bad[] = {
        {"--rows", "65536", "--rows/--cols: 65536 x 65536 cells exceed"},
        {"--pyramid-height", "16", "--pyramid-height"},
        {"--input", "/nonexistent/temp_512", "--input: /nonexistent/temp_512: cannot read"},
        {"--input", "/nonexistent/grid", "cannot tell the power file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[] = {"hs", "--mode", "gpm", "--cols", "65536", (char *)bad[i].flag,
                        (char *)bad[i].val};
        char msg[2048];
        CHECK_EQ_INT(wl_test_run(&WORKLOAD, argv, 7, errf), 2);
        wl_test_line(errf, 0, msg, sizeof msg);
        CHECK_MSG(msg, bad[i].msg);
    }
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/hs-input.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        printf("not ok - setup: cannot make %s\n", dir);
        return 1;
    }
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(errf, sizeof errf, "%s/stderr", dir);
    setenv("GPM_DATA_DIR", data, 1);
    RUN(reader_reads_rodinia_format);
    RUN(truncated_file_names_file_and_line);
    RUN(corrupt_values_name_file_and_line);
    RUN(generator_is_deterministic_and_rodinia_like);
    RUN(cache_hit_rebuilt_on_change_and_when_corrupt);
    RUN(input_names_its_power_file);
    RUN(input_load_generates_or_reads);
    RUN(layout_refuses_impossible_flags);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
