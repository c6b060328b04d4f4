/* PS, prefix sum with native persistence (paper section 4.3, Figure 8). */
#ifndef PS_H
#define PS_H

#include <stddef.h>
#include <stdint.h>

#include "ps_layout.h"
#include "wl_blocks.h"
#include "wl_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PS_SUMS }; /* the one PM object: the layout of ps_layout.h */

struct ps_state {
    uint64_t n, nblocks;
    uint32_t block;
    uint32_t *d_in;          /* device: the input */
    uint32_t *h_in;          /* host: the CPU mode's input */
    unsigned long long *d_computed; /* blocks a launch computed (resume count) */
    struct ps_sbrp_flags *sbrp;     /* the SBRP variant's flags (NULL: the epoch model) */
};

/* The descriptor's callbacks (struct wl_blocks): the input and the kernels
 * (ps_kernels.cu; in cpu mode they call the CPU side), the layout and its
 * marks (ps_layout.c), the check (ps_ref.c). */
int ps_setup(struct wl_ctx *c);
void ps_teardown(struct wl_ctx *c);
int ps_compute(struct wl_ctx *c, uint8_t *out, int resume, uint64_t *computed);
int ps_layout(struct wl_ctx *c);
uint64_t ps_blocks_of(struct wl_ctx *c);
uint64_t ps_pending(struct wl_ctx *c, const uint8_t *pm);
int ps_finished(struct wl_ctx *c, const uint8_t *pm);
int ps_check_pm(struct wl_ctx *c, const uint8_t *pm, struct wl_wrong *w);

/* CPU side (ps_ref.c). */
void ps_cpu_generate(uint32_t *in, uint64_t n, uint64_t seed);
/* The CPU counterpart: OpenMP scan of the blocks pending in EPOCH straight
 * into the mapping of region PS_SUMS, each block persisted with libpmem
 * before its marker (a unit of progress). Sets *COMPUTED to the number of
 * blocks it computed; -1 if a persist failed (that block keeps no marker). */
int ps_cpu_scan_blocks(struct wl_ctx *c, const struct ps_state *st, const uint32_t *in,
                       uint32_t epoch, uint64_t *computed);
int ps_cpu_block_prefix(struct wl_ctx *c, const struct ps_state *st);
/* Checks OUT/PRE (a PS layout in memory) against the reference for SEED:
 * 0 right, 1 wrong (the first wrong partial sum named, else the first
 * wrong block sum), -1 out of memory (message set). Adds to W (NULL: not
 * wanted) every sum compared, the N partial sums and the NBLOCKS + 1 block
 * sums, and those that are wrong. */
int ps_check(const uint32_t *out, const uint32_t *pre, uint64_t n, uint32_t block, uint64_t seed,
             struct wl_wrong *w);
/* Reference inclusive prefix sums of block B, written to OUT[0..len). */
void ps_ref_block(uint64_t seed, uint64_t n, uint32_t block, uint64_t b, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif
