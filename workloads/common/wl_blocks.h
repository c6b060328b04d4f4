/* A workload whose output is one region, object 0, computed in blocks,
 * each marked with the run's epoch once it is durable, then one final
 * unit (PS, Reduce). It sets .blocks, and its .run, .recover and .verify
 * are wl_blocks_run, wl_blocks_recover and wl_blocks_verify (blocks.c):
 * the harness runs it, resumes it from the marks and commits it whole. */
#ifndef WL_BLOCKS_H
#define WL_BLOCKS_H

#include "wl.h"
#include "wl_check.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wl_blocks {
    /* Computes epoch c->epoch into OUT, region 0 where the mode's kernels
     * write it (wl_dev_region; the mapping in the CPU counterpart, which
     * persists each block before its mark), the final unit included; with
     * RESUME, skips the blocks marked. *COMPUTED: the blocks computed. */
    int (*compute)(struct wl_ctx *c, uint8_t *out, int resume, uint64_t *computed);
    /* The run's blocks; those PM (region 0's mapping) holds no mark of
     * this epoch for; whether it holds this epoch's final unit. */
    uint64_t (*blocks)(struct wl_ctx *c);
    uint64_t (*pending)(struct wl_ctx *c, const uint8_t *pm);
    int (*finished)(struct wl_ctx *c, const uint8_t *pm);
    /* PM against the reference: 0 right, 1 wrong (message set, W filled:
     * wl_check.h), -1 error. */
    int (*check)(struct wl_ctx *c, const uint8_t *pm, struct wl_wrong *w);
};
int wl_blocks_run(struct wl_ctx *c);
int wl_blocks_recover(struct wl_ctx *c);
int wl_blocks_verify(struct wl_ctx *c);

#ifdef __cplusplus
}
#endif

#endif
