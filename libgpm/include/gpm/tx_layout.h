/* Transactions on an undo log, the parts both sides run (GPM_HD: written
 * once, compiled by gcc for the CPU recovery and tests and by nvcc for the
 * kernels): the transaction word, the undo record and its check, and the
 * per-slot recovery steps.
 *
 * The transaction word (8 bytes at GPMLOG_TX_OFF of the log file) is
 *   (committed << 1) | active
 * where committed counts committed transactions and, with the low bit set,
 * transaction committed + 1 is under way.
 *
 * An undo record is one log entry:
 *   [old bytes, zero-padded to a multiple of 4][footer, 16 bytes]
 *   footer = {uint64 offset in the target, uint32 length, uint32 check}
 * Recovery reads the footer just below the tail first, then the payload
 * below it, so records of any length follow each other in a slot. The check
 * covers the offset, the length and every payload word: a record that a
 * torn write or stray bytes produced fails it. */
#ifndef GPM_TX_LAYOUT_H
#define GPM_TX_LAYOUT_H

#include <stdint.h>

#include "gpm/hd.h"
#include "gpm/log_layout.h"

#define GPMTX_FOOTER_BYTES 16u
#define GPMTX_RECORD_MAGIC 0x43455258544d5047ull /* "GPMTXREC" little-endian */
/* Longest old value one record holds (a record must fit a 32-bit tail). */
#define GPMTX_MAX_LEN 0xffffff00u

GPM_HD uint64_t gpmtx_word(uint64_t committed, int active)
{
    return committed << 1 | (active ? 1u : 0u);
}

GPM_HD uint64_t gpmtx_word_committed(uint64_t w)
{
    return w >> 1;
}

GPM_HD int gpmtx_word_active(uint64_t w)
{
    return (int)(w & 1u);
}

/* Bytes a record of a LEN-byte old value takes in its slot. */
GPM_HD uint32_t gpmtx_record_bytes(uint32_t len)
{
    return gpmlog_round4(len) + GPMTX_FOOTER_BYTES;
}

/* The check, fed the payload one 4-byte word at a time. */
GPM_HD uint64_t gpmtx_check_begin(uint64_t off, uint32_t len)
{
    return gpm_mix64(gpm_mix64(GPMTX_RECORD_MAGIC ^ off) ^ len);
}

GPM_HD uint64_t gpmtx_check_step(uint64_t h, uint32_t w)
{
    return gpm_mix64(h ^ w);
}

GPM_HD uint32_t gpmtx_check_end(uint64_t h)
{
    return (uint32_t)(h ^ (h >> 32));
}

/* Word K of a LEN-byte old value at OLD, zero-padded; one 4-byte load where
 * OLD is aligned (old values are often read straight from PM). */
GPM_HD uint32_t gpmtx_old_word(const void *old, uint32_t len, uint32_t k)
{
    const uint8_t *p = (const uint8_t *)old + 4u * k;
    if (((uintptr_t)p & 3u) == 0 && 4u * k + 4u <= len)
        return *(const uint32_t *)p;
    return gpmlog_chunk_of(old, len, k);
}

GPM_HD uint32_t gpmtx_check_of(uint64_t off, const void *old, uint32_t len)
{
    uint64_t h = gpmtx_check_begin(off, len);
    for (uint32_t k = 0; k < gpmlog_round4(len) / 4u; k++)
        h = gpmtx_check_step(h, gpmtx_old_word(old, len, k));
    return gpmtx_check_end(h);
}

/* Word K (0..3) of the footer. */
GPM_HD uint32_t gpmtx_footer_word(uint64_t off, uint32_t len, uint32_t check, uint32_t k)
{
    return k == 0 ? (uint32_t)off : k == 1 ? (uint32_t)(off >> 32) : k == 2 ? len : check;
}

/* The 4-byte word at byte POS (a multiple of 4) of SLOT in the log image
 * BASE, whichever the log's kind. */
GPM_HD uint32_t gpmtx_log_word(const gpmlog_geom *g, const uint8_t *base, uint32_t slot,
                               uint32_t pos)
{
    uint64_t off = g->kind == GPMLOG_HCL ? gpmlog_hcl_chunk_off(g, slot, pos / 4u)
                                         : gpmlog_conv_off(g, slot, pos);
    return *(const uint32_t *)(base + off);
}

