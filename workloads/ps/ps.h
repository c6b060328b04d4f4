/* PS, prefix sum with native persistence (paper section 4.3, Figure 8). */
#ifndef PS_H
#define PS_H

#include <stddef.h>
#include <stdint.h>

#include "ps_layout.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PS_SUMS }; /* the one PM object: the layout of ps_layout.h */

struct ps_state {
    uint64_t n, nblocks;
    uint32_t block;
    uint32_t *d_in;          /* device: the input */
    uint32_t *d_out, *d_done, *d_pre; /* device: CAP modes' results before the copy */
    uint32_t *h_in;          /* host: the CPU mode's input */
    unsigned long long *d_computed; /* blocks a launch computed (resume count) */
    struct ps_sbrp_flags *sbrp;     /* the SBRP variant's flags (NULL: the epoch model) */
};

/* Kernels (ps_kernels.cu). OUT says how the mode stores (wl.cuh). */
int ps_gpu_generate(uint32_t *d_in, uint64_t n, uint64_t seed);
int ps_gpu_scan_blocks(const uint32_t *in, uint32_t *out, uint32_t *done, uint64_t n,
                       uint32_t block, uint32_t epoch, wl_out o, int resume,
                       unsigned long long *computed);
int ps_gpu_block_prefix(const uint32_t *out, uint32_t *pre, uint64_t n, uint32_t block,
                        wl_out o);
/* The SBRP variant: both in one kernel, on flags in device memory made by
 * ps_gpu_sbrp_flags (NULL and -1 where out of memory; freed by
 * ps_gpu_sbrp_flags_free). */
struct ps_sbrp_flags *ps_gpu_sbrp_flags(uint64_t n, uint32_t block);
void ps_gpu_sbrp_flags_free(struct ps_sbrp_flags *f);
int ps_gpu_sbrp_scan(const uint32_t *in, uint8_t *pm, uint64_t n, uint32_t block,
                     uint32_t epoch, wl_out o, int resume, unsigned long long *computed,
                     struct ps_sbrp_flags *f);

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
