/* On-PM layout of libgpm undo logs, shared by the kernels, the host library,
 * gpm-inspect and the CPU tests (GPM_HD: written once, compiled twice).
 *
 * A log file is:
 *   [0, 4096)              header page: gpmlog_header in [0, 64), the
 *                          transaction word (gpm/tx.h) at GPMLOG_TX_OFF,
 *                          zeros elsewhere
 *   [tails_off, data_off)  one uint32 tail per slot: bytes in use in that slot
 *   [data_off, file_size)  n_slots slots of slot_bytes each
 *
 * A slot is a conventional partition (entries appended contiguously under a
 * lock) or, in HCL, one GPU thread's private log. HCL stripes a thread's
 * entries in 4-byte chunks: chunk c of lane L of global warp W lives at
 *   data_off + W * 32 * slot_bytes + c * 128 + L * 4
 * so the 32 lanes of a warp writing their chunk c fill one aligned 128-byte
 * line, which the GPU coalesces into a single PCIe write.
 *
 * A tail counts only entries that were completely persisted: writers persist
 * the entry first and the tail after it, so recovery never reads past the
 * tail into a half-written entry. */
#ifndef GPM_LOG_LAYOUT_H
#define GPM_LOG_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "gpm/hd.h"

#define GPMLOG_MAGIC 0x31474f4c4d5047ULL /* "GPMLOG1" little-endian, then 0 */
#define GPMLOG_VERSION 1u
#define GPMLOG_HEADER_BYTES 4096u
#define GPMLOG_LINE 128u   /* the GPU's coalescing unit */
#define GPMLOG_WARP 32u
#define GPMLOG_MAX_THREADS 1024u

enum gpmlog_kind { GPMLOG_CONV = 1, GPMLOG_HCL = 2 };

/* Fixed-width fields only, so gcc and nvcc agree on every offset. */
typedef struct gpmlog_header {
    uint64_t magic;       /*  0 GPMLOG_MAGIC */
    uint32_t version;     /*  8 GPMLOG_VERSION */
    uint32_t kind;        /* 12 GPMLOG_CONV | GPMLOG_HCL */
    uint64_t file_size;   /* 16 */
    uint64_t tails_off;   /* 24 always GPMLOG_HEADER_BYTES */
    uint64_t data_off;    /* 32 */
    uint32_t n_slots;     /* 40 conv: partitions; hcl: blocks * warps/block * 32 */
    uint32_t slot_bytes;  /* 44 capacity of one slot */
    uint32_t blocks;      /* 48 hcl: grid size; conv: 0 */
    uint32_t threads;     /* 52 hcl: threads per block; conv: 0 */
    uint32_t checksum;    /* 56 FNV-1a of bytes [0, 56) */
    uint32_t reserved;    /* 60 zero */
} gpmlog_header;

#define GPMLOG_CHECKED_BYTES 56u

/* The transaction word: 8 bytes in the header page that the header check
 * does not cover, because they change with every commit. A line of their
 * own, so rewriting them never rewrites the header's line. Files written
 * before transactions existed hold zeros there: none committed, none
 * active. */
#define GPMLOG_TX_OFF 128u

/* Why a header was rejected (0: valid). */
enum gpmlog_check {
    GPMLOG_OK = 0,
    GPMLOG_E_MAGIC,     /* not a log file */
    GPMLOG_E_VERSION,   /* a log of another format version */
    GPMLOG_E_CHECKSUM,  /* header bytes damaged */
    GPMLOG_E_KIND,      /* unknown log kind */
    GPMLOG_E_GEOMETRY,  /* fields inconsistent with each other */
    GPMLOG_E_SIZE       /* file size differs from the header's */
};

/* What kernels and host code need to find a slot's bytes. */
typedef struct gpmlog_geom {
    uint32_t kind;
    uint32_t n_slots;
    uint32_t slot_bytes;
    uint32_t blocks;
    uint32_t threads;
    uint32_t warps_per_block;
    uint64_t tails_off;
    uint64_t data_off;
} gpmlog_geom;