/* Why a record was refused (0: sound). */
enum gpmtx_rec_check {
    GPMTX_REC_OK = 0,
    GPMTX_REC_SHORT,   /* fewer bytes below the tail than the smallest record */
    GPMTX_REC_LENGTH,  /* length 0, or longer than the bytes below its footer */
    GPMTX_REC_CHECK,   /* footer and payload disagree with the check */
    GPMTX_REC_TARGET   /* sound, but outside the target region */
};

/* The newest record of a slot. */
typedef struct gpmtx_rec {
    uint64_t off;    /* where its old bytes go in the target */
    uint32_t len;    /* how many */
    uint32_t start;  /* byte of the slot where it begins: the tail once it is removed */
} gpmtx_rec;

/* Reads and checks the record that ends at byte TAIL of SLOT, for a target
 * of TARGET_SIZE bytes. Reads only. */
GPM_HD int gpmtx_rec_parse(const gpmlog_geom *g, const uint8_t *base, uint32_t slot,
                           uint32_t tail, uint64_t target_size, gpmtx_rec *r)
{
    uint64_t off, h;
    uint32_t len, check, n;
    if (tail < GPMTX_FOOTER_BYTES + 4u)
        return GPMTX_REC_SHORT;
    off = gpmtx_log_word(g, base, slot, tail - 16u) |
          (uint64_t)gpmtx_log_word(g, base, slot, tail - 12u) << 32;
    len = gpmtx_log_word(g, base, slot, tail - 8u);
    check = gpmtx_log_word(g, base, slot, tail - 4u);
    if (len == 0 || len > GPMTX_MAX_LEN || gpmlog_round4(len) > tail - GPMTX_FOOTER_BYTES)
        return GPMTX_REC_LENGTH;
    n = gpmlog_round4(len);
    r->start = tail - GPMTX_FOOTER_BYTES - n;
    h = gpmtx_check_begin(off, len);
    for (uint32_t k = 0; k < n / 4u; k++)
        h = gpmtx_check_step(h, gpmtx_log_word(g, base, slot, r->start + 4u * k));
    if (gpmtx_check_end(h) != check)
        return GPMTX_REC_CHECK;
    r->off = off;
    r->len = len;
    if (len > target_size || off > target_size - len)
        return GPMTX_REC_TARGET;
    return GPMTX_REC_OK;
}

/* Checks every record of a slot whose tail is TAIL, newest first, writing
 * nothing. Returns the first refusal (0: all sound); *AT gets the tail at
 * which it happened and *R that record's fields as far as they were read. */
GPM_HD int gpmtx_slot_check(const gpmlog_geom *g, const uint8_t *base, uint32_t slot,
                            uint32_t tail, uint64_t target_size, uint32_t *at, gpmtx_rec *r)
{
    while (tail > 0) {
        int e = gpmtx_rec_parse(g, base, slot, tail, target_size, r);
        if (e != GPMTX_REC_OK) {
            *at = tail;
            return e;
        }
        tail = r->start;
    }
    return GPMTX_REC_OK;
}

/* Writes record R's old bytes back into TARGET with plain stores (the
 * caller persists them, then removes the record): whole words where the
 * destination is aligned. */
GPM_HD void gpmtx_rec_undo(const gpmlog_geom *g, const uint8_t *base, uint32_t slot,
                           const gpmtx_rec *r, uint8_t *target)
{
    uint8_t *d = target + r->off;
    for (uint32_t k = 0; k < gpmlog_round4(r->len) / 4u; k++) {
        uint32_t w = gpmtx_log_word(g, base, slot, r->start + 4u * k);
        if (((uintptr_t)(d + 4u * k) & 3u) == 0 && 4u * k + 4u <= r->len) {
            *(uint32_t *)(d + 4u * k) = w;
            continue;
        }
        for (uint32_t i = 0; i < 4u && 4u * k + i < r->len; i++)
            d[4u * k + i] = (uint8_t)(w >> (8u * i));
    }
}

#endif
