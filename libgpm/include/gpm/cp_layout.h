/* On-PM layout of a checkpoint file, written once for the CPU (library,
 * tools, tests) and the GPU.
 *
 *   [header: 128 B][group table: groups x 128 B][element table: groups x
 *    elements x 16 B, padded to 128 B][data: per group, copy 0 then copy 1]
 *
 * The header is static: written once by gpmcp_create, checksummed, never
 * rewritten. Each group owns one 128-byte entry holding its flip word (the
 * consistent copy's index and the sequence number of the checkpoint it
 * holds, changed with one atomic 8-byte store) and its layout: where its two
 * copies start, their size, and how many elements it has; the element table
 * holds each element's size and offset inside a copy. A group's layout is
 * fixed at its first checkpoint and sealed by a checksum written after the
 * rest is durable, so a crash while it is being written leaves an entry
 * that is recognised as never allocated (its flip word is still 0).
 * Everything on PM is 128-byte aligned: one GPU cache line, one PCIe burst. */
#ifndef GPM_CP_LAYOUT_H
#define GPM_CP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "gpm/hd.h"

#define GPMCP_MAGIC 0x31544b43504d5047ull /* "GPMPCKT1" little-endian */
#define GPMCP_VERSION 1u
#define GPMCP_ALIGN 128ull
#define GPMCP_HEADER_BYTES 128ull
#define GPMCP_GROUP_BYTES 128ull
#define GPMCP_ELEM_BYTES 16ull
/* Bounds that keep every offset computation far from 64-bit overflow. */
#define GPMCP_MAX_GROUPS 4096u
#define GPMCP_MAX_ELEMENTS 4096u
#define GPMCP_MAX_CAPACITY (1ull << 46)

typedef struct gpmcp_header {
    uint64_t magic;
    uint32_t version;
    uint32_t header_bytes;
    uint64_t checksum;       /* of this header with this field zero */
    uint64_t capacity;       /* bytes of registered data the file can hold */
    uint32_t groups;
    uint32_t elements;       /* registrations per group, at most */
    uint64_t group_off;      /* group table */
    uint64_t elem_off;       /* element table */
    uint64_t data_off;       /* first group's copies */
    uint64_t data_bytes;     /* room for both copies of every group */
    uint64_t file_bytes;
    uint8_t pad[48];
} gpmcp_header;

typedef struct gpmcp_group {
    uint64_t flip;           /* (seq << 1) | consistent copy; 0: no checkpoint yet */
    uint64_t base;           /* file offset of copy 0; copy 1 follows it */
    uint64_t copy_bytes;     /* bytes of one copy (128-aligned) */
    uint64_t data_bytes;     /* registered bytes (sum of element sizes) */
    uint32_t nelem;
    uint32_t group;          /* its own index, so a misplaced entry is caught */
    uint64_t layout_sum;     /* seals the layout; 0: not allocated */
    uint8_t pad[80];
} gpmcp_group;

typedef struct gpmcp_elem {
    uint64_t size;           /* bytes registered */
    uint64_t offset;         /* inside a copy, 128-aligned */
} gpmcp_elem;

#ifdef __cplusplus
static_assert(sizeof(gpmcp_header) == GPMCP_HEADER_BYTES, "header is one 128-byte line");
static_assert(sizeof(gpmcp_group) == GPMCP_GROUP_BYTES, "group entry is one 128-byte line");
static_assert(sizeof(gpmcp_elem) == GPMCP_ELEM_BYTES, "element entry is 16 bytes");
#else
_Static_assert(sizeof(gpmcp_header) == GPMCP_HEADER_BYTES, "header is one 128-byte line");
_Static_assert(sizeof(gpmcp_group) == GPMCP_GROUP_BYTES, "group entry is one 128-byte line");
_Static_assert(sizeof(gpmcp_elem) == GPMCP_ELEM_BYTES, "element entry is 16 bytes");
#endif

GPM_HD uint64_t gpmcp_align(uint64_t x)
{
    return (x + GPMCP_ALIGN - 1) & ~(GPMCP_ALIGN - 1);
}

