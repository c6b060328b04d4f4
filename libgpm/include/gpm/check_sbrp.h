/* For SBRP tests: every outcome the sbrp model allows a trace's crash
 * image at a crash point, over a few words of its first object, each
 * written 0 before and non-zero by its stores. An outcome is the words'
 * bits (word W set: bit W); as a string, the bits of each in word order,
 * outcomes in increasing order ("000 100 010 110": x alone, then y
 * alone...). */
#ifndef GPM_CHECK_SBRP_H
#define GPM_CHECK_SBRP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/persistency.h"

#define CHECK_SBRP_WORDS 3

/* Sets SEEN[K] for every outcome K allowed at CRASH (every event before it
 * happened; ~0: the end), enumerating every mask of the pending persists.
 * 0, or -1 where there are more than 16 pending or memory ran out. */
static inline int check_sbrp_outcomes(const gpm_ptrace *t, uint64_t crash, const uint64_t *off,
                                      int nwords, int *seen)
{
    gpm_sbrp *o = NULL;
    uint8_t **imgs = (uint8_t **)calloc(t->nobj, sizeof *imgs);
    uint64_t pend = 0, arg = 0;
    int rc = imgs && gpm_sbrp_order(t, &o) == 0 ? 0 : -1;
    for (uint32_t k = 0; rc == 0 && k < t->nobj; k++)
        if (!(imgs[k] = (uint8_t *)malloc(t->obj[k].size ? t->obj[k].size : 1)))
            rc = -1;
    if (rc == 0 && (gpm_sbrp_image(t, o, crash, GPM_DROP, &arg, imgs, &pend) == 0 || pend > 16))
        rc = -1;
    for (uint64_t m = 0; rc == 0 && m < 1ull << pend; m++) {
        int k = 0;
        arg = m;
        if (gpm_sbrp_image(t, o, crash, GPM_MASK, &arg, imgs, NULL) == 0) {
            rc = -1;
            break;
        }
        for (int w = 0; w < nwords; w++) {
            uint64_t v;
            memcpy(&v, imgs[0] + off[w], sizeof v);
            k |= (v != 0) << w;
        }
        seen[k] = 1;
    }
    for (uint32_t k = 0; imgs && k < t->nobj; k++)
        free(imgs[k]);
    free(imgs);
    gpm_sbrp_free(o);
    return rc;
}

/* SEEN's outcomes as a string (see above). */
static inline void check_sbrp_string(const int *seen, int nwords, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < 1 << nwords; k++) {
        if (!seen[k])
            continue;
        snprintf(out + strlen(out), len - strlen(out), "%s", out[0] ? " " : "");
        for (int w = 0; w < nwords; w++)
            snprintf(out + strlen(out), len - strlen(out), "%d", k >> w & 1);
    }
}

#endif
