/* gpmlog_flush: the CPU makes a log that kernels wrote unfenced (mode
 * gpm-ndp) durable, one range per warp or partition and one drain per
 * flushing thread (a vectored persist). */
#include <stdlib.h>

#include "gpm/log.h"

int gpmlog_flush(gpmlog *log, gpm_flusher *f)
{
    uint8_t *base = (uint8_t *)log->region.host;
    const uint32_t *tails = (const uint32_t *)(base + log->g.tails_off);
    uint32_t groups = gpmlog_n_groups(&log->g);
    gpm_range *ext;
    size_t n = 0;
    int rc;

    for (uint32_t s = 0; s < log->g.n_slots; s++)
        if (!gpmlog_tail_valid(&log->g, tails[s]))
            return gpm_set_error("%s: tail of slot %u is %u bytes, capacity %u: not flushed; "
                                 "the log was written past its slots or is not this log",
                                 log->region.path, s, tails[s], log->g.slot_bytes);
    ext = malloc(((size_t)groups + 1) * sizeof *ext);
    if (!ext)
        return gpm_set_error("%s: out of memory listing %u ranges to flush", log->region.path,
                             groups + 1);
    for (uint32_t i = 0; i < groups; i++) {
        uint64_t off, len = gpmlog_group_extent(&log->g, tails, i, &off);
        if (len == 0)
            continue;
        /* Neighbours that touch (full slots) become one range. */
        if (n > 0 && ext[n - 1].off + ext[n - 1].len == off) {
            ext[n - 1].len += (size_t)len;
            continue;
        }
        ext[n].off = (size_t)off;
        ext[n].len = (size_t)len;
        ext[n].src = NULL;
        n++;
    }
    /* The tails, in the same drain: in the NDP protocol the transaction is
     * not yet active, so their order relative to the entries is moot. */
    ext[n].off = (size_t)log->g.tails_off;
    ext[n].len = (size_t)gpmlog_round_up((uint64_t)log->g.n_slots * 4u, GPM_CACHE_LINE);
    ext[n].src = NULL;
    n++;
    rc = gpm_flusher_persist_ranges(f, &log->region, ext, (int)n, 0);
    free(ext);
    return rc;
}
