/* The stores a mutant's removed persist points hold back, and the crash
 * points where its images are worth building (gpm/persistency.h). */
#include <stdlib.h>
#include <string.h>

#include "gpm/gpm.h"
#include "gpm/persistency.h"

/* Appends the L points of LIST to OUT in an order whose every prefix is
 * spread over the list: the middle, then the start, then the quarters, and
 * so on (bit-reversed, by halves). */
static void spread(const uint64_t *list, uint64_t l, uint64_t *out, uint64_t *nout,
                   uint8_t *used)
{
    uint64_t p = 1, bits = 0;
    while (p < l)
        p <<= 1, bits++;
    memset(used, 0, l);
    for (uint64_t j = 0; j < p; j++) {
        uint64_t r = 0, k;
        for (uint64_t b = 0; b < bits; b++)
            r |= ((j >> b) & 1) << (bits - 1 - b);
        k = ((r + p / 2) % p) * l / p;
        if (!used[k])
            used[k] = 1, out[(*nout)++] = list[k];
    }
}

/* The N points of LIST (points after persist points) in turns over the
 * persist sites that precede them: the first of each site's spread order,
 * then the second of each, ... A site that persists rarely (a host commit
 * among a kernel's thousands of fences) is tried early. OUT gets them. */
static int by_site(const gpm_ptrace *t, const uint64_t *list, uint64_t n, uint64_t *out,
                   uint8_t *used)
{
    uint64_t ns = t->nsites + 1, k, got = 0, *first = calloc(ns + 1, sizeof *first);
    uint64_t *grouped = malloc((n + 1) * sizeof *grouped), *order = malloc((n + 1) * sizeof *order);
    if (!first || !grouped || !order) {
        free(first), free(grouped), free(order);
        return gpm_set_error("out of memory for the held-back stores' crash points");
    }
#define SITE_OF(c) (t->ev[(c) - 1].site < t->nsites ? t->ev[(c) - 1].site : t->nsites)
    for (k = 0; k < n; k++)
        first[SITE_OF(list[k]) + 1]++;
    for (k = 0; k < ns; k++)
        first[k + 1] += first[k];
    for (k = 0; k < n; k++) /* stable: each site's points in trace order */
        grouped[first[SITE_OF(list[k])]++] = list[k];
    for (k = ns; k > 0; k--) /* FIRST[s] back to each site's start */
        first[k] = first[k - 1];
    first[0] = 0;
#undef SITE_OF
    for (k = 0; k < ns; k++) {
        uint64_t m = 0;
        spread(grouped + first[k], first[k + 1] - first[k], order + first[k], &m, used);
    }
    for (uint64_t r = 0; got < n; r++)
        for (k = 0; k < ns; k++)
            if (first[k] + r < first[k + 1])
                out[got++] = order[first[k] + r];
    free(first), free(grouped), free(order);
    return 0;
}

int gpm_held_back(const gpm_ptrace *t, const uint64_t *durable, const uint64_t *before,
                  gpm_held *h)
{
    uint64_t n = t->nev + 2, nend = 0, nafter = 0, ne = 0, *e = NULL, *a = NULL;
    int64_t *diff = calloc(n, sizeof *diff), held = 0;
    uint8_t *end = calloc(n, 1), *used = malloc(n);
    uint64_t *ends = malloc(n * sizeof *ends), *after = malloc(n * sizeof *after);
    int rc = -1;
    memset(h, 0, sizeof *h);
    if (!diff || !end || !used || !ends || !after || !(h->at = malloc(n * sizeof *h->at))) {
        gpm_set_error("out of memory for the held-back stores of %llu events",
                      (unsigned long long)t->nev);
        goto out;
    }
    for (uint64_t k = 0; k < t->nev; k++) {
        h->removed += t->ev[k].kind == GPM_TR_REMOVED;
        if (t->ev[k].kind == GPM_TR_STORE && before[k] < durable[k]) {
            /* Held back at crash points C, before[k] < C <= durable[k]. */
            uint64_t hi = durable[k] < t->nev ? durable[k] : t->nev;
            h->stores++;
            diff[before[k] + 1]++;
            diff[hi + 1]--;
            end[hi] = 1;
        }
    }
    /* Where a window begins, the image is one the original allows (a crash
     * just before the store): not worth one. */
    for (uint64_t c = 1; c <= t->nev; c++) {
        if ((held += diff[c]) <= 0)
            continue;
        h->points++;
        if (end[c])
            ends[nend++] = c;
        else if (gpm_ptrace_is_persist(t, c - 1) || c == t->nev)
            after[nafter++] = c;
    }
    /* The ends spread, the points after a persist in turns over their
     * sites, then the two interleaved: an end, a point after a persist, an
     * end, ... */
    e = malloc((nend + 1) * sizeof *e);
    a = malloc((nafter + 1) * sizeof *a);
    if (!e || !a) {
        gpm_set_error("out of memory for the held-back stores' crash points");
        goto out;
    }
    spread(ends, nend, e, &ne, used);
    if (by_site(t, after, nafter, a, used) != 0)
        goto out;
    for (uint64_t i = 0, j = 0; i < ne || j < nafter;) {
        if (i < ne)
            h->at[h->nat++] = e[i++];
        if (j < nafter)
            h->at[h->nat++] = a[j++];
    }
    h->nlast = nend;
    rc = 0;
out:
    free(e), free(a), free(diff), free(end), free(used), free(ends), free(after);
    return rc;
}
