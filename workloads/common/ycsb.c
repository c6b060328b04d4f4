/* YCSB's operations and traces (ycsb.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/gpm.h"
#include "gpm/hd.h"
#include "ycsb.h"

#define R WL_YCSB_READ
#define U WL_YCSB_UPDATE
#define I WL_YCSB_INSERT
#define M WL_YCSB_RMW
#define D WL_YCSB_DELETE

static const struct wl_ycsb_mix mixes[] = {
    {"load", "every key inserted once, in order", {[I] = 1}, WL_YCSB_UNIFORM, 0},
    {"a", "50% read, 50% update, Zipfian", {[R] = .5, [U] = .5}, WL_YCSB_ZIPFIAN, 0},
    {"b", "95% read, 5% update, Zipfian", {[R] = .95, [U] = .05}, WL_YCSB_ZIPFIAN, 0},
    {"c", "100% read, Zipfian", {[R] = 1}, WL_YCSB_ZIPFIAN, 0},
    {"d", "95% read, 5% insert, the latest read most", {[R] = .95, [I] = .05}, WL_YCSB_LATEST, 0},
    {"f", "50% read, 50% read-modify-write, Zipfian", {[R] = .5, [M] = .5}, WL_YCSB_ZIPFIAN, 0},
    {"search", "100% read of keys present, uniform", {[R] = 1}, WL_YCSB_UNIFORM, 0},
    {"search-miss", "100% read of keys never inserted", {[R] = 1}, WL_YCSB_UNIFORM, 1},
    {"insert", "100% insert of new keys", {[I] = 1}, WL_YCSB_UNIFORM, 0},
    {"update", "100% update, uniform", {[U] = 1}, WL_YCSB_UNIFORM, 0},
    {"delete", "100% delete, each key present once", {[D] = 1}, WL_YCSB_UNIFORM, 0},
};
#define NMIXES (sizeof mixes / sizeof mixes[0])

/* YCSB's ScrambledZipfianGenerator draws from 10^10 items, whose zeta at
 * 0.99 it keeps as a constant, then hashes the item into the key space. */
#define YCSB_ITEMS 10000000000ull
#define YCSB_ZETAN 26.46902820178302

const char *wl_ycsb_mix_names(void)
{
    return "load, a, b, c, d, f, search, search-miss, insert, update, delete";
}

const struct wl_ycsb_mix *wl_ycsb_mix(const char *name)
{
    for (size_t i = 0; i < NMIXES; i++)
        if (!strcmp(name, mixes[i].name))
            return &mixes[i];
    gpm_set_error("no YCSB workload '%s': pass one of %s", name, wl_ycsb_mix_names());
    return NULL;
}

uint64_t wl_ycsb_key(uint64_t k)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 8; i++, k >>= 8)
        h = (h ^ (k & 0xff)) * 0x100000001b3ull;
    return h >> 63 ? 0 - h : h; /* Java's Math.abs of a long */
}

