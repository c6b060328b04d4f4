/* Result rows: the median, the spread and each repetition, the header
 * written once, values that read back by column name, no stray tabs, and
 * files of the schemas before rsd_pct and before rep_s refused. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/gpm.h"
#include "gpm/results.h"

static void median_of_odd_even_and_unsorted(void)
{
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7};
    CHECK(gpm_median(odd, 3) == 3);
    CHECK(gpm_median(even, 4) == 2.5);
    CHECK(gpm_median(one, 1) == 7);
    CHECK(gpm_median(one, 0) == 0);
    CHECK(odd[0] == 5 && odd[1] == 1); /* the input is left as it was */
}

static void times_give_reps_median_min_max(void)
{
    double t[] = {0.4, 0.1, 0.3, 0.2, 0.5};
    gpm_result r;
    memset(&r, 0, sizeof r);
    gpm_result_set_times(&r, t, 5);
    CHECK(r.reps == 5);
    CHECK(r.median_s == 0.3);
    CHECK(r.min_s == 0.1);
    CHECK(r.max_s == 0.5);
    gpm_result_set_times(&r, t, 0);
    CHECK(r.reps == 0 && r.median_s == 0 && r.min_s == 0 && r.max_s == 0);
}

static void a_point_fills_the_row(void)
{
    double t[] = {0.2, 0.4, 0.3};
    gpm_result r;
    gpm_result_point(&r, "w", "op", "gpm", "tiny", 4096, 32, t, 3, 8192, 0);
    CHECK(!strcmp(r.workload, "w") && !strcmp(r.op, "op") && !strcmp(r.mode, "gpm"));
    CHECK(!strcmp(r.scale, "tiny") && r.size_bytes == 4096 && r.threads == 32);
    CHECK(r.reps == 3 && r.median_s == 0.3 && r.bytes_persisted == 8192);
    CHECK(!strcmp(r.verified, "fail") && !strcmp(r.params, ""));
}

/* mean 0.3, squared deviations 0.1 over n - 1 = 4: SD 0.158114, 52.70%. */
static void times_give_the_relative_standard_deviation(void)
{
    double t[] = {0.4, 0.1, 0.3, 0.2, 0.5}, same[] = {2, 2, 2};
    gpm_result r;
    memset(&r, 0, sizeof r);
    gpm_result_set_times(&r, t, 5);
    CHECKF(fabs(r.rsd_pct - 52.7046) < 1e-3, "rsd_pct %g", r.rsd_pct);
    gpm_result_set_times(&r, same, 3);
    CHECK(r.rsd_pct == 0);
    gpm_result_set_times(&r, t, 1); /* one repetition: no spread to know */
    CHECK(isnan(r.rsd_pct));
    gpm_result_set_times(&r, t, 0);
    CHECK(isnan(r.rsd_pct));
}

/* Each repetition kept in the order run, up to GPM_RESULT_MAX_REP_S;
 * beyond, none (the row keeps its median, min, max and spread). */
static void times_are_kept_up_to_the_bound(void)
{
    static double many[GPM_RESULT_MAX_REP_S + 1];
    double t[] = {0.4, 0.1, 0.3, 0.2, 0.5};
    gpm_result r;
    memset(&r, 0, sizeof r);
    gpm_result_set_times(&r, t, 5);
    CHECK_EQ_INT(r.n_rep_s, 5);
    CHECK(memcmp(r.rep_s, t, sizeof t) == 0);
    for (int i = 0; i <= GPM_RESULT_MAX_REP_S; i++)
        many[i] = 1.0 + i;
    gpm_result_set_times(&r, many, GPM_RESULT_MAX_REP_S);
    CHECK_EQ_INT(r.n_rep_s, GPM_RESULT_MAX_REP_S);
    CHECK(r.rep_s[GPM_RESULT_MAX_REP_S - 1] == GPM_RESULT_MAX_REP_S);
    gpm_result_set_times(&r, many, GPM_RESULT_MAX_REP_S + 1);
    CHECK_EQ_INT(r.n_rep_s, 0);
    CHECK(r.reps == GPM_RESULT_MAX_REP_S + 1 && r.median_s == 51 && r.max_s == 101);
    gpm_result_set_times(&r, t, 0);
    CHECK_EQ_INT(r.n_rep_s, 0);
}

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