/* FNV-1a, 64-bit, over N bytes, continuing from H. */
GPM_HD uint64_t gpmcp_hash(uint64_t h, const void *p, uint64_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    for (uint64_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#define GPMCP_HASH_SEED 0xcbf29ce484222325ull

/* Checksum of a header: every byte, with the checksum field taken as zero.
 * Never 0, so a zeroed header can never look sealed. */
GPM_HD uint64_t gpmcp_header_sum(const gpmcp_header *h)
{
    gpmcp_header c = *h;
    c.checksum = 0;
    uint64_t s = gpmcp_hash(GPMCP_HASH_SEED, &c, sizeof c);
    return s ? s : 1;
}

GPM_HD uint64_t gpmcp_flip_word(uint64_t seq, uint32_t copy)
{
    return (seq << 1) | (copy & 1u);
}

GPM_HD uint64_t gpmcp_flip_seq(uint64_t flip) { return flip >> 1; }
GPM_HD uint32_t gpmcp_flip_copy(uint64_t flip) { return (uint32_t)(flip & 1u); }

/* The copy the next checkpoint writes: never the consistent one. */
GPM_HD uint32_t gpmcp_working_copy(uint64_t flip)
{
    return flip == 0 ? 0u : 1u - gpmcp_flip_copy(flip);
}

/* Geometry of a new file. Returns 0, or -1 when the arguments are out of
 * range (the caller words the error). Offsets are all 128-aligned; the
 * data area leaves room for each element's alignment padding, so any set of
 * registrations whose sizes sum to at most CAPACITY fits. */
GPM_HD int gpmcp_geometry(gpmcp_header *h, uint64_t capacity, uint32_t elements,
                          uint32_t groups)
{
    uint8_t *z = (uint8_t *)h;
    for (uint64_t i = 0; i < sizeof *h; i++)
        z[i] = 0;
    if (capacity == 0 || capacity > GPMCP_MAX_CAPACITY || elements == 0 ||
        elements > GPMCP_MAX_ELEMENTS || groups == 0 || groups > GPMCP_MAX_GROUPS)
        return -1;
    h->magic = GPMCP_MAGIC;
    h->version = GPMCP_VERSION;
    h->header_bytes = (uint32_t)GPMCP_HEADER_BYTES;
    h->capacity = capacity;
    h->groups = groups;
    h->elements = elements;
    h->group_off = GPMCP_HEADER_BYTES;
    h->elem_off = h->group_off + (uint64_t)groups * GPMCP_GROUP_BYTES;
    h->data_off = gpmcp_align(h->elem_off + (uint64_t)groups * elements * GPMCP_ELEM_BYTES);
    h->data_bytes = 2 * (gpmcp_align(capacity) + (uint64_t)groups * elements * GPMCP_ALIGN);
    h->file_bytes = h->data_off + h->data_bytes;
    h->checksum = gpmcp_header_sum(h);
    return 0;
}

/* What is wrong with a header read from a file of FILE_BYTES bytes. */
typedef enum gpmcp_header_fault {
    GPMCP_HEADER_OK = 0,
    GPMCP_HEADER_TOO_SMALL,  /* file shorter than a header */
    GPMCP_HEADER_MAGIC,      /* not a checkpoint file */
    GPMCP_HEADER_VERSION,    /* another format version */
    GPMCP_HEADER_CHECKSUM,   /* corrupt */
    GPMCP_HEADER_GEOMETRY,   /* sums, but describes another file */
    GPMCP_HEADER_FILE_SIZE   /* file truncated or extended */
} gpmcp_header_fault;

GPM_HD gpmcp_header_fault gpmcp_header_check(const gpmcp_header *h, uint64_t file_bytes)
{
    gpmcp_header g;
    if (file_bytes < GPMCP_HEADER_BYTES)
        return GPMCP_HEADER_TOO_SMALL;
    if (h->magic != GPMCP_MAGIC)
        return GPMCP_HEADER_MAGIC;
    if (h->version != GPMCP_VERSION)
        return GPMCP_HEADER_VERSION;
    if (h->checksum != gpmcp_header_sum(h))
        return GPMCP_HEADER_CHECKSUM;
    /* Recompute the geometry from the arguments it was made with. */
    if (gpmcp_geometry(&g, h->capacity, h->elements, h->groups) != 0 ||
        g.header_bytes != h->header_bytes || g.group_off != h->group_off ||
        g.elem_off != h->elem_off || g.data_off != h->data_off ||
        g.data_bytes != h->data_bytes || g.file_bytes != h->file_bytes)
        return GPMCP_HEADER_GEOMETRY;
    for (uint64_t i = 0; i < sizeof h->pad; i++)
        if (h->pad[i] != 0)
            return GPMCP_HEADER_GEOMETRY;
    if (h->file_bytes != file_bytes)
        return GPMCP_HEADER_FILE_SIZE;
    return GPMCP_HEADER_OK;
}

GPM_HD const char *gpmcp_header_fault_str(gpmcp_header_fault f)
{
    switch (f) {
    case GPMCP_HEADER_OK: return "valid";
    case GPMCP_HEADER_TOO_SMALL: return "shorter than a checkpoint header";
    case GPMCP_HEADER_MAGIC: return "not a checkpoint file (bad magic)";
    case GPMCP_HEADER_VERSION: return "checkpoint format of another version";
    case GPMCP_HEADER_CHECKSUM: return "corrupt checkpoint header (checksum mismatch)";
    case GPMCP_HEADER_GEOMETRY: return "inconsistent checkpoint geometry";
    default: return "file size differs from the size its header records";
    }
}

/* Locations inside a mapped file (BASE: its first byte). */
GPM_HD gpmcp_group *gpmcp_group_at(void *base, const gpmcp_header *h, uint32_t g)
{
    return (gpmcp_group *)((uint8_t *)base + h->group_off + (uint64_t)g * GPMCP_GROUP_BYTES);
}

GPM_HD gpmcp_elem *gpmcp_elems_of(void *base, const gpmcp_header *h, uint32_t g)
{
    return (gpmcp_elem *)((uint8_t *)base + h->elem_off +
                          (uint64_t)g * h->elements * GPMCP_ELEM_BYTES);
}

/* File offset of element E of group G in copy C. */
GPM_HD uint64_t gpmcp_elem_file_off(const gpmcp_group *g, const gpmcp_elem *e, uint32_t c)
{
    return g->base + (uint64_t)(c & 1u) * g->copy_bytes + e->offset;
}

/* The checksum that seals a group's layout: its fields (not the flip word)
 * and its element rows. Never 0. */
GPM_HD uint64_t gpmcp_layout_sum(const gpmcp_group *g, const gpmcp_elem *elems)
{
    uint64_t s = GPMCP_HASH_SEED;
    s = gpmcp_hash(s, &g->base, sizeof g->base);
    s = gpmcp_hash(s, &g->copy_bytes, sizeof g->copy_bytes);
    s = gpmcp_hash(s, &g->data_bytes, sizeof g->data_bytes);
    s = gpmcp_hash(s, &g->nelem, sizeof g->nelem);
    s = gpmcp_hash(s, &g->group, sizeof g->group);
    s = gpmcp_hash(s, elems, (uint64_t)g->nelem * GPMCP_ELEM_BYTES);
    return s ? s : 1;
}

/* Lays out group G's NELEM elements of SIZES at file offset BASE (writes
 * the group entry and element rows, not the seal nor the flip word).
 * Returns the bytes both copies take, 0 if NELEM is out of range. */
GPM_HD uint64_t gpmcp_layout_group(gpmcp_group *g, gpmcp_elem *elems, uint32_t group,
                                   uint64_t base, const uint64_t *sizes, uint32_t nelem,
                                   uint32_t max_elems)
{
    uint64_t off = 0, data = 0;
    if (nelem == 0 || nelem > max_elems)
        return 0;
    for (uint32_t i = 0; i < nelem; i++) {
        elems[i].size = sizes[i];
        elems[i].offset = off;
        off += gpmcp_align(sizes[i]);
        data += sizes[i];
    }
    g->base = base;
    g->copy_bytes = off;
    g->data_bytes = data;
    g->nelem = nelem;
    g->group = group;
    return 2 * off;
}

/* State of a group entry as read from PM. */
typedef enum gpmcp_group_state {
    GPMCP_GROUP_EMPTY = 0,   /* no layout yet (or one torn before its seal) */
    GPMCP_GROUP_LAID_OUT,    /* layout sealed, no checkpoint completed */
    GPMCP_GROUP_CHECKPOINTED,/* layout sealed, consistent copy valid */
    GPMCP_GROUP_CORRUPT      /* a checkpoint exists but its layout does not verify */
} gpmcp_group_state;

/* Classifies group G: the seal must verify and the layout must lie inside
 * the data area with elements in order, 128-aligned and non-overlapping. */
GPM_HD gpmcp_group_state gpmcp_group_check(const gpmcp_header *h, const gpmcp_group *g,
                                           const gpmcp_elem *elems, uint32_t group)
{
    int sealed = g->layout_sum != 0 && g->nelem >= 1 && g->nelem <= h->elements &&
                 g->layout_sum == gpmcp_layout_sum(g, elems);
    if (sealed) {
        uint64_t off = 0, data = 0;
        sealed = g->group == group && g->base >= h->data_off && g->base % GPMCP_ALIGN == 0 &&
                 2 * g->copy_bytes <= h->data_bytes &&
                 g->base - h->data_off <= h->data_bytes - 2 * g->copy_bytes;
        for (uint32_t i = 0; sealed && i < g->nelem; i++) {
            sealed = elems[i].offset == off && elems[i].size > 0 &&
                     elems[i].size <= h->capacity;
            off += gpmcp_align(elems[i].size);
            data += elems[i].size;
        }
        sealed = sealed && off == g->copy_bytes && data == g->data_bytes &&
                 data <= h->capacity;
    }
    if (sealed)
        return g->flip == 0 ? GPMCP_GROUP_LAID_OUT : GPMCP_GROUP_CHECKPOINTED;
    /* Only a crash before the first checkpoint can leave an unsealed layout. */
    return g->flip == 0 ? GPMCP_GROUP_EMPTY : GPMCP_GROUP_CORRUPT;
}

/* Whether two sealed groups' copies share a byte (a corrupt table). */
GPM_HD int gpmcp_groups_overlap(const gpmcp_group *a, const gpmcp_group *b)
{
    return a->base < b->base + 2 * b->copy_bytes && b->base < a->base + 2 * a->copy_bytes;
}

#endif
