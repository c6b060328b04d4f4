/* Transactions on undo logs without a GPU: the transaction word, begin and
 * commit, and recovery on the CPU through the same GPM_HD steps the
 * recovery kernel runs, including recoveries that were themselves
 * interrupted, commits whose truncate did not happen, damaged records and
 * files written before transactions existed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/tx.h"

#define TARGET_BYTES (64 * 1024)
#define OWNER_BYTES 256 /* each such piece of the target is logged by one slot */

static uint8_t *slurp(const char *name, size_t *n)
{
    char full[4096];
    gpm_resolve_path(name, full, sizeof full);
    return check_read_file(full, n);
}

static uint64_t raw_word(const gpmlog *log)
{
    uint64_t w;
    memcpy(&w, (const uint8_t *)log->region.host + GPMLOG_TX_OFF, sizeof w);
    return w;
}

static void set_raw_word(gpmlog *log, uint64_t w)
{
    memcpy((uint8_t *)log->region.host + GPMLOG_TX_OFF, &w, sizeof w);
}

static int make_log(gpmlog *log, const char *name, int hcl)
{
    return hcl ? gpmlog_create_hcl(log, name, 512 * 1024, 3, 40, GPM_HOST_ONLY)
               : gpmlog_create_conv(log, name, 512 * 1024, 7, GPM_HOST_ONLY);
}

static int make_target(gpm_region *r, const char *name)
{
    if (gpm_map(r, name, TARGET_BYTES, GPM_CREATE | GPM_HOST_ONLY) != 0)
        return -1;
    for (size_t i = 0; i < r->size; i++)
        ((uint8_t *)r->host)[i] = (uint8_t)check_rand();
    return gpm_region_persist(r, r->host, r->size);
}

/* The slot that logs every location of piece P of the target: a location
 * is always logged by the same slot, the rule recovery relies on. Padding
 * lanes of HCL warps count as slots too. */
static uint32_t owner(const gpmlog *log, uint64_t off)
{
    return (uint32_t)(gpm_mix64(off / OWNER_BYTES) % log->g.n_slots);
}

/* What a transaction's kernels do, on the CPU: N records at random places
 * (overlapping and unaligned ones included), each old value logged before
 * the new bytes are stored and persisted. Returns the records logged, or
 * -1 with the case failed. */
static long updates(gpmlog *log, gpm_region *t, int n)
{
    uint8_t *d = t->host;
    long done = 0;
    for (int i = 0; i < n; i++) {
        uint64_t piece = check_rand() % (TARGET_BYTES / OWNER_BYTES);
        uint32_t len = 1 + (uint32_t)(check_rand() % 64);
        uint64_t off = piece * OWNER_BYTES + check_rand() % (OWNER_BYTES - len + 1);
        if (gpmtx_host_log_undo(log, owner(log, off), off, d + off, len) != 0)
            return -1;
        for (uint32_t k = 0; k < len; k++)
            d[off + k] = (uint8_t)check_rand();
        if (gpm_region_persist(t, d + off, len) != 0)
            return -1;
        done++;
    }
    return done;
}

static int log_empty(const gpmlog *log)
{
    for (uint32_t s = 0; s < log->g.n_slots; s++)
        if (gpmlog_tail(log, s) != 0)
            return 0;
    return 1;
}

static void word_encodes_committed_and_active(void)
{
    const uint64_t counts[] = {0, 1, 2, 12345, (1ull << 62) - 1};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        for (int a = 0; a < 2; a++) {
            uint64_t w = gpmtx_word(counts[i], a);
            CHECK(w == (counts[i] << 1 | (uint64_t)a));
            CHECK(gpmtx_word_committed(w) == counts[i]);
            CHECK_EQ_INT(gpmtx_word_active(w), a);
        }
    CHECK(gpmtx_word(3, 7) == 7); /* any nonzero ACTIVE is one bit */
    CHECK_EQ_INT(GPMLOG_TX_OFF % 128, 0);
    CHECK(GPMLOG_TX_OFF >= sizeof(gpmlog_header) && GPMLOG_TX_OFF + 8 <= GPMLOG_HEADER_BYTES);
}

