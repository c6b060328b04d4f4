/* What the last checkpoint saved, read back from the file's mapping (the
 * layout of gpm/cp_layout.h), so that a restore can be compared with it
 * byte for byte: a check that does not go through the restore it checks. */
#include <string.h>

#include "dnn.h"
#include "gpm/cp_layout.h"

int dnn_cp_saved(const gpmcp *cp, uint32_t elem, const uint8_t **p, uint64_t *size)
{
    const gpm_region *r = gpmcp_region(cp);
    uint8_t *base = r ? (uint8_t *)r->host : NULL;
    const gpmcp_header *h = (const gpmcp_header *)base;
    gpmcp_group *g;
    const gpmcp_elem *e;
    uint64_t off;
    if (!base || gpmcp_header_check(h, r->size) != GPMCP_HEADER_OK)
        return gpm_set_error("%s: not a valid checkpoint file", r ? r->path : "checkpoint");
    g = gpmcp_group_at(base, h, 0);
    e = gpmcp_elems_of(base, h, 0);
    if (gpmcp_group_check(h, g, e, 0) != GPMCP_GROUP_CHECKPOINTED || elem >= g->nelem)
        return gpm_set_error("%s: holds no checkpoint of element %u", r->path, elem);
    off = gpmcp_elem_file_off(g, &e[elem], gpmcp_flip_copy(g->flip));
    if (off > r->size || e[elem].size > r->size - off)
        return gpm_set_error("%s: element %u lies outside the file", r->path, elem);
    *p = base + off;
    *size = e[elem].size;
    return 0;
}

int dnn_cp_compare(const gpmcp *cp, uint32_t elem, const void *host, size_t size,
                   const char *what)
{
    const uint8_t *saved, *got = (const uint8_t *)host;
    uint64_t n;
    if (dnn_cp_saved(cp, elem, &saved, &n) != 0)
        return -1;
    if (n != size)
        return gpm_set_error("%s: the checkpoint saved %llu bytes of %s, the run has %zu",
                             gpmcp_region(cp)->path, (unsigned long long)n, what, size),
               1;
    if (memcmp(saved, got, size) == 0)
        return 0;
    for (size_t i = 0; i < size; i += 4)
        if (memcmp(saved + i, got + i, size - i < 4 ? size - i : 4) != 0) {
            float a = 0, b = 0;
            if (size - i >= 4) {
                memcpy(&a, got + i, 4);
                memcpy(&b, saved + i, 4);
            }
            return gpm_set_error("%s: restored %s differ from the checkpoint at float %zu "
                                 "(%.9g restored, %.9g saved): not bit for bit",
                                 gpmcp_region(cp)->path, what, i / 4, a, b),
                   1;
        }
    return 1;
}