int wl_ycsb_key_name(uint64_t key, char *out, size_t len)
{
    int n = snprintf(out, len, "user%llu", (unsigned long long)key);
    if (n < 0 || (size_t)n >= len)
        return -1;
    memset(out + n, 0, len - (size_t)n);
    return 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int wl_ycsb_init(struct wl_ycsb *y, const struct wl_ycsb_mix *mix, int dist, uint64_t records,
                 double theta, uint64_t seed)
{
    memset(y, 0, sizeof *y);
    y->mix = mix;
    y->dist = dist < 0 ? mix->dist : (enum wl_ycsb_dist)dist;
    y->records = y->inserted = records;
    y->seed = seed;
    if (!(theta > 0 && theta < 1))
        return gpm_set_error("Zipfian skew %g: pass a value between 0 and 1 (YCSB's is 0.99)",
                             theta);
    if (records == 0 && (mix->p[R] > 0 || mix->p[U] > 0 || mix->p[M] > 0 || mix->p[D] > 0) &&
        !mix->miss)
        return gpm_set_error("YCSB workload %s reads or writes keys present: load some first",
                             mix->name);
    /* Deletes take each key present once: an affine permutation of
     * 0..records-1, whose stride is found once here. */
    for (y->stride = 2654435761ull; records && gcd(y->stride, records) != 1; y->stride += 2)
        ;
    if (y->dist == WL_YCSB_ZIPFIAN)
        wl_zipf_init(&y->zipf, theta == 0.99 ? YCSB_ITEMS : records, theta,
                     theta == 0.99 ? YCSB_ZETAN : 0);
    else if (y->dist == WL_YCSB_LATEST)
        wl_zipf_init(&y->zipf, records ? records : 1, theta, 0);
    return 0;
}

/* The key number of a read, update, read-modify-write or delete. */
static uint64_t pick(struct wl_ycsb *y, double u)
{
    uint64_t n = y->inserted;
    if (y->mix->miss)
        return (1ull << 62) + y->pos; /* a number no insert reaches */
    switch (y->dist) {
    case WL_YCSB_ZIPFIAN:
        /* Scrambled: the popular items are spread over the key space. */
        return wl_ycsb_key(wl_zipf_rank(&y->zipf, u)) % n;
    case WL_YCSB_LATEST:
        if (y->zipf.n < n)
            wl_zipf_grow(&y->zipf, n);
        return n - 1 - wl_zipf_rank(&y->zipf, u); /* a rank of the n keys */
    default:
        return (uint64_t)(u * (double)n) % n;
    }
}

void wl_ycsb_next(struct wl_ycsb *y, enum wl_ycsb_op *op, uint64_t *key)
{
    double u = wl_unit(y->seed, 2 * y->pos), sum = 0;
    enum wl_ycsb_op o = WL_YCSB_NOPS;
    uint64_t k;
    for (int i = 0; i < WL_YCSB_NOPS && o == WL_YCSB_NOPS; i++)
        if (y->mix->p[i] > 0 && u < (sum += y->mix->p[i]))
            o = (enum wl_ycsb_op)i;
    if (o == WL_YCSB_NOPS) /* u past the sum by rounding: the last that has a share */
        for (int i = 0; i < WL_YCSB_NOPS; i++)
            if (y->mix->p[i] > 0)
                o = (enum wl_ycsb_op)i;
    if (o == WL_YCSB_INSERT) {
        k = y->inserted++;
    } else if (o == WL_YCSB_DELETE) {
        uint64_t n = y->records;
        k = (uint64_t)(((unsigned __int128)(y->deleted++ % n) * y->stride + y->seed) % n);
    } else {
        k = pick(y, wl_unit(y->seed, 2 * y->pos + 1));
    }
    y->pos++;
    *op = o;
    *key = wl_ycsb_key(k);
}

/* ---- YCSB's own traces ---- */

void wl_ycsb_trace_free(struct wl_ycsb_trace *t)
{
    free(t->op);
    free(t->key);
    memset(t, 0, sizeof *t);
}

static int add(struct wl_ycsb_trace *t, uint64_t *cap, enum wl_ycsb_op op, uint64_t key)
{
    if (t->n == *cap) {
        uint64_t c = *cap ? 2 * *cap : 4096;
        uint8_t *o = realloc(t->op, c);
        uint64_t *k = o ? realloc(t->key, c * sizeof *k) : NULL;
        if (o)
            t->op = o;
        if (!k)
            return gpm_set_error("out of memory for %llu operations", (unsigned long long)c);
        t->key = k;
        *cap = c;
    }
    t->op[t->n] = (uint8_t)op;
    t->key[t->n++] = key;
    return 0;
}

/* KEY as YCSB's user<digits>: 0 and the number, or -1. */
static int parse_key(const char *s, size_t len, uint64_t *key)
{
    char digits[32], *end;
    if (len < 5 || len - 4 >= sizeof digits || strncmp(s, "user", 4) != 0)
        return -1;
    for (size_t i = 4; i < len; i++)
        if (!isdigit((unsigned char)s[i]))
            return -1;
    memcpy(digits, s + 4, len - 4);
    digits[len - 4] = '\0';
    errno = 0;
    *key = strtoull(digits, &end, 10);
    return errno || *end ? -1 : 0;
}

int wl_ycsb_trace_read(struct wl_ycsb_trace *t, const char *path)
{
    static const struct { const char *verb; int op; } verbs[] = {
        {"READ ", R}, {"UPDATE ", U}, {"INSERT ", I}, {"DELETE ", D}, {"SCAN ", -1}};
    char *line = NULL;
    size_t cap = 0;
    uint64_t room = 0, at = 0;
    FILE *f = fopen(path, "r");
    int rc = 0;
    memset(t, 0, sizeof *t);
    if (!f)
        return gpm_set_error("%s: cannot read the YCSB trace (%s)", path, strerror(errno));
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        const char *p, *key;
        size_t klen;
        uint64_t k;
        int v = -1;
        at++;
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0] && v < 0; i++)
            if (!strncmp(line, verbs[i].verb, strlen(verbs[i].verb)))
                v = (int)i;
        if (v < 0)
            continue; /* YCSB's other output */
        p = line + strlen(verbs[v].verb);
        p += strcspn(p, " \n"); /* the table */
        key = p + strspn(p, " ");
        klen = strcspn(key, " \n");
        if (verbs[v].op < 0)
            rc = gpm_set_error("%s:%llu: SCAN (YCSB's workload E) is not supported: make the "
                               "trace with scanproportion=0", path, (unsigned long long)at);
        else if (parse_key(key, klen, &k) != 0)
            rc = gpm_set_error("%s:%llu: key '%.*s' is not YCSB's user<digits>: make the trace "
                               "with YCSB's core workload", path, (unsigned long long)at,
                               (int)(klen < 64 ? klen : 64), key);
        else
            rc = add(t, &room, (enum wl_ycsb_op)verbs[v].op, k);
    }
    if (rc == 0 && ferror(f))
        rc = gpm_set_error("%s: cannot read the YCSB trace (%s)", path, strerror(errno));
    if (rc == 0 && t->n == 0)
        rc = gpm_set_error("%s: no READ, UPDATE, INSERT or DELETE line: make the trace with "
                           "YCSB's basic binding and -p basicdb.verbose=true", path);
    free(line);
    fclose(f);
    if (rc != 0)
        wl_ycsb_trace_free(t);
    return rc;
}