static void begin_and_commit_count_transactions(void)
{
    gpmlog log;
    uint32_t v = 42;
    uint8_t hdr[GPMLOG_TX_OFF];
    CHECKF(make_log(&log, "tx-count", 1) == 0, "%s", gpm_last_error());
    memcpy(hdr, log.region.host, sizeof hdr);
    CHECK(gpmtx_committed(&log) == 0 && !gpmtx_active(&log) && raw_word(&log) == 0);
    CHECK(gpmtx_commit(&log) == -1);
    CHECK_MSG(gpm_last_error(), "no transaction is active");
    for (uint64_t t = 0; t < 5; t++) {
        CHECKF(gpmtx_begin(&log) == 0, "%s", gpm_last_error());
        CHECK(raw_word(&log) == (t << 1 | 1));
        CHECK(gpmtx_active(&log) && gpmtx_committed(&log) == t);
        CHECK(gpmtx_begin(&log) == -1);
        CHECK_MSG(gpm_last_error(), "tx-count");
        CHECK_MSG(gpm_last_error(), "gpmtx_recover");
        CHECK(gpmtx_host_log_undo(&log, 5, 0, &v, 4) == 0);
        CHECK(gpmtx_host_log_undo(&log, 70, 8, &v, 3) == 0);
        CHECK_EQ_INT(gpmlog_tail(&log, 5), 20);
        CHECKF(gpmtx_commit(&log) == 0, "%s", gpm_last_error());
        CHECK(raw_word(&log) == (t + 1) << 1);
        CHECK(log_empty(&log));
    }
    /* the word lives outside the header: its bytes never changed */
    CHECK(memcmp(hdr, log.region.host, sizeof hdr) == 0);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "tx-count", GPM_HOST_ONLY) == 0);
    CHECK(gpmtx_committed(&log) == 5 && !gpmtx_active(&log));
    gpmlog_close(&log);
}

/* A reopened log may hold entries no transaction owns (a commit whose
 * truncate did not happen): begin waits for a recovery or a reset. */
static void reopened_log_needs_recovery_before_begin(void)
{
    gpmlog log;
    gpm_region t;
    uint32_t v = 1;
    CHECK(make_log(&log, "tx-reopen", 0) == 0);
    CHECK(make_target(&t, "tx-reopen-t") == 0);
    CHECK(gpmtx_begin(&log) == 0 && gpmtx_commit(&log) == 0);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "tx-reopen", GPM_HOST_ONLY) == 0);
    CHECK(gpmtx_begin(&log) == -1);
    CHECK_MSG(gpm_last_error(), "not recovered");
    CHECK(!gpmtx_active(&log));
    CHECK(gpmtx_recover(&log, &t, NULL) == 0);
    CHECK(gpmtx_begin(&log) == 0);
    CHECK(gpmtx_host_log_undo(&log, 2, 0, &v, 4) == 0);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "tx-reopen", GPM_HOST_ONLY) == 0);
    CHECK(gpmtx_active(&log) && gpmtx_committed(&log) == 1);
    CHECK(gpmtx_reset(&log) == 0);
    CHECK(raw_word(&log) == 0 && log_empty(&log));
    CHECK(gpmtx_begin(&log) == 0);
    gpmlog_close(&log);
    gpm_unmap(&t);
}

/* The heart of it: an active transaction's records, in every slot kind,
 * put the target back exactly as it was before the transaction. */
