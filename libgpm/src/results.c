/* Result rows: one TSV schema for every benchmark (see results.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpm/gpm.h"
#include "gpm/results.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gpm_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double gpm_median(const double *v, int n)
{
    double *c, m;
    if (n <= 0)
        return 0.0;
    c = malloc((size_t)n * sizeof *c);
    if (!c)
        return v[0];
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
    free(c);
    return m;
}

/* Sample standard deviation over the mean, in %: the spread of N >= 2
 * repetitions on one scale for short and long runs alike; NAN otherwise. */
static double rsd_pct(const double *t, int n)
{
    double mean = 0, ss = 0;
    if (n < 2)
        return NAN;
    for (int i = 0; i < n; i++)
        mean += t[i];
    mean /= n;
    if (mean <= 0)
        return NAN;
    for (int i = 0; i < n; i++)
        ss += (t[i] - mean) * (t[i] - mean);
    return sqrt(ss / (n - 1)) / mean * 100.0;
}

void gpm_result_set_times(gpm_result *res, const double *t, int n)
{
    res->reps = n > 0 ? n : 0;
    res->median_s = gpm_median(t, n);
    res->min_s = res->max_s = n > 0 ? t[0] : 0.0;
    for (int i = 1; i < n; i++) {
        if (t[i] < res->min_s)
            res->min_s = t[i];
        if (t[i] > res->max_s)
            res->max_s = t[i];
    }
    res->rsd_pct = rsd_pct(t, n);
    /* Beyond the bound a row keeps only the summary above: rep_s empty. */
    res->n_rep_s = n > 0 && n <= GPM_RESULT_MAX_REP_S ? n : 0;
    if (res->n_rep_s)
        memcpy(res->rep_s, t, (size_t)n * sizeof *t);
}

void gpm_result_point(gpm_result *res, const char *workload, const char *op, const char *mode,
                      const char *scale, size_t size_bytes, int threads, const double *t, int n,
                      double bytes_persisted, int ok)
{
    memset(res, 0, sizeof *res);
    res->workload = workload;
    res->op = op;
    res->mode = mode;
    res->scale = scale;
    res->size_bytes = size_bytes;
    res->threads = threads;
    gpm_result_set_times(res, t, n);
    res->bytes_persisted = bytes_persisted;
    res->verified = ok ? "ok" : "fail";
    res->params = "";
}

void gpm_result_tsv_header(FILE *out)
{
    gpm_platform_tsv_header(out);
    fputs("\tworkload\top\tmode\tscale\tsize_bytes\tthreads\treps\tmedian_s\tmin_s\tmax_s"
          "\tbytes_persisted\tthroughput_gbps\tverified\tparams\trsd_pct\trep_s\n",
          out);
}

/* A text field: tabs and line breaks would shift every later column, so
 * they become spaces; a missing value is an empty field. */