/* Splits LINE (no newline) at tabs into at most MAX fields, in place. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static const char *field(char **names, char **values, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return values[i];
    return NULL;
}

static void results_path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", gpm_pm_dir(), name);
}

static gpm_result sample(void)
{
    gpm_result r = {0};
    r.workload = "ps";
    r.op = "sum\tall";         /* a tab in a value must not shift columns */
    r.mode = "cap-mm";
    r.scale = "tiny";
    r.size_bytes = (size_t)1 << 30;
    r.threads = 8;
    r.reps = 5;
    r.median_s = 0.25;
    r.min_s = 0.125;
    r.max_s = 0.5;
    r.rsd_pct = 2.5;
    r.bytes_persisted = 2e9;
    r.verified = "ok";
    r.params = "chunk=64M,\nx=1";
    return r;
}

static void header_once_and_values_round_trip(void)
{
    char path[4096], line[3][8192], *names[256], *vals[256];
    gpm_platform p;
    gpm_result r = sample();
    FILE *f;
    int nh, nv;
    memset(&p, 0, sizeof p);
    results_path(path, sizeof path, "results-rt.tsv");
    unlink(path);
    for (int i = 0; i < 3; i++) {
        r.threads = i + 1;
        CHECKF(gpm_result_append(path, &p, &r) == 0, "%s", gpm_last_error());
    }
    f = fopen(path, "r");
    CHECK(f != NULL);
    CHECK(fgets(line[0], sizeof line[0], f) != NULL);
    int rows = 0;
    while (rows < 3 && fgets(line[1 + (rows > 0)], sizeof line[1], f))
        rows++;
    char extra[16];
    CHECK(fgets(extra, sizeof extra, f) == NULL); /* header once, three rows */
    fclose(f);
    CHECK_EQ_INT(rows, 3);
    CHECK(strncmp(line[1], "workload", 8) != 0);

    line[0][strcspn(line[0], "\n")] = '\0';
    line[2][strcspn(line[2], "\n")] = '\0';
    CHECKF(count_char(line[0], '\t') == count_char(line[2], '\t'), "header has %d tabs, row %d",
           count_char(line[0], '\t'), count_char(line[2], '\t'));
    nh = split(line[0], names, 256);
    nv = split(line[2], vals, 256);
    CHECK_EQ_INT(nh, nv);
    CHECK(strcmp(field(names, vals, nh, "workload"), "ps") == 0);
    CHECK(strcmp(field(names, vals, nh, "op"), "sum all") == 0);
    CHECK(strcmp(field(names, vals, nh, "mode"), "cap-mm") == 0);
    CHECK(strcmp(field(names, vals, nh, "scale"), "tiny") == 0);
    CHECK(strcmp(field(names, vals, nh, "size_bytes"), "1073741824") == 0);
    CHECK(strcmp(field(names, vals, nh, "threads"), "3") == 0);
    CHECK(strcmp(field(names, vals, nh, "reps"), "5") == 0);
    CHECK(atof(field(names, vals, nh, "median_s")) == 0.25);
    CHECK(atof(field(names, vals, nh, "min_s")) == 0.125);
    CHECK(atof(field(names, vals, nh, "max_s")) == 0.5);
    CHECK(strcmp(field(names, vals, nh, "bytes_persisted"), "2000000000") == 0);
    CHECK(fabs(atof(field(names, vals, nh, "throughput_gbps")) - 8.0) < 1e-9);
    CHECK(strcmp(field(names, vals, nh, "verified"), "ok") == 0);
    CHECK(strcmp(field(names, vals, nh, "params"), "chunk=64M, x=1") == 0);
    CHECK(strcmp(field(names, vals, nh, "rsd_pct"), "2.5") == 0);
    CHECK(strcmp(field(names, vals, nh, "rep_s"), "") == 0); /* no times set */
    /* The last columns are rsd_pct, then rep_s, after params: the schema
     * only ever appends. */
    CHECK(strcmp(names[nh - 3], "params") == 0);
    CHECK(strcmp(names[nh - 2], "rsd_pct") == 0);
    CHECK(strcmp(names[nh - 1], "rep_s") == 0);
}

/* Field K from the end of ROW (0: the last) as text, in ROW's own buffer,
 * the newline cut. */