static void recover_active(int hcl, const char *lname, const char *tname)
{
    gpmlog log;
    gpm_region t;
    gpmtx_stats st;
    uint8_t *before;
    long n;
    CHECKF(make_log(&log, lname, hcl) == 0, "%s", gpm_last_error());
    CHECK(make_target(&t, tname) == 0);
    /* one committed transaction first, so the state to return to is its */
    CHECK(gpmtx_begin(&log) == 0);
    CHECK(updates(&log, &t, 300) == 300);
    CHECK(gpmtx_commit(&log) == 0);
    before = malloc(t.size);
    CHECK(before);
    memcpy(before, t.host, t.size);
    CHECK(gpmtx_begin(&log) == 0);
    n = updates(&log, &t, 2000);
    CHECKF(n == 2000, "%s", gpm_last_error());
    CHECK(memcmp(before, t.host, t.size) != 0);
    /* the crash: both files are reopened as they are */
    gpmlog_close(&log);
    gpm_unmap(&t);
    CHECK(gpmlog_open(&log, lname, GPM_HOST_ONLY) == 0);
    CHECK(gpm_map(&t, tname, 0, GPM_HOST_ONLY) == 0);
    CHECKF(gpmtx_recover(&log, &t, &st) == 0, "%s", gpm_last_error());
    CHECK(memcmp(before, t.host, t.size) == 0);
    CHECK(st.was_active && !st.on_gpu && st.committed == 1);
    CHECK_EQ_INT(st.undone, n);
    CHECK(st.dropped_bytes == 0);
    CHECK(log_empty(&log) && raw_word(&log) == gpmtx_word(1, 0));
    /* recovering again is harmless */
    CHECK(gpmtx_recover(&log, &t, &st) == 0);
    CHECK(!st.was_active && st.undone == 0 && memcmp(before, t.host, t.size) == 0);
    free(before);
    gpmlog_close(&log);
    gpm_unmap(&t);
}

static void recovery_restores_the_target_exactly_hcl(void)
{
    recover_active(1, "tx-hcl", "tx-hcl-t");
}

static void recovery_restores_the_target_exactly_conv(void)
{
    recover_active(0, "tx-conv", "tx-conv-t");
}

/* A crash after the commit's word but before its truncate: the records are
 * stale, and undoing them would lose a committed transaction. */
static void committed_but_untruncated_log_is_only_truncated(void)
{
    gpmlog log;
    gpm_region t;
    gpmtx_stats st;
    uint8_t *after;
    CHECK(make_log(&log, "tx-late", 1) == 0);
    CHECK(make_target(&t, "tx-late-t") == 0);
    CHECK(gpmtx_begin(&log) == 0);
    CHECK(updates(&log, &t, 500) == 500);
    set_raw_word(&log, gpmtx_word(1, 0)); /* commit's first half only */
    after = malloc(t.size);
    CHECK(after);
    memcpy(after, t.host, t.size);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "tx-late", GPM_HOST_ONLY) == 0);
    CHECK(!log_empty(&log));
    CHECK(gpmtx_recover(&log, &t, &st) == 0);
    CHECK(!st.was_active && st.undone == 0 && st.dropped_bytes > 0 && st.committed == 1);
    CHECK(memcmp(after, t.host, t.size) == 0);
    CHECK(log_empty(&log) && raw_word(&log) == gpmtx_word(1, 0));
    free(after);
    gpmlog_close(&log);
    gpm_unmap(&t);
}

/* The recovery's own steps, done partly by hand as a recovery killed half
 * way would leave them: some records undone and removed, one undone but
 * not yet removed, others untouched. With LOST, every slot's records are
 * undone and none removed: a recovery whose tail stores never became
 * durable (the persist after each, tx.c's undo_on_cpu, removed). */
static void half_recover(gpmlog *log, gpm_region *t, int lost)
{
    uint8_t *base = log->region.host;
    for (uint32_t s = 0; s < log->g.n_slots; s++) {
        uint32_t *tail = (uint32_t *)(base + gpmlog_tail_off(&log->g, s));
        uint32_t steps = lost ? UINT32_MAX : s % 4; /* records this slot got through */
        uint32_t at = *tail;
        for (uint32_t k = 0; k < steps && at > 0; k++) {
            gpmtx_rec r;
            if (gpmtx_rec_parse(&log->g, base, s, at, t->size, &r) != GPMTX_REC_OK)
                return;
            gpmtx_rec_undo(&log->g, base, s, &r, t->host);
            at = r.start;
            /* every other slot was killed between its last undo and remove */
            if (!lost && (k + 1 < steps || s % 8 < 4))
                *tail = r.start;
        }
    }
}

