/* Reduction with native persistence: SBRP's motivating kernel (Pandey et
 * al., ASPLOS'23, Figure 2), every iteration's partial sums on PM. */
#ifndef REDUCE_H
#define REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "reduce_layout.h"
#include "wl_blocks.h"
#include "wl_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RED_TREE }; /* the one PM object: the layout of reduce_layout.h */

struct red_state {
    uint64_t n, nblocks;
    uint32_t block;
    uint32_t *d_in;                 /* device: the input */
    uint32_t *h_in;                 /* host: the CPU mode's input */
    struct red_dev *dev;            /* the kernels' device words */
};

/* The descriptor's callbacks (struct wl_blocks): the input and the kernels
 * (reduce_kernels.cu; in cpu mode they call the CPU side), the layout and
 * its marks (reduce_layout.c), the check (reduce_ref.c). */
int red_setup(struct wl_ctx *c);
void red_teardown(struct wl_ctx *c);
int red_compute(struct wl_ctx *c, uint8_t *out, int resume, uint64_t *computed);
int red_layout(struct wl_ctx *c);
uint64_t red_blocks_of(struct wl_ctx *c);
uint64_t red_pending(struct wl_ctx *c, const uint8_t *pm);
int red_finished(struct wl_ctx *c, const uint8_t *pm);
int red_check_pm(struct wl_ctx *c, const uint8_t *pm, struct wl_wrong *w);

/* CPU side (reduce_ref.c). */
void red_cpu_generate(uint32_t *in, uint64_t n, uint64_t seed);
/* The reference: the sums of block B's tree for SEED, slot by slot (SUMS:
 * block / RED_ITEMS of them), from the inputs regenerated. */
void red_ref_block(uint64_t seed, uint64_t n, uint32_t block, uint64_t b, uint32_t *sums);
/* The CPU counterpart: the blocks pending in EPOCH, OpenMP over blocks,
 * each block's tree persisted before its slot 0 (a unit of progress),
 * then the total. *COMPUTED gets the blocks computed. */
int red_cpu_reduce(struct wl_ctx *c, const struct red_state *st, uint64_t *computed);
/* Checks a tree and total (a layout in memory) of EPOCH against the
 * reference for SEED: 0 right, 1 wrong (the first difference in the
 * message), -1 out of memory. Every slot and the total are compared, each
 * a unit ("sums") of W (may be NULL): wrong when empty or holding another
 * sum. */
int red_check(const uint64_t *slots, uint64_t total, uint64_t n, uint32_t block, uint32_t epoch,
              uint64_t seed, struct wl_wrong *w);

#ifdef __cplusplus
}
#endif

#endif
