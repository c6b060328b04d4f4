/* The reduction's PM layout and the tree it persists, shared by the
 * kernels, the CPU counterpart, recovery and the CPU tests.
 *
 *   [slots: nblocks x threads x u64][total: u64]   (each part 128-aligned)
 *
 * Each thread block sums `block` integers with block / RED_ITEMS threads.
 * A thread first sums its RED_ITEMS consecutive integers (its leaf), then
 * the block halves the live threads each iteration (SBRP's Figure 2): at
 * stride s, thread t < s adds the sum of thread t + s, and the threads in
 * [s, 2s) are finished. A finished thread stores its sum in its slot, so
 * the slots hold the whole reduction tree (a sum tree a later update of one
 * integer could walk up), and thread 0's slot holds the block's sum.
 *
 * slot   the run's epoch (low 32 bits) and the sum (high 32 bits), stored
 *        in one 8-byte store: a slot with another epoch is empty
 * total  the same, for the sum of every block's sum (the output)
 *
 * Recovery reads one slot per block, never the whole tree (reading it back
 * over the link would cost half as much as the input): a block whose slot
 * 0 carries the epoch is trusted whole, and a durable total ends the run.
 * So each slot must be durable before the slot of the thread that absorbs
 * its sum (within a block: barriers after persists, or SBRP's block-scope
 * release and acquire), and every block before the total (device scope).
 * Sums wrap modulo 2^32, identically on both sides. */
#ifndef REDUCE_LAYOUT_H
#define REDUCE_LAYOUT_H

#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

/* Integers each GPU thread sums before the tree: one 16-byte load. */
#define RED_ITEMS 4

GPM_HD uint64_t red_align(uint64_t x) { return (x + 127u) & ~(uint64_t)127u; }
GPM_HD uint32_t red_threads(uint32_t block) { return block / RED_ITEMS; }
GPM_HD uint64_t red_nblocks(uint64_t n, uint32_t block) { return (n + block - 1) / block; }
GPM_HD uint64_t red_slots_off(void) { return 0; }
GPM_HD uint64_t red_total_off(uint64_t n, uint32_t block)
{
    return red_slots_off() + red_align(red_nblocks(n, block) * red_threads(block) * 8);
}
GPM_HD uint64_t red_file_bytes(uint64_t n, uint32_t block)
{
    return red_total_off(n, block) + 128;
}

GPM_HD uint64_t red_slot(uint32_t epoch, uint32_t sum)
{
    return (uint64_t)sum << 32 | epoch;
}
GPM_HD uint32_t red_slot_sum(uint64_t slot) { return (uint32_t)(slot >> 32); }
GPM_HD int red_slot_holds(uint64_t slot, uint32_t epoch) { return (uint32_t)slot == epoch; }

/* The input: small values so that sums are easy to read; wrap is fine. */
GPM_HD uint32_t red_input(uint64_t seed, uint64_t i) { return wl_hash32(seed, i) & 0x3ffu; }

/* Thread T of block B's leaf: the sum of its integers (past N: none). */
GPM_HD uint32_t red_leaf(const uint32_t *in, uint64_t n, uint32_t block, uint64_t b,
                         uint32_t t)
{
    uint64_t i = b * block + (uint64_t)t * RED_ITEMS;
    uint32_t s = 0;
    for (uint32_t k = 0; k < RED_ITEMS && i + k < n; k++)
        s += in[i + k];
    return s;
}

/* The block's tree in place: V holds THREADS leaves; afterwards V[t] is
 * the sum thread t stores in its slot (V[0] the block's sum). At stride s
 * thread t < s adds V[t + s], whose thread is finished. */
GPM_HD void red_tree(uint32_t *v, uint32_t threads)
{
    for (uint32_t s = threads / 2; s >= 1; s /= 2)
        for (uint32_t t = 0; t < s; t++)
            v[t] += v[t + s];
}

/* Blocks whose slot 0 does not hold EPOCH: those a resumed run computes. */
GPM_HD uint64_t red_count_pending(const uint64_t *slots, uint64_t nblocks, uint32_t threads,
                                  uint32_t epoch)
{
    uint64_t k = 0;
    for (uint64_t b = 0; b < nblocks; b++)
        k += (uint64_t)!red_slot_holds(slots[b * threads], epoch);
    return k;
}

#endif