static void put_field(FILE *out, const char *s)
{
    fputc('\t', out);
    for (; s && *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

void gpm_result_tsv_row(FILE *out, const gpm_platform *p, const gpm_result *res)
{
    double gbps = res->median_s > 0 ? res->bytes_persisted / res->median_s / 1e9 : 0.0;
    gpm_platform_tsv_values(p, out);
    put_field(out, res->workload);
    put_field(out, res->op);
    put_field(out, res->mode);
    put_field(out, res->scale);
    fprintf(out, "\t%zu\t%d\t%d\t%.9g\t%.9g\t%.9g\t%.0f\t%.6g", res->size_bytes, res->threads,
            res->reps, res->median_s, res->min_s, res->max_s, res->bytes_persisted, gbps);
    put_field(out, res->verified);
    put_field(out, res->params);
    /* A single repetition, or a row that counts rather than times, has no
     * spread: nan, never a 0 that would read as none. */
    if (res->reps >= 2 && isfinite(res->rsd_pct))
        fprintf(out, "\t%.3g", res->rsd_pct);
    else
        fputs("\tnan", out);
    /* Each repetition, as precise as median_s, min_s and max_s (of an odd
     * count, the median is one of them exactly), so that a comparison can
     * test the samples; empty where the row keeps none. */
    fputc('\t', out);
    for (int i = 0; i < res->n_rep_s && i < GPM_RESULT_MAX_REP_S; i++)
        fprintf(out, "%s%.9g", i ? "," : "", res->rep_s[i]);
    fputc('\n', out);
}

/* The schema's header line, as gpm_result_tsv_header writes it (malloc'd). */
static char *schema_header(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return NULL;
    gpm_result_tsv_header(mem);
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The schema's header ends in NEW_TAIL; older ones ended a column or two
 * short: before rep_s at rsd_pct, before rsd_pct at params. */
#define NEW_TAIL "\tparams\trsd_pct\trep_s\n"
static const struct older_schema {
    const char *tail, *before, *ends_at;
} older_schemas[] = {
    {"\tparams\trsd_pct\n", "rep_s", "rsd_pct"},
    {"\tparams\n", "rsd_pct", "params"},
};

/* The older schema whose header GOT (R bytes read from the file's start)
 * begins with: WANT's (N bytes) columns up to params, then that schema's
 * tail; NULL if none. */
static const struct older_schema *older_header(const char *got, size_t r, const char *want,
                                               size_t n)
{
    size_t head = n - (sizeof NEW_TAIL - 1);
    if (r < head || memcmp(got, want, head) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof older_schemas / sizeof *older_schemas; i++) {
        size_t len = strlen(older_schemas[i].tail);
        if (r >= head + len && memcmp(got + head, older_schemas[i].tail, len) == 0)
            return &older_schemas[i];
    }
    return NULL;
}

/* 0 if FD's file is empty or starts with the schema header, else -1 with
 * the message set. Rows are never appended to a file of another kind. */
static int check_header(int fd, const char *path, off_t size)
{
    char *want, *got;
    const struct older_schema *old;
    size_t n;
    ssize_t r;
    int rc = 0;
    if (size == 0)
        return 0;
    want = schema_header();
    n = want ? strlen(want) : 0;
    if (!want || !(got = malloc(n))) {
        free(want);
        return gpm_set_error("%s: out of memory", path);
    }
    r = pread(fd, got, n, 0);
    if (r > 0 && (old = older_header(got, (size_t)r, want, n)) != NULL)
        rc = gpm_set_error("%s: was written before the %s column (its header ends at %s): "
                           "pass a new file, or move this one aside (the reports read both)",
                           path, old->before, old->ends_at);
    else if (r != (ssize_t)n || memcmp(got, want, n) != 0)
        rc = gpm_set_error("%s: is not a result file of this schema (its first line is not "
                           "the result header): pass a new file, or one these programs wrote",
                           path);
    free(got);
    free(want);
    return rc;
}

int gpm_result_check_out(const char *path)
{
    struct stat st;
    int fd, rc;
    if (!path || !*path)
        return gpm_set_error("empty results file name: pass a file name");
    if (stat(path, &st) != 0) {
        char dir[4096];
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
                 slash ? path : ".");
        if (access(dir, W_OK) != 0)
            return gpm_set_error("%s: cannot create the results file: directory %s does not "
                                 "exist or is not writable; create it or pass another path",
                                 path, dir);
        return 0;
    }
    if (!S_ISREG(st.st_mode))
        return gpm_set_error("%s: is not a regular file: pass a results file name", path);
    fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return gpm_set_error("%s: cannot open the results file for appending (%s): check its "
                             "permissions", path, strerror(errno));
    rc = check_header(fd, path, st.st_size);
    close(fd);
    return rc;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* PATH opened to append and locked, or -1 with errno set; *CREATED: this
 * call made it. Runs appending to one file at once must not both write
 * the header nor interleave their rows. A file removed while we waited for
 * its lock (a first append that failed) is opened anew. */
static int open_locked(const char *path, int *created)
{
    for (int tries = 0; tries < 8; tries++) {
        struct stat st;
        int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        *created = fd >= 0;
        if (fd < 0 && errno == EEXIST)
            fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            continue; /* removed between the two opens */
        if (fd < 0)
            return -1;
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
            ;
        if (fstat(fd, &st) != 0 || st.st_nlink > 0)
            return fd;
        close(fd);
    }
    errno = EAGAIN;
    return -1;
}

/* After a failed append: the file as this call found it, so that a full
 * disk leaves neither an empty file nor half a row behind. */
static void undo_append(int fd, const char *path, int created, const struct stat *st)
{
    if (created)
        unlink(path);
    else if (S_ISREG(st->st_mode) && ftruncate(fd, st->st_size) != 0)
        gpm_set_error("%s: %s; cutting it back to %lld bytes failed too (%s)", path,
                      gpm_last_error(), (long long)st->st_size, strerror(errno));
}

int gpm_result_append(const char *path, const gpm_platform *p, const gpm_result *res)
{
    char *text = NULL;
    size_t len = 0;
    struct stat st;
    FILE *mem;
    int fd, rc = 0, created, have_st = 0;

    fd = open_locked(path, &created);
    if (fd < 0)
        return gpm_set_error("%s: cannot open results file (%s): check that its directory "
                             "exists and is writable", path, strerror(errno));
    mem = open_memstream(&text, &len);
    if (!mem || fstat(fd, &st) != 0) {
        rc = gpm_set_error("%s: cannot prepare a result row (%s)", path, strerror(errno));
    } else if ((have_st = 1, check_header(fd, path, st.st_size)) != 0) {
        rc = -1;
    } else {
        if (st.st_size == 0)
            gpm_result_tsv_header(mem);
        gpm_result_tsv_row(mem, p, res);
        if (fclose(mem) != 0)
            rc = gpm_set_error("%s: cannot format a result row", path);
        mem = NULL;
        if (rc == 0 && write_all(fd, text, len) != 0)
            rc = gpm_set_error("%s: cannot write a result row (%s): free space there, or "
                               "write the rows elsewhere; the file is left as it was", path,
                               strerror(errno));
    }
    if (mem)
        fclose(mem);
    free(text);
    if (rc != 0 && have_st)
        undo_append(fd, path, created, &st);
    else if (rc != 0 && created)
        unlink(path); /* made by this call, nothing written */
    if (close(fd) != 0 && rc == 0) {
        /* Some file systems (NFS) report a full disk only now. */
        rc = gpm_set_error("%s: cannot write a result row (%s): free space there, or write "
                           "the rows elsewhere", path, strerror(errno));
        if (created)
            unlink(path);
    }
    return rc;
}
