/* Result rows: one TSV schema for every benchmark (see results.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/gpm.h"
#include "gpm/results.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
}

void gpm_result_tsv_header(FILE *out)
{
    gpm_platform_tsv_header(out);
    fputs("\tworkload\top\tmode\tscale\tsize_bytes\tthreads\treps\tmedian_s\tmin_s\tmax_s"
          "\tbytes_persisted\tthroughput_gbps\tverified\tparams\n",
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
    fputc('\n', out);
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

int gpm_result_append(const char *path, const gpm_platform *p, const gpm_result *res)
{
    char *text = NULL;
    size_t len = 0;
    struct stat st;
    FILE *mem;
    int fd, rc = 0;

    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return gpm_set_error("%s: cannot open results file (%s): check that its directory "
                             "exists and is writable", path, strerror(errno));
    /* Runs appending to one file at once must not both write the header
     * nor interleave their rows. */
    while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
        ;
    mem = open_memstream(&text, &len);
    if (!mem || fstat(fd, &st) != 0) {
        rc = gpm_set_error("%s: cannot prepare a result row (%s)", path, strerror(errno));
    } else {
        if (st.st_size == 0)
            gpm_result_tsv_header(mem);
        gpm_result_tsv_row(mem, p, res);
        if (fclose(mem) != 0)
            rc = gpm_set_error("%s: cannot format a result row", path);
        mem = NULL;
        if (rc == 0 && write_all(fd, text, len) != 0)
            rc = gpm_set_error("%s: cannot write a result row (%s): check free space", path,
                               strerror(errno));
    }
    if (mem)
        fclose(mem);
    free(text);
    if (close(fd) != 0 && rc == 0)
        rc = gpm_set_error("%s: cannot write a result row (%s)", path, strerror(errno));
    return rc;
}
