/* Clock, data directory and output checks shared by every workload. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpm/results.h"
#include "harness.h"

double wl_now(void) { return gpm_now_s(); }

void wl_note(struct wl_ctx *c, const char *fmt, ...)
{
    size_t n = c->h->note ? strlen(c->h->note) : 0;
    int add;
    va_list ap;
    va_start(ap, fmt);
    add = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (add < 0)
        return;
    /* Grown as needed: a note is never cut short. */
    if (n + (size_t)add + 2 > c->h->note_cap) {
        size_t cap = 2 * (n + (size_t)add + 2);
        char *p = realloc(c->h->note, cap);
        if (!p) {
            fprintf(stderr, "%s: out of memory for the row's notes\n", c->wl->name);
            abort();
        }
        if (!c->h->note)
            p[0] = '\0';
        c->h->note = p;
        c->h->note_cap = cap;
    }
    if (n)
        c->h->note[n++] = ',';
    va_start(ap, fmt);
    vsnprintf(c->h->note + n, c->h->note_cap - n, fmt, ap);
    va_end(ap);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void wl_note_batch_latency(struct wl_ctx *c, double *lat, uint64_t n)
{
    if (!n)
        return;
    qsort(lat, n, sizeof *lat, by_double);
    wl_note(c, "batch_p50_us=%.1f,batch_p99_us=%.1f", lat[n / 2] * 1e6,
            lat[(uint64_t)((double)(n - 1) * 0.99)] * 1e6);
}

/* mkdir -p of PATH with mode 0700 for what it creates. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

const char *wl_data_dir(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("GPM_DATA_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    struct stat st;
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else if (xdg && *xdg)
        snprintf(dir, sizeof dir, "%s/gpmbench", xdg);
    else
        snprintf(dir, sizeof dir, "%s/.cache/gpmbench", home && *home ? home : "/tmp");
    if (make_dirs(dir) != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        gpm_set_error("%s: cannot make the dataset directory (%s): set GPM_DATA_DIR to a "
                      "writable directory", dir, strerror(errno));
        return NULL;
    }
    return dir;
}

void wl_note_wrong(struct wl_ctx *c, const struct wl_wrong *w)
{
    if (w->units)
        wl_note(c, "wrong_units=%llu/%llu,units=%s", (unsigned long long)w->bad,
                (unsigned long long)w->total, w->units);
    if (w->units && w->err)
        wl_note(c, "wrong_max_err=%.3g,wrong_err=%s", w->max_err, w->err);
    if (w->marks)
        wl_note(c, "wrong_marks=%llu/%llu", (unsigned long long)w->marks_bad,
                (unsigned long long)w->marks);
}

int wl_tx_verified(struct wl_ctx *c, int rc, const struct wl_wrong *w, uint64_t committed,
                   uint64_t all, const char *units)
{
    if (rc == 0 && w->marks_bad) {
        gpm_set_error("%s: the log counts %llu committed %s of %llu", c->wl->name,
                      (unsigned long long)committed, units, (unsigned long long)all);
        rc = 1;
    }
    if (rc == 1)
        wl_note_wrong(c, w);
    return rc;
}

int wl_check_u32(const char *what, const uint32_t *got, const uint32_t *want, size_t n,
                 struct wl_wrong *w)
{
    size_t first = n, bad = 0;
#pragma omp parallel for reduction(min : first) reduction(+ : bad) schedule(static)
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            bad++;
            if (i < first)
                first = i;
        }
    if (w)
        w->bad += bad, w->total += n;
    if (!bad)
        return 0;
    gpm_set_error("%s: element %zu is %u, expected %u", what, first, got[first], want[first]);
    return 1;
}

size_t wl_first_difference(const void *a, const void *b, size_t n, size_t size)
{
    const char *x = a, *y = b;
    size_t first = n;
#pragma omp parallel for reduction(min : first) schedule(static)
    for (size_t i = 0; i < n; i++)
        if (i < first && memcmp(x + i * size, y + i * size, size) != 0)
            first = i;
    return first;
}

int wl_check_close_f32(const char *what, const float *got, const double *want, size_t n,
                       double abs_tol, double rel_tol, struct wl_wrong *w)
{
    size_t first = n, bad = 0;
    double max_err = 0;
#pragma omp parallel for reduction(min : first) reduction(+ : bad) reduction(max : max_err) \
    schedule(static)
    for (size_t i = 0; i < n; i++) {
        double g = got[i], e = fabs(g - want[i]);
        if (rel_tol != 0 && want[i] != 0)
            e /= fabs(want[i]);
        if (e != e) /* a NaN: no error is larger */
            e = INFINITY;
        if (e > max_err)
            max_err = e;
        if (!wl_close(g, want[i], abs_tol, rel_tol)) {
            bad++;
            if (i < first)
                first = i;
        }
    }
    if (w) {
        w->bad += bad, w->total += n;
        w->err = rel_tol != 0 ? "rel" : "abs";
        if (max_err > w->max_err)
            w->max_err = max_err;
    }
    if (!bad)
        return 0;
    gpm_set_error("%s: element %zu is %.9g, expected %.9g (tolerance %.3g)", what, first,
                  (double)got[first], want[first], abs_tol + rel_tol * fabs(want[first]));
    return 1;
}