static const char *field_from_end(char *row, int k)
{
    char *tab;
    row[strcspn(row, "\n")] = '\0';
    for (; (tab = strrchr(row, '\t')) != NULL; k--) {
        if (k == 0)
            return tab + 1;
        *tab = '\0';
    }
    return row;
}

/* The TSV text of row A, then row B, on a zeroed platform (free it);
 * NULL where no memory stream opens. */
static char *two_rows(const gpm_result *a, const gpm_result *b)
{
    gpm_platform p;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return NULL;
    memset(&p, 0, sizeof p);
    gpm_result_tsv_row(m, &p, a);
    gpm_result_tsv_row(m, &p, b);
    fclose(m);
    return text;
}

/* The times of a row's repetitions in rep_s, comma-separated in the order
 * run, as precise as median_s; an empty field where the row keeps none. */
static void repetitions_are_written_as_rep_s(void)
{
    double t[] = {0.4, 0.1, 0.3, 0.2, 1.23456789e-05}, many[GPM_RESULT_MAX_REP_S + 1];
    gpm_result r = sample(), over = sample();
    char *text;
    for (int i = 0; i <= GPM_RESULT_MAX_REP_S; i++)
        many[i] = 2.0;
    gpm_result_set_times(&r, t, 5);
    gpm_result_set_times(&over, many, GPM_RESULT_MAX_REP_S + 1);
    text = two_rows(&r, &over);
    CHECK(text != NULL);
    char *second = strchr(text, '\n') + 1;
    CHECK(strcmp(field_from_end(second, 0), "") == 0);
    CHECK(strcmp(field_from_end(second, 1), "0") == 0); /* rsd_pct still there */
    CHECKF(strcmp(field_from_end(text, 0), "0.4,0.1,0.3,0.2,1.23456789e-05") == 0, "rep_s %s",
           text);
    free(text);
}

/* A row that cannot know its spread says nan, never 0 (which reads as no
 * spread at all). */
static void unknown_spread_is_written_as_nan(void)
{
    gpm_result one = sample(), unknown = sample();
    char *text;
    one.reps = 1;
    one.rsd_pct = 0;
    unknown.reps = 5;
    unknown.rsd_pct = NAN;
    text = two_rows(&one, &unknown);
    CHECK(text != NULL);
    char *second = strchr(text, '\n') + 1;
    CHECK(strcmp(field_from_end(second, 1), "nan") == 0);
    CHECK(strcmp(field_from_end(text, 1), "nan") == 0);
    free(text);
}

/* A file of an older schema, whose header is ours without its last
 * columns CUT, is refused with a message naming WHY and left as it is: its
 * rows would end a column or two short of ours. */
static void older_file_is_refused_and_untouched(const char *cut, const char *why)
{
    char path[4096], *hdr = NULL, *old;
    gpm_platform p;
    gpm_result r = sample();
    size_t hlen = 0, len, olen;
    unsigned char *back;
    FILE *h = open_memstream(&hdr, &hlen);
    memset(&p, 0, sizeof p);
    CHECK(h != NULL);
    gpm_result_tsv_header(h);
    fclose(h);
    /* The old header: ours without its last column, then one row. */
    olen = strlen(hdr) - strlen(cut);
    old = malloc(olen + 64);
    CHECK(old != NULL);
    memcpy(old, hdr, olen);
    strcpy(old + olen, "\nold\trow\n");
    olen = strlen(old);
    results_path(path, sizeof path, "results-before-rsd.tsv");
    CHECK(check_write_file(path, old) == 0);
    CHECK_EQ_INT(gpm_result_check_out(path), -1);
    CHECK_MSG(gpm_last_error(), why);
    CHECK_EQ_INT(gpm_result_append(path, &p, &r), -1);
    CHECK_MSG(gpm_last_error(), "move this one aside");
    back = check_read_file(path, &len);
    CHECK(back && len == olen && memcmp(back, old, olen) == 0);
    free(back);
    free(old);
    free(hdr);
    unlink(path);
}

static void file_before_rsd_pct_is_refused_and_untouched(void)
{
    older_file_is_refused_and_untouched(
        "\trsd_pct\trep_s\n", "was written before the rsd_pct column (its header ends at params)");
}

static void file_before_rep_s_is_refused_and_untouched(void)
{
    older_file_is_refused_and_untouched(
        "\trep_s\n", "was written before the rep_s column (its header ends at rsd_pct)");
}

