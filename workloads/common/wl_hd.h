/* Code the harness shares between the CPU and the GPU: the input hash that
 * lets kernels and CPU references generate the same inputs from a seed, the
 * checkpoint schedule of iterative workloads, and the output digest. */
#ifndef WL_HD_H
#define WL_HD_H

#include <stdint.h>

#include "gpm/hd.h"

/* Input I of the stream SEED. */
GPM_HD uint32_t wl_hash32(uint64_t seed, uint64_t i)
{
    return (uint32_t)(gpm_mix64(seed * 0x9e3779b97f4a7c15ull + i + 0x632be59bd9b4e019ull) >> 16);
}

/* A float in [0, 1) with 24 random bits: exact on both sides. */
GPM_HD float wl_unit_f32(uint64_t seed, uint64_t i)
{
    return (float)(wl_hash32(seed, i) & 0xffffffu) * (1.0f / 16777216.0f);
}

/* Does a run of TOTAL steps that checkpoints every K save after step DONE
 * (1-based)? Every K steps, and after the last. */
GPM_HD int wl_checkpoint_due(uint64_t done, uint64_t total, uint64_t k)
{
    return done % k == 0 || done == total;
}

/* The output digest (wl_check_*): 8-byte word W at index I adds to two
 * sums of differently mixed words, so that any order of summing, on the
 * CPU or the GPU, gives the same 128 bits. */
GPM_HD void wl_digest_word(uint64_t w, uint64_t i, uint64_t *a, uint64_t *b)
{
    *a += gpm_mix64(w ^ (i * 0x9e3779b97f4a7c15ull));
    *b += gpm_mix64(w + i * 0xd6e8feb86659fd93ull + 0x2545f4914f6cdd1dull);
}

#endif
