/* PS's PM layout and the bookkeeping that lets a crashed run resume, shared
 * by the kernels, the CPU counterpart, recovery and the CPU tests.
 *
 *   [header: 128 B][out: n x u32][done: nblocks x u32][pre: (nblocks+1) x u32]
 *
 * out[j]  inclusive prefix sum of j within its block (the partial sums)
 * done[b] the run's epoch once block b's partial sums are all durable: the
 *         block's last thread stores it after a barrier that follows every
 *         thread's persist, so a crash leaves each block wholly done or not
 * pre[b]  sum of the totals of blocks < b; pre[nblocks] is the grand total
 *         (the final sums: the prefix sum of j is out[j] + pre[j / block])
 *
 * Each run takes a new epoch (header first), so the done markers of earlier
 * runs never count and the 4 GB array need not be cleared. Sums wrap modulo
 * 2^32, identically on both sides. */
#ifndef PS_LAYOUT_H
#define PS_LAYOUT_H

#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

#define PS_MAGIC 0x315350004d5047ull /* "GPM\0PS1" */
#define PS_VERSION 1u
#define PS_HEADER_BYTES 128u
/* Integers each GPU thread scans (one 16-byte store); a block of BLOCK
 * integers runs BLOCK / PS_ITEMS threads. */
#define PS_ITEMS 4

enum { PS_EMPTY = 0, PS_RUNNING = 1, PS_COMPLETE = 2 };

typedef struct ps_header {
    uint64_t magic;
    uint32_t version;
    uint32_t block;     /* elements per block (the GPU runs block / PS_ITEMS threads) */
    uint64_t n;
    uint64_t seed;
    uint32_t epoch;     /* the run whose markers count */
    uint32_t state;     /* PS_RUNNING until the final sums are durable */
    uint64_t checksum;  /* FNV-1a of the header with this field zero */
    uint8_t pad[80];
} ps_header;

GPM_HD uint64_t ps_align(uint64_t x) { return (x + 127u) & ~(uint64_t)127u; }
GPM_HD uint64_t ps_nblocks(uint64_t n, uint32_t block) { return (n + block - 1) / block; }
GPM_HD uint64_t ps_out_off(void) { return PS_HEADER_BYTES; }
GPM_HD uint64_t ps_done_off(uint64_t n) { return ps_out_off() + ps_align(n * 4); }
GPM_HD uint64_t ps_pre_off(uint64_t n, uint32_t block)
{
    return ps_done_off(n) + ps_align(ps_nblocks(n, block) * 4);
}
GPM_HD uint64_t ps_file_bytes(uint64_t n, uint32_t block)
{
    return ps_pre_off(n, block) + ps_align((ps_nblocks(n, block) + 1) * 4);
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

GPM_HD uint64_t ps_header_sum(const ps_header *h)
{
    const uint8_t *p = (const uint8_t *)h;
    uint64_t s = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < sizeof *h; i++) {
        uint8_t byte = (i >= 40 && i < 48) ? 0 : p[i]; /* the checksum field */
        s = (s ^ byte) * 0x100000001b3ull;
    }
    return s;
}

GPM_HD void ps_header_fill(ps_header *h, uint64_t n, uint32_t block, uint64_t seed,
                           uint32_t epoch, uint32_t state)
{
    uint8_t *z = (uint8_t *)h;
    for (uint32_t i = 0; i < sizeof *h; i++)
        z[i] = 0;
    h->magic = PS_MAGIC;
    h->version = PS_VERSION;
    h->block = block;
    h->n = n;
    h->seed = seed;
    h->epoch = epoch;
    h->state = state;
    h->checksum = ps_header_sum(h);
}

/* 1 if H is a sealed PS header (of any run). */
GPM_HD int ps_header_valid(const ps_header *h)
{
    return h->magic == PS_MAGIC && h->version == PS_VERSION && h->checksum == ps_header_sum(h) &&
           (h->state == PS_RUNNING || h->state == PS_COMPLETE);
}

/* 1 if H is all zero: a file created but never written. */
GPM_HD int ps_header_zero(const ps_header *h)
{
    const uint8_t *p = (const uint8_t *)h;
    for (uint32_t i = 0; i < sizeof *h; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The highest epoch any marker carries. A fresh run starts above it (and
 * above the header's), so that no marker left by an earlier run, even one
 * whose header was torn, counts as done in the new one. */
GPM_HD uint32_t ps_max_marker(const uint32_t *done, uint64_t nblocks)
{
    uint32_t m = 0;
    for (uint64_t b = 0; b < nblocks; b++)
        m = done[b] > m ? done[b] : m;
    return m;
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