static void empty_existing_file_gets_a_header(void)
{
    char path[4096], buf[8192] = "";
    gpm_platform p;
    gpm_result r = sample();
    FILE *f;
    int fd;
    memset(&p, 0, sizeof p);
    results_path(path, sizeof path, "results-empty.tsv");
    fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    CHECK(fd >= 0);
    close(fd);
    CHECK(gpm_result_append(path, &p, &r) == 0);
    f = fopen(path, "r");
    CHECK(f != NULL);
    CHECK(fgets(buf, sizeof buf, f) != NULL);
    fclose(f);
    CHECK(strstr(buf, "\tworkload\top\t") != NULL);
}

static void missing_values_leave_empty_fields(void)
{
    gpm_result r = {0};
    gpm_platform p;
    char *text = NULL, *hdr = NULL;
    size_t len = 0, hlen = 0;
    FILE *m = open_memstream(&text, &len), *h = open_memstream(&hdr, &hlen);
    memset(&p, 0, sizeof p);
    CHECK(m && h);
    gpm_result_tsv_row(m, &p, &r);
    gpm_result_tsv_header(h);
    fclose(m);
    fclose(h);
    CHECK_EQ_INT(count_char(text, '\t'), count_char(hdr, '\t'));
    CHECK_EQ_INT(count_char(text, '\n'), 1);
    CHECK(strstr(text, "(null)") == NULL);
    free(text);
    free(hdr);
}

static void unwritable_path_is_named(void)
{
    gpm_platform p;
    gpm_result r = sample();
    memset(&p, 0, sizeof p);
    CHECK(gpm_result_append("/nonexistent-gpm-dir/r.tsv", &p, &r) == -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent-gpm-dir/r.tsv");
}

/* Checked before a run does any work, so a bad --out never costs a
 * measurement; a file of another kind is refused and left untouched. */
static void out_file_checked_before_work(void)
{
    char path[4096], good[4096];
    gpm_platform p;
    gpm_result r = sample();
    size_t len;
    unsigned char *back;
    memset(&p, 0, sizeof p);
    CHECK_EQ_INT(gpm_result_check_out("/nonexistent-gpm-dir/x.tsv"), -1);
    CHECK_MSG(gpm_last_error(), "directory /nonexistent-gpm-dir does not exist");
    results_path(path, sizeof path, "results-foreign.tsv");
    CHECK(check_write_file(path, "name\tvalue\nalpha\t1\n") == 0);
    CHECK_EQ_INT(gpm_result_check_out(path), -1);
    CHECK_MSG(gpm_last_error(), "is not a result file of this schema");
    CHECK_EQ_INT(gpm_result_append(path, &p, &r), -1);
    back = check_read_file(path, &len);
    CHECK(back && len == 19 && memcmp(back, "name\tvalue\nalpha\t1\n", 19) == 0);
    free(back);
    unlink(path);
    results_path(good, sizeof good, "results-good.tsv");
    unlink(good);
    CHECK_EQ_INT(gpm_result_check_out(good), 0); /* new: fine, and not created */
    CHECK(access(good, F_OK) != 0);
    CHECK_EQ_INT(gpm_result_append(good, &p, &r), 0);
    CHECK_EQ_INT(gpm_result_check_out(good), 0);
    CHECK_EQ_INT(gpm_result_check_out(gpm_pm_dir()), -1);
    CHECK_MSG(gpm_last_error(), "is not a regular file");
    unlink(good);
}

int main(void)
{
    RUN(median_of_odd_even_and_unsorted);
    RUN(times_give_reps_median_min_max);
    RUN(a_point_fills_the_row);
    RUN(times_give_the_relative_standard_deviation);
    RUN(times_are_kept_up_to_the_bound);
    RUN(header_once_and_values_round_trip);
    RUN(repetitions_are_written_as_rep_s);
    RUN(unknown_spread_is_written_as_nan);
    RUN(file_before_rsd_pct_is_refused_and_untouched);
    RUN(file_before_rep_s_is_refused_and_untouched);
    RUN(empty_existing_file_gets_a_header);
    RUN(missing_values_leave_empty_fields);
    RUN(unwritable_path_is_named);
    RUN(out_file_checked_before_work);
    CHECK_EXIT();
}
