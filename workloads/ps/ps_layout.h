/* PS's PM layout and the bookkeeping that lets a crashed run resume, shared
 * by the kernels, the CPU counterpart, recovery and the CPU tests.
 *
 *   [out: n x u32][done: nblocks x u32][pre: (nblocks+1) x u32][final: u32]
 *   (each 128-aligned)
 *
 * out[j]  inclusive prefix sum of j within its block (the partial sums)
 * done[b] the run's epoch once block b's partial sums are all durable: the
 *         block's last thread stores it after a barrier that follows every
 *         thread's persist, so a crash leaves each block wholly done or not
 * pre[b]  sum of the totals of blocks < b; pre[nblocks] is the grand total
 *         (the final sums: the prefix sum of j is out[j] + pre[j / block])
 * final   the run's epoch once every block and pre are durable, in the SBRP
 *         variant (--persistency sbrp), whose one kernel ends by computing
 *         pre: a recovery that finds it has nothing to do
 *
 * Each run has a new epoch from the harness (recorded in the run's identity
 * before the run starts), so the done markers of earlier runs never count
 * and the 4 GB array need not be cleared. Sums wrap modulo 2^32,
 * identically on both sides. */
#ifndef PS_LAYOUT_H
#define PS_LAYOUT_H

#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

/* Integers each GPU thread scans (one 16-byte store); a block of BLOCK
 * integers runs BLOCK / PS_ITEMS threads. */
#define PS_ITEMS 4

GPM_HD uint64_t ps_align(uint64_t x) { return (x + 127u) & ~(uint64_t)127u; }
GPM_HD uint64_t ps_nblocks(uint64_t n, uint32_t block) { return (n + block - 1) / block; }
GPM_HD uint64_t ps_out_off(void) { return 0; }
GPM_HD uint64_t ps_done_off(uint64_t n) { return ps_out_off() + ps_align(n * 4); }
GPM_HD uint64_t ps_pre_off(uint64_t n, uint32_t block)
{
    return ps_done_off(n) + ps_align(ps_nblocks(n, block) * 4);
}
GPM_HD uint64_t ps_final_off(uint64_t n, uint32_t block)
{
    return ps_pre_off(n, block) + ps_align((ps_nblocks(n, block) + 1) * 4);
}
GPM_HD uint64_t ps_file_bytes(uint64_t n, uint32_t block)
{
    return ps_final_off(n, block) + 128;
}

/* The input: small values so that sums are easy to read; wrap is fine. */
GPM_HD uint32_t ps_input(uint64_t seed, uint64_t i) { return wl_hash32(seed, i) & 0x3ffu; }

/* Does block B still need computing in the run of EPOCH? */
GPM_HD int ps_block_pending(uint32_t marker, uint32_t epoch) { return marker != epoch; }

/* Elements in block B (the last block may be short). */
GPM_HD uint32_t ps_block_len(uint64_t n, uint32_t block, uint64_t b)
{
    uint64_t lo = b * block;
    return (uint32_t)(n - lo < block ? n - lo : block);
}

/* Blocks a resumed run of EPOCH still has to compute. */
GPM_HD uint64_t ps_count_pending(const uint32_t *done, uint64_t nblocks, uint32_t epoch)
{
    uint64_t k = 0;
    for (uint64_t b = 0; b < nblocks; b++)
        k += (uint64_t)ps_block_pending(done[b], epoch);
    return k;
}

#endif
