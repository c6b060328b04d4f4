/* gpmlog_flush: the CPU makes a log that kernels wrote unfenced (mode
 * gpm-ndp) durable, one extent per warp or partition and one drain per
 * flushing thread. */
#include <stdlib.h>

#include "gpm/log.h"

int gpmlog_flush(gpmlog *log, gpm_flusher *f)
{
    uint8_t *base = (uint8_t *)log->region.host;
    const uint32_t *tails = (const uint32_t *)(base + log->g.tails_off);
    uint32_t groups = gpmlog_n_groups(&log->g);
    gpm_extent *ext;
    size_t n = 0;
    int rc;

    for (uint32_t s = 0; s < log->g.n_slots; s++)
        if (!gpmlog_tail_valid(&log->g, tails[s]))
            return gpm_set_error("%s: tail of slot %u is %u bytes, capacity %u: not flushed; "
                                 "the log was written past its slots or is not this log",
                                 log->region.path, s, tails[s], log->g.slot_bytes);
    ext = malloc(((size_t)groups + 1) * sizeof *ext);
    if (!ext)
        return gpm_set_error("%s: out of memory listing %u extents to flush", log->region.path,
                             groups + 1);
    for (uint32_t i = 0; i < groups; i++) {
        uint64_t off, len = gpmlog_group_extent(&log->g, tails, i, &off);
        if (len == 0)
            continue;
        /* Neighbours that touch (full slots) become one extent. */
        if (n > 0 && (const uint8_t *)ext[n - 1].addr + ext[n - 1].len == base + off) {
            ext[n - 1].len += (size_t)len;
            continue;
        }
        ext[n].addr = base + off;
        ext[n].len = (size_t)len;
        n++;
    }
    /* The tails, in the same drain: in the NDP protocol the transaction is
     * not yet active, so their order relative to the entries is moot. */
    ext[n].addr = tails;
    ext[n].len = (size_t)gpmlog_round_up((uint64_t)log->g.n_slots * 4u, GPM_CACHE_LINE);
    n++;
    rc = gpm_flusher_persist_extents(f, &log->region, ext, n);
    free(ext);
    return rc;
}
