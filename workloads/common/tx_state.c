/* A transactional log's run-time state (struct wl_tx_state), freed when
 * its object closes: here, apart from tx.c, so that objects.c, which
 * closes every object, does not depend on the transactions above it. */
#include <stdlib.h>

#include "harness.h"

void wl_tx_free(struct wl_obj *o)
{
    struct wl_tx_state *t = o->tx;
    if (!t)
        return;
    wl_dev_free(t->flags_dev);
    wl_dev_free(t->ranges_dev);
    wl_dev_free(t->delta_dev);
    wl_dev_free(t->fails_dev);
    wl_pinned_free(t->fails_host);
    free(t->flags_host);
    free(t->ranges);
    free(t);
    o->tx = NULL;
}
