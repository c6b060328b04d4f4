/* HS's inputs: the generated chip (hs_model.h), or Rodinia's temperature
 * and power files (text, one value per line, row-major), parsed once into
 * a binary cache in wl_data_dir() that is rebuilt when its source changes
 * and never trusted when it does not check out. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs.h"

void hs_generate(uint64_t seed, uint64_t rows, uint64_t cols, float *temp, float *power)
{
#pragma omp parallel for schedule(static)
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++) {
            temp[r * cols + c] = hs_gen_temp(seed, rows, cols, r, c);
            power[r * cols + c] = hs_gen_power(seed, rows, cols, r, c);
        }
}

/* FNV-1a over 32-bit words: any one changed word changes the sum. */
uint64_t hs_sum(const float *v, uint64_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, &v[i], sizeof w);
        h = (h ^ w) * 0x100000001b3ull;
    }
    return h;
}

/* ---- the text reader ---- */

/* LINE without its line end, shortened, for a message. */
static const char *shown(const char *line, char *buf, size_t len)
{
    size_t n = strcspn(line, "\r\n");
    if (n >= len)
        n = len - 4;
    snprintf(buf, len, "%.*s%s", (int)n, line, n < strcspn(line, "\r\n") ? "..." : "");
    return buf;
}

static int blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return *s == '\0';
}

int hs_read_text(const char *path, uint64_t rows, uint64_t cols, float *out)
{
    const uint64_t n = rows * cols;
    FILE *f = fopen(path, "r");
    char *line = NULL, buf[48];
    size_t cap = 0;
    uint64_t k = 0, lineno = 0;
    int rc = 0;
    if (!f)
        return gpm_set_error("%s: cannot open (%s): pass an existing file to --input",
                             path, strerror(errno));
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        char *end;
        float v;
        lineno++;
        if (k == n) {
            if (!blank(line))
                rc = gpm_set_error("%s:%llu: more than %llu x %llu values: pass the grid's "
                                   "size with --rows and --cols", path,
                                   (unsigned long long)lineno, (unsigned long long)rows,
                                   (unsigned long long)cols);
            continue;
        }
        errno = 0;
        v = strtof(line, &end);
        if (end == line || !blank(end))
            rc = gpm_set_error("%s:%llu: '%s' is not a number (one value per line expected): "
                               "the file is corrupt, fetch it again", path,
                               (unsigned long long)lineno, shown(line, buf, sizeof buf));
        else if (!isfinite(v))
            rc = gpm_set_error("%s:%llu: '%s' is not a finite number: the file is corrupt, "
                               "fetch it again", path, (unsigned long long)lineno,
                               shown(line, buf, sizeof buf));
        else
            out[k++] = v;
    }
    if (rc == 0 && ferror(f))
        rc = gpm_set_error("%s:%llu: read error (%s)", path, (unsigned long long)lineno + 1,
                           strerror(errno));
    if (rc == 0 && k < n)
        rc = gpm_set_error("%s:%llu: truncated: the file ends after %llu of %llu x %llu "
                           "values: fetch it again, or pass its grid's --rows and --cols",
                           path, (unsigned long long)lineno + 1, (unsigned long long)k,
                           (unsigned long long)rows, (unsigned long long)cols);
    free(line);
    fclose(f);
    return rc;
}

/* ---- the binary cache ---- */

#define HS_CACHE_MAGIC 0x3143475253484750ull /* "PGHSRGC1" */

/* The cache file starts with this header, then rows x cols floats. */
struct cache_hdr {
    uint64_t magic;
    uint64_t rows, cols;
    uint64_t path_hash;                  /* of the source's real path */
    uint64_t src_size, src_ino, src_dev; /* the source it was made from */
    int64_t src_mtime_s, src_mtime_ns;
    uint64_t data_sum;                   /* hs_sum of the grid */
    uint64_t hdr_sum;                    /* of the fields above */
    uint8_t pad[40];
};