static void interrupted(int hcl, const char *lname, const char *tname, int lost)
{
    gpmlog log;
    gpm_region t;
    gpmtx_stats st;
    uint8_t *before;
    CHECK(make_log(&log, lname, hcl) == 0);
    CHECK(make_target(&t, tname) == 0);
    before = malloc(t.size);
    CHECK(before);
    memcpy(before, t.host, t.size);
    CHECK(gpmtx_begin(&log) == 0);
    CHECK(updates(&log, &t, 1500) == 1500);
    half_recover(&log, &t, lost);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, lname, GPM_HOST_ONLY) == 0);
    CHECKF(gpmtx_recover(&log, &t, &st) == 0, "%s", gpm_last_error());
    CHECK(st.was_active && st.undone > 0 && st.undone <= 1500);
    CHECK(!lost || st.undone == 1500); /* every record undone again */
    CHECK(memcmp(before, t.host, t.size) == 0);
    CHECK(log_empty(&log) && !gpmtx_active(&log));
    /* and one killed after emptying the log, before clearing the bit */
    set_raw_word(&log, gpmtx_word(0, 1));
    CHECK(gpmtx_recover(&log, &t, &st) == 0);
    CHECK(st.was_active && st.undone == 0 && !gpmtx_active(&log));
    CHECK(memcmp(before, t.host, t.size) == 0);
    free(before);
    gpmlog_close(&log);
    gpm_unmap(&t);
}

static void interrupted_recovery_still_ends_exactly_right(void)
{
    interrupted(1, "tx-int-hcl", "tx-int-hcl-t", 0);
    if (check_case_failed)
        return;
    interrupted(0, "tx-int-conv", "tx-int-conv-t", 0);
}

/* The tail's persist after each undo is progress only: a recovery that
 * undid every record and lost every tail store (the mutant without that
 * persist, which gpm-check cannot flag) leaves records that the next
 * recovery undoes again, newest first, restoring the same old bytes. */
static void recovery_that_lost_its_tail_stores_ends_exactly_right(void)
{
    interrupted(1, "tx-lost-hcl", "tx-lost-hcl-t", 1);
    if (check_case_failed)
        return;
    interrupted(0, "tx-lost-conv", "tx-lost-conv-t", 1);
}

/* A damaged record, or one pointing outside the target: recovery writes
 * nothing to either file and names the log, the slot and the fix. */
static void expect_refused(gpmlog *log, gpm_region *t, const char *lname, const char *tname,
                           const char *needle, uint32_t slot)
{
    size_t n0, n1, m0, m1;
    uint8_t *l0 = slurp(lname, &n0), *t0 = slurp(tname, &m0), *l1, *t1;
    char want[32];
    int same;
    CHECK(l0 && t0);
    CHECK(gpmtx_recover(log, t, NULL) == -1);
    snprintf(want, sizeof want, "slot %u:", slot);
    CHECK_MSG(gpm_last_error(), lname);
    CHECK_MSG(gpm_last_error(), want);
    CHECK_MSG(gpm_last_error(), needle);
    CHECK_MSG(gpm_last_error(), "before writing anything");
    CHECK(strchr(gpm_last_error(), '\n') == NULL);
    l1 = slurp(lname, &n1);
    t1 = slurp(tname, &m1);
    same = l1 && t1 && n0 == n1 && m0 == m1 && memcmp(l0, l1, n0) == 0 &&
           memcmp(t0, t1, m0) == 0;
    free(l0);
    free(l1);
    free(t0);
    free(t1);
    CHECK(same);
    CHECK(gpmtx_active(log));
}

