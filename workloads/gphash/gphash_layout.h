/* GPHash's PM layout, its hashing and the one-key state machine that the
 * kernels, the CPU counterpart, the reference and the CPU tests share.
 *
 *   [header 4 KiB][record: slots x (head + 2 cells)]
 *   record S: [state: u64][ref: u64][key: kw x u64][pad to 16 bytes][cell 2S][cell 2S + 1]
 *
 * Buckets: TOP buckets in the top level, TOP / 2 in the level below (top
 * bucket b shares bucket TOP + b / 2 with its neighbour), SLOTS slots each.
 * A key hashes to two top buckets; with the two they share below, its four
 * candidate buckets hold 4 x SLOTS slots, one lane of a warp each (8 slots:
 * the whole warp, the paper's one-shot warp access).
 *
 * Slot S is one record: its state (EMPTY, INSERT: claimed by a CAS, its key
 * and value being written, or the key's fingerprint: a valid item), its
 * reference, the key in place (8 bytes, or 32: YCSB's record name) and two
 * value cells; the reference names the cell that holds the value, 2S or
 * 2S + 1. An update writes the other cell and then swings the reference, so
 * a crash leaves the old value or the new one, never a torn one. What an
 * insert writes before its fingerprint (reference, key, first cell) is one
 * run of bytes beside it: the insert leaves the GPU as one burst and a
 * fingerprint, both in the record's pages. Offsets only: the file maps at
 * any address. */
#ifndef GPHASH_LAYOUT_H
#define GPHASH_LAYOUT_H

#include <stdint.h>

#include "gpm/hd.h"

#define GPH_EMPTY 0ull  /* reserved fingerprints: a free slot, */
#define GPH_INSERT 1ull /* and one claimed by an insert that has not finished */
#define GPH_CANDIDATES 4u
#define GPH_HEADER 4096u
#define GPH_MAGIC 0x4850484750484750ull /* "GPHGPHGP" */
#define GPH_NO_BUCKET (~0ull)

struct gph_geom {
    uint64_t top;    /* top-level buckets, a power of two */
    uint32_t slots;  /* per bucket: 2, 4 or 8 */
    uint32_t kw;     /* 8-byte words of a key: 1 or 4 */
    uint32_t vbytes; /* bytes of a value: a multiple of 8, 8 to 128 */
};

/* The header's first words: what the file holds, and how many batches of
 * the run of EPOCH are durable (epoch in the high half, so that an older
 * run's count never counts). */
struct gph_header {
    uint64_t magic, top;
    uint32_t slots, kw, vbytes, pad;
    uint64_t done; /* (epoch << 32) | batches */
};

GPM_HD uint64_t gph_align(uint64_t x) { return (x + 127u) & ~(uint64_t)127u; }
GPM_HD uint64_t gph_buckets(const struct gph_geom *g) { return g->top + g->top / 2; }
GPM_HD uint64_t gph_slots(const struct gph_geom *g) { return gph_buckets(g) * g->slots; }
/* A record's head (state, ref and key) and whole size: 16-byte multiples,
 * so the first cell and the next record start 16-byte aligned. */
GPM_HD uint64_t gph_head_bytes(const struct gph_geom *g) { return (16u + 8u * g->kw + 15u) & ~15u; }
GPM_HD uint64_t gph_rec_bytes(const struct gph_geom *g)
{
    return gph_head_bytes(g) + 2u * (uint64_t)g->vbytes;
}
/* Where slot S's state, ref and key are, and cell C (2S or 2S + 1). */
GPM_HD uint64_t gph_state_at(const struct gph_geom *g, uint64_t s)
{
    return GPH_HEADER + s * gph_rec_bytes(g);
}
GPM_HD uint64_t gph_ref_at(const struct gph_geom *g, uint64_t s) { return gph_state_at(g, s) + 8; }
GPM_HD uint64_t gph_key_at(const struct gph_geom *g, uint64_t s) { return gph_state_at(g, s) + 16; }
GPM_HD uint64_t gph_cell_at(const struct gph_geom *g, uint64_t c)
{
    return gph_state_at(g, c / 2) + gph_head_bytes(g) + (c & 1) * (uint64_t)g->vbytes;
}
GPM_HD uint64_t gph_file_bytes(const struct gph_geom *g)
{
    return GPH_HEADER + gph_align(gph_slots(g) * gph_rec_bytes(g));
}
/* The 8-byte word at byte OFF of the table at BASE. */
GPM_HD uint64_t *gph_word(const void *base, uint64_t off)
{
    return (uint64_t *)((const char *)base + off);
}

GPM_HD uint64_t gph_done_word(uint32_t epoch, uint64_t batches)
{
    return (uint64_t)epoch << 32 | (batches & 0xffffffffull);
}
GPM_HD uint64_t gph_durable_batches(uint64_t word, uint32_t epoch)
{
    return (uint32_t)(word >> 32) == epoch ? (word & 0xffffffffull) : 0;
}

/* The hash of a key of KW words with SEED: the fingerprint (SEED 0) and
 * the two top buckets (1, 2) come from independent seeds. */
GPM_HD uint64_t gph_hash(const uint64_t *key, uint32_t kw, uint64_t seed)
{
    uint64_t h = gpm_mix64(seed * 0x9e3779b97f4a7c15ull + 0x6a09e667f3bcc909ull);
    for (uint32_t i = 0; i < kw; i++)
        h = gpm_mix64(h ^ key[i]) + i;
    return h;
}
GPM_HD uint64_t gph_fingerprint(const uint64_t *key, uint32_t kw)
{
    uint64_t h = gph_hash(key, kw, 0);
    return h <= GPH_INSERT ? h + 2 : h;
}