static uint64_t fnv(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hdr_sum(const struct cache_hdr *h)
{
    return fnv(h, offsetof(struct cache_hdr, hdr_sum));
}

/* The header that a cache of SRC (stat ST, real path REAL) must carry. */
static void expected_hdr(const char *real, const struct stat *st, uint64_t rows, uint64_t cols,
                         struct cache_hdr *h)
{
    memset(h, 0, sizeof *h);
    h->magic = HS_CACHE_MAGIC;
    h->rows = rows;
    h->cols = cols;
    h->path_hash = fnv(real, strlen(real));
    h->src_size = (uint64_t)st->st_size;
    h->src_ino = (uint64_t)st->st_ino;
    h->src_dev = (uint64_t)st->st_dev;
    h->src_mtime_s = (int64_t)st->st_mtim.tv_sec;
    h->src_mtime_ns = (int64_t)st->st_mtim.tv_nsec;
}

static int source_of(const char *src, char *real, struct stat *st)
{
    if (!realpath(src, real) || stat(real, st) != 0)
        return gpm_set_error("%s: cannot read (%s): pass an existing file to --input", src,
                             strerror(errno));
    return 0;
}

static int cache_name(const char *real, uint64_t rows, uint64_t cols, char *out, size_t len)
{
    const char *dir = wl_data_dir();
    char key[PATH_MAX + 64];
    if (!dir)
        return -1;
    snprintf(key, sizeof key, "%s|%llux%llu", real, (unsigned long long)rows,
             (unsigned long long)cols);
    if ((size_t)snprintf(out, len, "%s/hs-grid-%016llx.bin", dir,
                         (unsigned long long)fnv(key, strlen(key))) >= len)
        return gpm_set_error("%s: path too long: set GPM_DATA_DIR to a shorter directory", dir);
    return 0;
}

int hs_cache_path(const char *src, uint64_t rows, uint64_t cols, char *out, size_t len)
{
    char real[PATH_MAX];
    struct stat st;
    return source_of(src, real, &st) || cache_name(real, rows, cols, out, len) ? -1 : 0;
}

static int read_all(int fd, void *p, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t k = read(fd, (char *)p + got, len - got);
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

static int write_all(int fd, const void *p, size_t len)
{
    for (size_t put = 0; put < len;) {
        ssize_t k = write(fd, (const char *)p + put, len - put);
        if (k <= 0)
            return -1;
        put += (size_t)k;
    }
    return 0;
}

/* 1 if PATH is a cache that matches WANT and checks out (OUT, *SUM
 * filled); 0 if it is missing, stale or corrupt. */
static int cache_read(const char *path, const struct cache_hdr *want, float *out, uint64_t *sum,
                      int *existed)
{
    const size_t bytes = want->rows * want->cols * sizeof(float);
    struct cache_hdr h;
    struct stat st;
    int fd = open(path, O_RDONLY), ok;
    *existed = fd >= 0;
    if (fd < 0)
        return 0;
    ok = fstat(fd, &st) == 0 && (uint64_t)st.st_size == sizeof h + bytes &&
         read_all(fd, &h, sizeof h) == 0 && h.hdr_sum == hdr_sum(&h) &&
         memcmp(&h, want, offsetof(struct cache_hdr, data_sum)) == 0 &&
         read_all(fd, out, bytes) == 0 && hs_sum(out, want->rows * want->cols) == h.data_sum;
    close(fd);
    if (ok)
        *sum = h.data_sum;
    return ok;
}

/* Writes the cache whole under a temporary name, then renames it: a
 * reader sees the old file or the new one, never a part. */
static int cache_write(const char *path, struct cache_hdr *h, const float *v)
{
    char tmp[PATH_MAX + 16];
    int fd, ok;
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0)
        return gpm_set_error("%s: cannot write the input cache (%s): set GPM_DATA_DIR to a "
                             "writable directory", path, strerror(errno));
    h->hdr_sum = hdr_sum(h);
    ok = write_all(fd, h, sizeof *h) == 0 &&
         write_all(fd, v, h->rows * h->cols * sizeof(float)) == 0;
    ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) {
        int e = errno;
        unlink(tmp);
        return gpm_set_error("%s: cannot write the input cache (%s): set GPM_DATA_DIR to a "
                             "directory with room", path, strerror(e));
    }
    return 0;
}

int hs_cache_load(const char *src, uint64_t rows, uint64_t cols, float *out, uint64_t *sum,
                  const char **how)
{
    char real[PATH_MAX], path[PATH_MAX];
    struct stat st;
    struct cache_hdr h;
    int existed;
    if (source_of(src, real, &st) != 0 || cache_name(real, rows, cols, path, sizeof path) != 0)
        return -1;
    expected_hdr(real, &st, rows, cols, &h);
    if (cache_read(path, &h, out, sum, &existed)) {
        *how = "cached";
        return 0;
    }
    if (hs_read_text(src, rows, cols, out) != 0)
        return -1;
    *sum = h.data_sum = hs_sum(out, rows * cols);
    *how = existed ? "cache-rebuilt" : "parsed";
    return cache_write(path, &h, out);
}