static void corrupt_records_are_refused_and_files_unchanged(void)
{
    gpmlog log;
    gpm_region t;
    uint8_t *base;
    uint32_t v = 7, slot = 77, w;
    uint64_t at;
    CHECK(make_log(&log, "tx-bad", 1) == 0);
    CHECK(make_target(&t, "tx-bad-t") == 0);
    CHECK(gpmtx_begin(&log) == 0);
    CHECK(updates(&log, &t, 400) == 400);
    CHECK(gpmtx_host_log_undo(&log, slot, 100, &v, 4) == 0);
    CHECK(gpmtx_host_log_undo(&log, slot, 200, &v, 4) == 0);
    base = log.region.host;
    /* a payload byte of the older record */
    at = gpmlog_hcl_chunk_off(&log.g, slot, gpmlog_tail(&log, slot) / 4 - 10);
    base[at] ^= 0x40;
    expect_refused(&log, &t, "tx-bad", "tx-bad-t", "fails its check", slot);
    base[at] ^= 0x40;
    /* the newest footer's length */
    at = gpmlog_hcl_chunk_off(&log.g, slot, gpmlog_tail(&log, slot) / 4 - 2);
    memcpy(&w, base + at, 4);
    w = 1u << 20;
    memcpy(base + at, &w, 4);
    expect_refused(&log, &t, "tx-bad", "tx-bad-t", "length", slot);
    w = 4;
    memcpy(base + at, &w, 4);
    /* sound records, but for a smaller target than this one */
    {
        gpm_region small;
        CHECK(gpm_map(&small, "tx-bad-small", 4096, GPM_CREATE | GPM_HOST_ONLY) == 0);
        CHECK(gpmtx_recover(&log, &small, NULL) == -1);
        CHECK_MSG(gpm_last_error(), "outside the 4096 bytes");
        CHECK_MSG(gpm_last_error(), "pass the target region");
        gpm_unmap(&small);
    }
    /* all restored: it recovers */
    CHECKF(gpmtx_recover(&log, &t, NULL) == 0, "%s", gpm_last_error());
    gpmlog_close(&log);
    gpm_unmap(&t);
}

/* Every single-bit flip in a record (payload or footer) is caught. */
static void every_bit_flip_in_a_record_is_caught(void)
{
    gpmlog log;
    uint8_t old[13], *base;
    gpmtx_rec r;
    CHECK(gpmlog_create_conv(&log, "tx-flip", 4096, 1, GPM_HOST_ONLY) == 0);
    for (int i = 0; i < 13; i++)
        old[i] = (uint8_t)(i * 29 + 1);
    CHECK(gpmtx_host_log_undo(&log, 0, 0x123456789ull, old, 13) == 0);
    CHECK_EQ_INT(gpmlog_tail(&log, 0), 32);
    base = log.region.host;
    CHECK(gpmtx_rec_parse(&log.g, base, 0, 32, UINT64_MAX, &r) == GPMTX_REC_OK);
    CHECK(r.off == 0x123456789ull && r.len == 13 && r.start == 0);
    for (uint32_t bit = 0; bit < 32 * 8; bit++) {
        uint8_t *p = base + gpmlog_conv_off(&log.g, 0, bit / 8);
        int e;
        *p ^= (uint8_t)(1u << (bit % 8));
        e = gpmtx_rec_parse(&log.g, base, 0, 32, UINT64_MAX, &r);
        *p ^= (uint8_t)(1u << (bit % 8));
        /* the 3 padding bytes after 13 are zero and checked too */
        CHECKF(e != GPMTX_REC_OK, "flip of bit %u went unnoticed", bit);
    }
    gpmlog_close(&log);
}

static void records_of_every_length_round_trip(void)
{
    gpmlog log;
    uint8_t old[64], *base;
    uint32_t tail;
    CHECK(gpmlog_create_hcl(&log, "tx-len", 64 * 1024, 1, 32, GPM_HOST_ONLY) == 0);
    for (uint32_t len = 1; len <= 40; len++) {
        for (uint32_t i = 0; i < len; i++)
            old[i] = (uint8_t)(len + i);
        CHECKF(gpmtx_host_log_undo(&log, 3, 1000 + len, old, len) == 0, "%s",
               gpm_last_error());
    }
    base = log.region.host;
    tail = gpmlog_tail(&log, 3);
    for (uint32_t len = 40; len >= 1; len--) {
        gpmtx_rec r;
        uint8_t target[1100] = {0};
        CHECK(gpmtx_rec_parse(&log.g, base, 3, tail, sizeof target, &r) == GPMTX_REC_OK);
        CHECK(r.len == len && r.off == 1000 + len);
        CHECK_EQ_INT(tail - r.start, gpmtx_record_bytes(len));
        gpmtx_rec_undo(&log.g, base, 3, &r, target);
        for (uint32_t i = 0; i < sizeof target; i++)
            CHECKF(target[i] == (i >= r.off && i < r.off + len ? (uint8_t)(len + i - r.off) : 0),
                   "length %u: byte %u is %u", len, i, target[i]);
        tail = r.start;
    }
    CHECK_EQ_INT(tail, 0);
    gpmlog_close(&log);
}

