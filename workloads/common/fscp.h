/* The CAP-fs twin of a gpmcp checkpoint file: the same double-buffered,
 * header-sealed discipline written with pwrite + fsync.
 *
 *   [slot 0: 4 KiB][slot 1: 4 KiB][copy 0][copy 1]
 *
 * Slot k describes copy k: magic, buffer sizes, the sequence number of the
 * checkpoint copy k holds, and a checksum of the slot. A checkpoint writes
 * the buffers into the copy whose slot has the lower sequence number, fsyncs,
 * then rewrites that slot with the next sequence number and fsyncs. Restore
 * takes the valid slot with the higher sequence number: a crash while the
 * copy or its slot is written leaves the other copy as the last consistent
 * checkpoint (a torn slot fails its checksum). */
#ifndef WL_FSCP_H
#define WL_FSCP_H

#include <stddef.h>
#include <stdint.h>

#define WL_FSCP_MAGIC 0x31504353464d5047ull /* "GPMFSCP1" */
#define WL_FSCP_SLOT 4096u
#define WL_FSCP_MAX_BUF 32
#define WL_FSCP_ALIGN 128u

struct wl_fscp_slot {
    uint64_t magic;
    uint64_t seq;            /* 0: this copy holds no checkpoint */
    uint64_t nbuf;
    uint64_t copy_bytes;
    uint64_t size[WL_FSCP_MAX_BUF];
    uint64_t checksum;       /* FNV-1a of the slot with this field zero */
};

static inline uint64_t wl_fscp_sum(const struct wl_fscp_slot *s)
{
    struct wl_fscp_slot c = *s;
    const unsigned char *p = (const unsigned char *)&c;
    uint64_t h = 0xcbf29ce484222325ull;
    c.checksum = 0;
    for (size_t i = 0; i < sizeof c; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static inline size_t wl_fscp_align(size_t x) { return (x + WL_FSCP_ALIGN - 1) & ~(size_t)(WL_FSCP_ALIGN - 1); }

/* Bytes of one copy for NBUF buffers of SIZE[i] (each 128-aligned). */
static inline size_t wl_fscp_copy_bytes(const size_t *size, int nbuf)
{
    size_t n = 0;
    for (int i = 0; i < nbuf; i++)
        n += wl_fscp_align(size[i]);
    return n;
}

static inline size_t wl_fscp_copy_off(size_t copy_bytes, int copy)
{
    return 2 * (size_t)WL_FSCP_SLOT + (size_t)copy * copy_bytes;
}

/* 1 if slot S is sealed and describes NBUF buffers of SIZE[i]. */
static inline int wl_fscp_slot_valid(const struct wl_fscp_slot *s, const size_t *size, int nbuf)
{
    if (s->magic != WL_FSCP_MAGIC || s->checksum != wl_fscp_sum(s) || s->nbuf != (uint64_t)nbuf ||
        s->copy_bytes != wl_fscp_copy_bytes(size, nbuf))
        return 0;
    for (int i = 0; i < nbuf; i++)
        if (s->size[i] != size[i])
            return 0;
    return 1;
}

/* The copy holding the last consistent checkpoint (-1: none), given which
 * slots are valid and their sequence numbers. */
static inline int wl_fscp_consistent(int valid0, uint64_t seq0, int valid1, uint64_t seq1)
{
    if (valid0 && seq0 == 0)
        valid0 = 0;
    if (valid1 && seq1 == 0)
        valid1 = 0;
    if (valid0 && valid1)
        return seq1 > seq0 ? 1 : 0;
    return valid0 ? 0 : valid1 ? 1 : -1;
}

#endif
