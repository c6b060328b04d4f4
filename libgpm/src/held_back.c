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

int gpm_held_back(const gpm_ptrace *t, const uint64_t *durable, const uint64_t *before,
                  gpm_held *h)
{
    uint64_t n = t->nev + 2, nend = 0, nafter = 0, held = 0;
    int64_t *diff = calloc(n, sizeof *diff);
    uint8_t *end = calloc(n, 1), *used = malloc(n);
    uint64_t *ends = malloc(n * sizeof *ends), *after = malloc(n * sizeof *after);
    memset(h, 0, sizeof *h);
    if (!diff || !end || !used || !ends || !after || !(h->at = malloc(n * sizeof *h->at))) {
        free(diff), free(end), free(used), free(ends), free(after);
        return gpm_set_error("out of memory for the held-back stores of %llu events",
                             (unsigned long long)t->nev);
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
        if ((int64_t)(held += (uint64_t)diff[c]) <= 0)
            continue;
        h->points++;
        if (end[c])
            ends[nend++] = c;
        else if (gpm_ptrace_is_persist(t, c - 1) || c == t->nev)
            after[nafter++] = c;
    }
    /* Each kind spread, then the two interleaved: an end, a point after a
     * persist, an end, ... */
    {
        uint64_t ne = 0, na = 0, i = 0, j = 0;
        uint64_t *e = malloc((nend + 1) * sizeof *e), *a = malloc((nafter + 1) * sizeof *a);
        if (!e || !a) {
            free(e), free(a), free(diff), free(end), free(used), free(ends), free(after);
            return gpm_set_error("out of memory for the held-back stores' crash points");
        }
        spread(ends, nend, e, &ne, used);
        spread(after, nafter, a, &na, used);
        while (i < ne || j < na) {
            if (i < ne)
                h->at[h->nat++] = e[i++];
            if (j < na)
                h->at[h->nat++] = a[j++];
        }
        h->nlast = nend;
        free(e), free(a);
    }
    free(diff), free(end), free(used), free(ends), free(after);
    return 0;
}
