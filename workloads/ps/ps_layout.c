/* PS's layout on the host side: the region's size from the parameters,
 * and what a recovery reads of the marks (ps_layout.h). */
#include <string.h>

#include "ps.h"

int ps_layout(struct wl_ctx *c)
{
    struct ps_state *st = c->priv;
    st->n = (uint64_t)wl_int(c, "n");
    st->block = (uint32_t)wl_int(c, "block");
    st->nblocks = ps_nblocks(st->n, st->block);
    wl_obj_region(c, PS_SUMS, ps_file_bytes(st->n, st->block));
    c->data_bytes = st->n * 4;
    c->calib_bytes = ps_file_bytes(st->n, st->block);
    /* For --kill random: on the fast side (about 50 GB/s end to end,
     * PCIe 5's rate), so that a random kill lands inside the run in the fast
     * modes; in slower ones it lands in the run's first part. */
    c->expected_s = (double)c->calib_bytes / 50e9 + 0.005;
    return 0;
}

uint64_t ps_blocks_of(struct wl_ctx *c)
{
    return ((const struct ps_state *)c->priv)->nblocks;
}

uint64_t ps_pending(struct wl_ctx *c, const uint8_t *pm)
{
    const struct ps_state *st = c->priv;
    return ps_count_pending((const uint32_t *)(pm + ps_done_off(st->n)), st->nblocks, c->epoch);
}

/* Only the SBRP variant marks the final sums: there they end a recovery. */
int ps_finished(struct wl_ctx *c, const uint8_t *pm)
{
    const struct ps_state *st = c->priv;
    uint32_t final;
    memcpy(&final, pm + ps_final_off(st->n, st->block), sizeof final);
    return st->sbrp && final == c->epoch;
}