/* Candidate C (0..3) of a key whose top buckets are B1 and B2: the two top
 * buckets, then the two they share below; GPH_NO_BUCKET where it repeats an
 * earlier candidate (both hashes in one bucket). */
GPM_HD uint64_t gph_candidate(const struct gph_geom *g, uint64_t b1, uint64_t b2, uint32_t c)
{
    switch (c) {
    case 0: return b1;
    case 1: return b2 == b1 ? GPH_NO_BUCKET : b2;
    case 2: return g->top + b1 / 2;
    default: return b2 / 2 == b1 / 2 ? GPH_NO_BUCKET : g->top + b2 / 2;
    }
}
GPM_HD uint64_t gph_top(const struct gph_geom *g, const uint64_t *key, uint32_t which)
{
    return gph_hash(key, g->kw, which) & (g->top - 1);
}

/* A key's words from YCSB's 8-byte key K: K itself, or its record name
 * "user<digits>" NUL-padded to 32 bytes (ycsb.h), little-endian words. */
GPM_HD void gph_key_words(uint64_t k, uint32_t kw, uint64_t *out)
{
    char d[24];
    int n = 0;
    if (kw == 1) {
        out[0] = k;
        return;
    }
    do {
        d[n++] = (char)('0' + k % 10);
        k /= 10;
    } while (k);
    {
        unsigned char b[32] = {'u', 's', 'e', 'r'};
        for (int i = 0; i < n; i++)
            b[4 + i] = (unsigned char)d[n - 1 - i];
        for (int i = 4 + n; i < 32; i++)
            b[i] = 0;
        for (uint32_t w = 0; w < 4; w++) {
            uint64_t v = 0;
            for (int i = 7; i >= 0; i--)
                v = v << 8 | b[w * 8 + (uint32_t)i];
            out[w] = v;
        }
    }
}

/* The value an insert or update with sequence number SEQ (its place in the
 * stream, from 1) writes for a key whose value hash is VK (gph_value_key):
 * word 0 is SEQ, the rest a hash of VK, SEQ and the word, so a torn or
 * misplaced value never passes. */
GPM_HD uint64_t gph_value_key(const uint64_t *key, uint32_t kw) { return gph_hash(key, kw, 3); }
GPM_HD uint64_t gph_value_word(uint64_t vk, uint64_t seq, uint32_t w)
{
    return w == 0 ? seq : gpm_mix64(vk * 0xd6e8feb86659fd93ull ^ (seq << 8 | w));
}
/* What a read answers: the value's words folded (0 for no value). */
GPM_HD uint64_t gph_fold(uint64_t acc, uint64_t word, uint32_t w)
{
    return acc + gpm_mix64(word + w);
}
GPM_HD uint64_t gph_value_sum(uint64_t vk, uint64_t seq, uint32_t vbytes)
{
    uint64_t s = 0;
    if (seq == 0)
        return 0;
    for (uint32_t w = 0; w < vbytes / 8; w++)
        s = gph_fold(s, gph_value_word(vk, seq, w), w);
    return s;
}

/* The operations (ycsb.h's order), and one step of a key's state: CUR is
 * the sequence number of its value, 0 when absent. A read answers CUR as it
 * is (returned); an update changes a present key; an insert sets it (an
 * insert of a present key updates it, so that a batch redone after a crash
 * ends as it first would have); a read-modify-write reads, then updates; a
 * delete removes it. */
enum { GPH_READ, GPH_UPDATE, GPH_INSERT_OP, GPH_RMW, GPH_DELETE };
GPM_HD uint64_t gph_step(uint32_t op, uint64_t seq, uint64_t *cur)
{
    uint64_t before = *cur;
    if (op == GPH_INSERT_OP || ((op == GPH_UPDATE || op == GPH_RMW) && before))
        *cur = seq;
    else if (op == GPH_DELETE)
        *cur = 0;
    return before;
}
GPM_HD int gph_answers(uint32_t op) { return op == GPH_READ || op == GPH_RMW; }

/* An operation's step as a function of CUR, which composes: KEEP (a read),
 * SET v (an insert; a delete sets 0) or IF v (an update, a read-modify-
 * write: v where the key is present). Any run of steps is one of the
 * three, so a warp finds what each of 32 operations met by a scan in five
 * rounds of shuffles, not one step after another. */
enum { GPH_KEEP, GPH_SET, GPH_IF };
struct gph_fn {
    uint64_t v;
    uint32_t kind;
};
GPM_HD struct gph_fn gph_fn_of(uint32_t op, uint64_t seq)
{
    struct gph_fn f = {0, GPH_KEEP};
    if (op == GPH_INSERT_OP || op == GPH_DELETE)
        f.kind = GPH_SET, f.v = op == GPH_DELETE ? 0 : seq;
    else if (op == GPH_UPDATE || op == GPH_RMW)
        f.kind = GPH_IF, f.v = seq;
    return f;
}
/* A, then B. */
GPM_HD struct gph_fn gph_then(struct gph_fn a, struct gph_fn b)
{
    if (b.kind == GPH_KEEP)
        return a;
    if (b.kind == GPH_IF && a.kind == GPH_SET)
        b.kind = GPH_SET, b.v = a.v ? b.v : 0;
    return b;
}
GPM_HD uint64_t gph_apply(struct gph_fn f, uint64_t cur)
{
    return f.kind == GPH_KEEP ? cur : f.kind == GPH_SET ? f.v : cur ? f.v : 0;
}

#endif