/* ---- --input ---- */

/* PATH as given if readable, else, for a bare name, in wl_data_dir(). */
static int resolve(const char *path, char *out, size_t len)
{
    const char *dir;
    if (access(path, R_OK) == 0 || strchr(path, '/')) {
        snprintf(out, len, "%s", path);
        return 0;
    }
    dir = wl_data_dir();
    if (!dir)
        return -1;
    snprintf(out, len, "%s/%s", dir, path);
    if (access(out, R_OK) != 0)
        snprintf(out, len, "%s", path); /* report the name as given */
    return 0;
}

static int readable(const char *path)
{
    struct stat st;
    if (access(path, R_OK) != 0 || stat(path, &st) != 0)
        return gpm_set_error("--input: %s: cannot read (%s): pass Rodinia's temp file, "
                             "TEMP,POWER, or gen (datasets/README.md says where Rodinia's are)",
                             path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return gpm_set_error("--input: %s is not a file: pass Rodinia's temp file, TEMP,POWER, "
                             "or gen", path);
    return 0;
}

int hs_input_files(const char *spec, char *temp, char *power, size_t len)
{
    const char *comma = strchr(spec, ',');
    char t[PATH_MAX], p[PATH_MAX];
    if (comma) {
        snprintf(t, sizeof t, "%.*s", (int)(comma - spec), spec);
        snprintf(p, sizeof p, "%s", comma + 1);
    } else {
        const char *base = strrchr(spec, '/') ? strrchr(spec, '/') + 1 : spec, *at = NULL;
        for (const char *s = strstr(base, "temp"); s; s = strstr(s + 1, "temp"))
            at = s;
        if (!at)
            return gpm_set_error("--input: cannot tell the power file of %s (its name has no "
                                 "'temp'): pass TEMP,POWER", spec);
        snprintf(t, sizeof t, "%s", spec);
        snprintf(p, sizeof p, "%.*spower%s", (int)(at - spec), spec, at + 4);
    }
    if (!*t || !*p)
        return gpm_set_error("--input: '%s': pass TEMP,POWER with both files named", spec);
    if (resolve(t, temp, len) != 0 || resolve(p, power, len) != 0)
        return -1;
    return readable(temp) || readable(power) ? -1 : 0;
}

static void extremes(const float *v, uint64_t n, double *lo, double *hi)
{
    float a = v[0], b = v[0];
    for (uint64_t i = 1; i < n; i++) {
        a = v[i] < a ? v[i] : a;
        b = v[i] > b ? v[i] : b;
    }
    *lo = a;
    *hi = b;
}

int hs_input_load(const char *spec, uint64_t rows, uint64_t cols, uint64_t seed,
                  struct hs_input *in)
{
    const uint64_t n = rows * cols;
    uint64_t st = 0, sp = 0;
    memset(in, 0, sizeof *in);
    in->rows = rows;
    in->cols = cols;
    in->temp = malloc(n * sizeof(float));
    in->power = malloc(n * sizeof(float));
    if (!in->temp || !in->power) {
        hs_input_free(in);
        return gpm_set_error("hs: cannot allocate %llu bytes for the input grids: use a "
                             "smaller --scale", (unsigned long long)(2 * n * sizeof(float)));
    }
    if (strcmp(spec, "gen") == 0) {
        hs_generate(seed, rows, cols, in->temp, in->power);
        in->generated = 1;
        snprintf(in->how, sizeof in->how, "generated");
        st = hs_sum(in->temp, n);
        sp = hs_sum(in->power, n);
    } else {
        char tf[PATH_MAX], pf[PATH_MAX];
        const char *ht, *hp;
        if (hs_input_files(spec, tf, pf, sizeof tf) != 0 ||
            hs_cache_load(tf, rows, cols, in->temp, &st, &ht) != 0 ||
            hs_cache_load(pf, rows, cols, in->power, &sp, &hp) != 0) {
            hs_input_free(in);
            return -1;
        }
        /* The weaker of the two: "parsed" if either was. */
        snprintf(in->how, sizeof in->how, "%s", strcmp(ht, "cached") != 0 ? ht : hp);
    }
    in->fingerprint = gpm_mix64(st) ^ sp;
    extremes(in->temp, n, &in->tmin, &in->tmax);
    extremes(in->power, n, &in->pmin, &in->pmax);
    return 0;
}

void hs_input_free(struct hs_input *in)
{
    free(in->temp);
    free(in->power);
    in->temp = in->power = NULL;
}