GPM_HD uint32_t gpmlog_checksum(const void *p, uint32_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

GPM_HD uint32_t gpmlog_round4(uint32_t n)
{
    return (n + 3u) & ~3u;
}

GPM_HD uint64_t gpmlog_round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

GPM_HD uint32_t gpmlog_warps_per_block(uint32_t threads)
{
    return (threads + GPMLOG_WARP - 1) / GPMLOG_WARP;
}

GPM_HD uint64_t gpmlog_data_off(uint32_t n_slots)
{
    return GPMLOG_HEADER_BYTES + gpmlog_round_up((uint64_t)n_slots * 4u, 4096u);
}

/* Fills H for a new log; returns 0, or -1 when the geometry cannot be
 * represented (zero sizes, too many threads, a slot smaller than one chunk
 * for HCL or one line for conventional logs). SIZE is the data capacity of
 * the whole log in bytes, divided evenly among the slots. */
GPM_HD int gpmlog_header_init(gpmlog_header *h, uint32_t kind, uint64_t size, uint32_t parts,
                              uint32_t blocks, uint32_t threads)
{
    uint64_t n_slots, slot;
    for (uint32_t i = 0; i < sizeof *h; i++)
        ((uint8_t *)h)[i] = 0;
    if (kind == GPMLOG_HCL) {
        if (blocks == 0 || threads == 0 || threads > GPMLOG_MAX_THREADS)
            return -1;
        n_slots = (uint64_t)blocks * gpmlog_warps_per_block(threads) * GPMLOG_WARP;
        if (n_slots > 0xffffffffull)
            return -1;
        slot = size / n_slots / 4u * 4u;
        if (slot < 4u)
            return -1;
    } else if (kind == GPMLOG_CONV) {
        if (parts == 0)
            return -1;
        n_slots = parts;
        blocks = threads = 0;
        slot = size / n_slots / GPMLOG_LINE * GPMLOG_LINE;
        if (slot < GPMLOG_LINE)
            return -1;
    } else {
        return -1;
    }
    if (slot > 0xfffff000ull)
        slot = 0xfffff000ull; /* tails are 32-bit byte counts */
    h->magic = GPMLOG_MAGIC;
    h->version = GPMLOG_VERSION;
    h->kind = kind;
    h->n_slots = (uint32_t)n_slots;
    h->slot_bytes = (uint32_t)slot;
    h->blocks = blocks;
    h->threads = threads;
    h->tails_off = GPMLOG_HEADER_BYTES;
    h->data_off = gpmlog_data_off(h->n_slots);
    h->file_size = h->data_off + (uint64_t)h->n_slots * h->slot_bytes;
    h->checksum = gpmlog_checksum(h, GPMLOG_CHECKED_BYTES);
    return 0;
}

/* Validates H for a file of FILE_SIZE bytes: magic, version, checksum, then
 * geometry. Reads only H. */
GPM_HD int gpmlog_header_check(const gpmlog_header *h, uint64_t file_size)
{
    if (file_size < sizeof *h || h->magic != GPMLOG_MAGIC)
        return GPMLOG_E_MAGIC;
    if (h->version != GPMLOG_VERSION)
        return GPMLOG_E_VERSION;
    if (h->checksum != gpmlog_checksum(h, GPMLOG_CHECKED_BYTES))
        return GPMLOG_E_CHECKSUM;
    if (h->kind != GPMLOG_CONV && h->kind != GPMLOG_HCL)
        return GPMLOG_E_KIND;
    if (h->n_slots == 0 || h->tails_off != GPMLOG_HEADER_BYTES ||
        h->data_off != gpmlog_data_off(h->n_slots))
        return GPMLOG_E_GEOMETRY;
    if (h->kind == GPMLOG_HCL) {
        if (h->blocks == 0 || h->threads == 0 || h->threads > GPMLOG_MAX_THREADS ||
            (uint64_t)h->blocks * gpmlog_warps_per_block(h->threads) * GPMLOG_WARP !=
                h->n_slots ||
            h->slot_bytes < 4u || h->slot_bytes % 4u != 0)
            return GPMLOG_E_GEOMETRY;
    } else {
        if (h->blocks != 0 || h->threads != 0 || h->slot_bytes < GPMLOG_LINE ||
            h->slot_bytes % GPMLOG_LINE != 0)
            return GPMLOG_E_GEOMETRY;
    }
    if (h->file_size != h->data_off + (uint64_t)h->n_slots * h->slot_bytes)
        return GPMLOG_E_GEOMETRY;
    if (h->file_size != file_size)
        return GPMLOG_E_SIZE;
    return GPMLOG_OK;
}

GPM_HD gpmlog_geom gpmlog_geom_of(const gpmlog_header *h)
{
    gpmlog_geom g;
    g.kind = h->kind;
    g.n_slots = h->n_slots;
    g.slot_bytes = h->slot_bytes;
    g.blocks = h->blocks;
    g.threads = h->threads;
    g.warps_per_block = gpmlog_warps_per_block(h->threads);
    g.tails_off = h->tails_off;
    g.data_off = h->data_off;
    return g;
}

/* HCL: the slot of thread (block, warp, lane); warps are numbered within
 * the block and padded to whole warps, so every warp owns whole lines. */
GPM_HD uint32_t gpmlog_hcl_slot(const gpmlog_geom *g, uint32_t block, uint32_t warp,
                                uint32_t lane)
{
    return (block * g->warps_per_block + warp) * GPMLOG_WARP + lane;
}

/* HCL: byte offset in the file of 4-byte chunk C of SLOT. */
GPM_HD uint64_t gpmlog_hcl_chunk_off(const gpmlog_geom *g, uint32_t slot, uint32_t c)
{
    uint64_t warp = slot / GPMLOG_WARP, lane = slot % GPMLOG_WARP;
    return g->data_off + warp * GPMLOG_WARP * g->slot_bytes + (uint64_t)c * GPMLOG_LINE +
           lane * 4u;
}

/* Conventional: the partition a thread appends to when it names none: its
 * block's (block % N_SLOTS), or, with more partitions than the grid's
 * BLOCKS, its warp's (global warp % N_SLOTS), so that partitions beyond one
 * a block still divide the contention. */
GPM_HD uint32_t gpmlog_conv_slot(uint32_t n_slots, uint32_t blocks, uint32_t warps_per_block,
                                 uint32_t block, uint32_t warp)
{
    if (n_slots <= blocks)
        return block % n_slots;
    return (uint32_t)(((uint64_t)block * warps_per_block + warp) % n_slots);
}

/* Conventional: the most threads of a BLOCKS x THREADS grid that append to
 * one of N_SLOTS partitions (gpmlog_conv_slot), for sizing the log. */
GPM_HD uint64_t gpmlog_conv_share(uint32_t n_slots, uint32_t blocks, uint32_t threads)
{
    uint64_t warps = (uint64_t)blocks * gpmlog_warps_per_block(threads);
    if (n_slots <= blocks)
        return ((uint64_t)blocks + n_slots - 1) / n_slots * threads;
    return (warps + n_slots - 1) / n_slots * (threads < GPMLOG_WARP ? threads : GPMLOG_WARP);
}

/* Conventional: byte offset in the file of byte POS of partition SLOT. */
GPM_HD uint64_t gpmlog_conv_off(const gpmlog_geom *g, uint32_t slot, uint32_t pos)
{
    return g->data_off + (uint64_t)slot * g->slot_bytes + pos;
}

GPM_HD uint64_t gpmlog_tail_off(const gpmlog_geom *g, uint32_t slot)
{
    return g->tails_off + (uint64_t)slot * 4u;
}

/* A tail recovery may trust: within the slot and a whole number of chunks. */
GPM_HD int gpmlog_tail_valid(const gpmlog_geom *g, uint32_t tail)
{
    return tail <= g->slot_bytes && tail % 4u == 0;
}

/* What the CPU flushes for an unfenced log: groups of slots whose used
 * bytes are one contiguous piece of the file. HCL: a warp, whose 32 lanes
 * stripe their chunks across shared 128-byte lines, so the used part is a
 * prefix of the warp's 32 * slot_bytes region, as long as its fullest
 * lane's entries. Conventional: a partition. */
GPM_HD uint32_t gpmlog_n_groups(const gpmlog_geom *g)
{
    return g->kind == GPMLOG_HCL ? g->n_slots / GPMLOG_WARP : g->n_slots;
}

/* Sets *OFF to where group I starts in the file and returns how many bytes
 * from there hold every entry its TAILS cover (0: none), rounded up to
 * whole 128-byte lines, which never leaves the group's region. TAILS are
 * the log's tails, already checked with gpmlog_tail_valid. */
GPM_HD uint64_t gpmlog_group_extent(const gpmlog_geom *g, const uint32_t *tails, uint32_t i,
                                    uint64_t *off)
{
    uint32_t max = 0;
    if (g->kind != GPMLOG_HCL) {
        *off = gpmlog_conv_off(g, i, 0);
        return gpmlog_round_up(tails[i], GPMLOG_LINE);
    }
    for (uint32_t l = 0; l < GPMLOG_WARP; l++)
        if (tails[i * GPMLOG_WARP + l] > max)
            max = tails[i * GPMLOG_WARP + l];
    *off = gpmlog_hcl_chunk_off(g, i * GPMLOG_WARP, 0);
    return (uint64_t)(max / 4u) * GPMLOG_LINE;
}

/* Copies the SIZE-byte entry that starts at byte POS of SLOT out of the log
 * image BASE (plain loads: the entry is complete, the tail says so). */
GPM_HD void gpmlog_copy_out(const gpmlog_geom *g, const uint8_t *base, uint32_t slot,
                            uint32_t pos, void *dst, uint32_t size)
{
    uint8_t *d = (uint8_t *)dst;
    for (uint32_t i = 0; i < size; i++) {
        uint32_t p = pos + i;
        uint64_t off = g->kind == GPMLOG_HCL ? gpmlog_hcl_chunk_off(g, slot, p / 4u) + p % 4u
                                             : gpmlog_conv_off(g, slot, p);
        d[i] = base[off];
    }
}

/* The 4-byte chunk K of a SIZE-byte entry at SRC, zero-padded at its end. */
GPM_HD uint32_t gpmlog_chunk_of(const void *src, uint32_t size, uint32_t k)
{
    const uint8_t *s = (const uint8_t *)src;
    uint32_t w = 0;
    for (uint32_t i = 0; i < 4u; i++) {
        uint32_t p = k * 4u + i;
        if (p < size)
            w |= (uint32_t)s[p] << (8u * i);
    }
    return w;
}

#endif