static void host_log_undo_refuses_what_cannot_be_logged(void)
{
    gpmlog log;
    uint8_t big[600] = {0};
    CHECK(gpmlog_create_conv(&log, "tx-args", 1024, 2, GPM_HOST_ONLY) == 0);
    CHECK_EQ_INT(log.g.slot_bytes, 512);
    CHECK(gpmtx_host_log_undo(&log, 0, 0, big, 0) == -1);
    CHECK_MSG(gpm_last_error(), "tx-args");
    CHECK(gpmtx_host_log_undo(&log, 0, 0, big, 497) == -1);
    CHECK_MSG(gpm_last_error(), "1 to 496 bytes");
    CHECK(gpmtx_host_log_undo(&log, 0, 0, big, 496) == 0);
    CHECK(gpmtx_host_log_undo(&log, 0, 0, big, 1) == -1);
    CHECK_MSG(gpm_last_error(), "full");
    CHECK(gpmtx_host_log_undo(&log, 2, 0, big, 1) == -1);
    CHECK_MSG(gpm_last_error(), "out of range");
    gpmlog_close(&log);
}

/* A log file from before transactions: zeros where the word lives. It
 * opens as 0 committed and none active; its entries (not undo records)
 * are truncated, never undone. */
static void log_from_before_transactions_opens_as_zero_committed(void)
{
    gpmlog log;
    gpm_region t;
    gpmtx_stats st;
    size_t n;
    uint8_t *img, *before;
    uint32_t e = 0xabcdef01;
    CHECK(gpmlog_create_hcl(&log, "tx-old", 16 * 1024, 2, 64, GPM_HOST_ONLY) == 0);
    CHECK(gpmlog_host_insert(&log, 9, &e, 4) == 0);
    gpmlog_close(&log);
    img = slurp("tx-old", &n);
    CHECK(img);
    for (size_t i = sizeof(gpmlog_header); i < GPMLOG_HEADER_BYTES; i++)
        CHECKF(img[i] == 0, "byte %zu of the header page is %u", i, img[i]);
    free(img);
    CHECK(gpmlog_open(&log, "tx-old", GPM_HOST_ONLY) == 0);
    CHECK(gpmtx_committed(&log) == 0 && !gpmtx_active(&log));
    CHECK(make_target(&t, "tx-old-t") == 0);
    before = malloc(t.size);
    CHECK(before);
    memcpy(before, t.host, t.size);
    CHECK(gpmtx_recover(&log, &t, &st) == 0);
    CHECK(!st.was_active && st.dropped_bytes == 4 && log_empty(&log));
    CHECK(memcmp(before, t.host, t.size) == 0);
    free(before);
    gpmlog_close(&log);
    gpm_unmap(&t);
}

int main(void)
{
    RUN(word_encodes_committed_and_active);
    RUN(begin_and_commit_count_transactions);
    RUN(reopened_log_needs_recovery_before_begin);
    RUN(recovery_restores_the_target_exactly_hcl);
    RUN(recovery_restores_the_target_exactly_conv);
    RUN(committed_but_untruncated_log_is_only_truncated);
    RUN(interrupted_recovery_still_ends_exactly_right);
    RUN(recovery_that_lost_its_tail_stores_ends_exactly_right);
    RUN(corrupt_records_are_refused_and_files_unchanged);
    RUN(every_bit_flip_in_a_record_is_caught);
    RUN(records_of_every_length_round_trip);
    RUN(host_log_undo_refuses_what_cannot_be_logged);
    RUN(log_from_before_transactions_opens_as_zero_committed);
    CHECK_EXIT();
}
