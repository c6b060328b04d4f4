/* The reduction's layout on the host side: the region's size from the
 * parameters, and what a recovery reads of the marks (reduce_layout.h). */
#include <string.h>

#include "reduce.h"

int red_layout(struct wl_ctx *c)
{
    struct red_state *st = c->priv;
    st->n = (uint64_t)wl_int(c, "n");
    st->block = (uint32_t)wl_int(c, "block");
    st->nblocks = red_nblocks(st->n, st->block);
    wl_obj_region(c, RED_TREE, red_file_bytes(st->n, st->block));
    c->data_bytes = st->n * 4;
    c->calib_bytes = red_file_bytes(st->n, st->block);
    /* For --kill random: on the fast side, as PS's. */
    c->expected_s = (double)c->calib_bytes / 50e9 + 0.005;
    return 0;
}

uint64_t red_blocks_of(struct wl_ctx *c)
{
    return ((const struct red_state *)c->priv)->nblocks;
}

uint64_t red_pending(struct wl_ctx *c, const uint8_t *pm)
{
    const struct red_state *st = c->priv;
    return red_count_pending((const uint64_t *)(pm + red_slots_off()), st->nblocks,
                             red_threads(st->block), c->epoch);
}

/* 1: the total holds the epoch: every block was durable before it. */
int red_finished(struct wl_ctx *c, const uint8_t *pm)
{
    const struct red_state *st = c->priv;
    uint64_t total;
    memcpy(&total, pm + red_total_off(st->n, st->block), sizeof total);
    return red_slot_holds(total, c->epoch);
}
