/* Transactions on an undo log, host side: the transaction word, commit,
 * reset, the CPU-side record append, and recovery (on the GPU through
 * tx_recover.cu, or on the CPU with the same GPM_HD steps). */
#include <stdlib.h>
#include <string.h>

#include "gpm/tx.h"
#include "tx_recover.h"

static uint64_t *word_of(const gpmlog *log)
{
    return (uint64_t *)((uint8_t *)log->region.host + GPMLOG_TX_OFF);
}

static uint64_t load_word(const gpmlog *log)
{
    return __atomic_load_n(word_of(log), __ATOMIC_ACQUIRE);
}

/* One 8-byte store, then persisted: the word is never seen half written. */
static int store_word(gpmlog *log, uint64_t w)
{
    __atomic_store_n(word_of(log), w, __ATOMIC_RELEASE);
    return gpm_region_persist(&log->region, word_of(log), sizeof w);
}

uint64_t gpmtx_committed(const gpmlog *log)
{
    return gpmtx_word_committed(load_word(log));
}

int gpmtx_active(const gpmlog *log)
{
    return gpmtx_word_active(load_word(log));
}

int gpmtx_begin(gpmlog *log)
{
    uint64_t w = load_word(log);
    if (gpmtx_word_active(w))
        return gpm_set_error("%s: transaction %llu is still active (a crash or a missing "
                             "commit): run gpmtx_recover before beginning another",
                             log->region.path, (unsigned long long)gpmtx_word_committed(w) + 1);
    if (!log->tx_clean)
        return gpm_set_error("%s: opened but not recovered, so it may hold entries no "
                             "transaction owns: call gpmtx_recover (or gpmtx_reset for a fresh "
                             "run) before the first gpmtx_begin", log->region.path);
    return store_word(log, gpmtx_word(gpmtx_word_committed(w), 1));
}

int gpmtx_commit(gpmlog *log)
{
    return gpmtx_commit_on(log, NULL);
}

int gpmtx_commit_on(gpmlog *log, void *stream)
{
    uint64_t w = load_word(log);
    if (!gpmtx_word_active(w))
        return gpm_set_error("%s: no transaction is active (%llu committed): call gpmtx_begin "
                             "before logging and committing", log->region.path,
                             (unsigned long long)gpmtx_word_committed(w));
    /* The commit point. Entries left behind by a crash right after it
     * belong to no active transaction, and recovery drops them. */
    if (store_word(log, gpmtx_word(gpmtx_word_committed(w) + 1, 0)) != 0)
        return -1;
    /* Zero and durable on PM before this returns, so before the next
     * begin: that transaction's recovery never meets this one's records.
     * The device copy is zeroed ahead of the next logging kernels, in
     * STREAM's order or waited for. */
    if (gpmlog_reset_on(log, stream) != 0)
        return -1;
    log->tx_clean = 1;
    return 0;
}

int gpmtx_reset(gpmlog *log)
{
    if (gpmlog_reset(log) != 0 || store_word(log, 0) != 0)
        return -1;
    log->tx_clean = 1;
    return 0;
}

int gpmtx_host_log_undo(gpmlog *log, uint32_t slot, uint64_t off, const void *old, uint32_t len)
{
    uint32_t n = gpmlog_round4(len), check;
    uint8_t small[256], *rec;
    int rc;
    if (len == 0 || len > GPMTX_MAX_LEN || gpmtx_record_bytes(len) > log->g.slot_bytes)
        return gpm_set_error("%s: an undo record of %u bytes cannot fit a slot of %u bytes: "
                             "log 1 to %u bytes at a time", log->region.path, len,
                             log->g.slot_bytes, log->g.slot_bytes - GPMTX_FOOTER_BYTES);
    /* Small records (the common case) are built on the stack. */
    rec = n <= sizeof small - GPMTX_FOOTER_BYTES ? small : malloc((size_t)n + GPMTX_FOOTER_BYTES);
    if (!rec)
        return gpm_set_error("%s: out of memory for an undo record of %u bytes",
                             log->region.path, len);
    memset(rec + len, 0, (size_t)n + GPMTX_FOOTER_BYTES - len);
    memcpy(rec, old, len);
    check = gpmtx_check_of(off, old, len);
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t w = gpmtx_footer_word(off, len, check, k);
        memcpy(rec + n + 4 * k, &w, 4);
    }
    rc = gpmlog_host_insert(log, slot, rec, n + GPMTX_FOOTER_BYTES);
    if (rec != small)
        free(rec);
    return rc;
}

const char *gpmtx_rec_str(int check)
{
    switch (check) {
    case GPMTX_REC_OK: return "sound";
    case GPMTX_REC_SHORT: return "fewer bytes than the smallest undo record";
    case GPMTX_REC_LENGTH: return "a footer whose length does not fit below it";
    case GPMTX_REC_CHECK: return "an undo record that fails its check";
    case GPMTX_REC_TARGET: return "an undo record outside the target region";
    default: return "an unknown record error";
    }
}

static uint32_t *tail_ptr(const gpmlog *log, uint32_t slot)
{
    return (uint32_t *)((uint8_t *)log->region.host + gpmlog_tail_off(&log->g, slot));
}

/* The one-line refusal for SLOT, found again on the CPU (the GPU check
 * only says which slot). Returns -1. */
static int refuse(const gpmlog *log, const gpm_region *target, uint32_t slot)
{
    uint32_t at = 0;
    gpmtx_rec r = {0, 0, 0};
    int e = gpmtx_slot_check(&log->g, log->region.host, slot, *tail_ptr(log, slot),
                             target->size, &at, &r);
    if (e == GPMTX_REC_TARGET)
        return gpm_set_error("%s: slot %u: the undo record ending at byte %u restores %u bytes "
                             "at offset %llu, outside the %zu bytes of %s: recovery stopped "
                             "before writing anything; pass the target region this log was "
                             "written for", log->region.path, slot, at, r.len,
                             (unsigned long long)r.off, target->size, target->path);
    if (e == GPMTX_REC_OK)
        return gpm_set_error("%s: slot %u: a record refused on the GPU is sound on the CPU: "
                             "was a kernel still using the log? Nothing was written; run the "
                             "recovery again with none", log->region.path, slot);
    return gpm_set_error("%s: slot %u: %s at byte %u (a damaged log, or not one written by "
                         "gpmtx_log_undo): recovery stopped before writing anything; restore "
                         "the log and %s from a copy, or gpmtx_reset and rebuild the data",
                         log->region.path, slot, gpmtx_rec_str(e), at, target->path);
}

/* The CPU recovery: the kernels' steps, one slot after another. */
static int check_on_cpu(const gpmlog *log, const gpm_region *target, uint32_t *bad)
{
    *bad = UINT32_MAX;
    for (uint32_t s = 0; s < log->g.n_slots; s++) {
        uint32_t at;
        gpmtx_rec r;
        if (gpmtx_slot_check(&log->g, log->region.host, s, *tail_ptr(log, s), target->size,
                             &at, &r) != GPMTX_REC_OK) {
            *bad = s;
            break;
        }
    }
    return 0;
}

static int undo_on_cpu(gpmlog *log, const gpm_region *target, uint64_t *undone,
                       uint64_t *bytes)
{
    for (uint32_t s = 0; s < log->g.n_slots; s++) {
        uint32_t *tail = tail_ptr(log, s);
        while (*tail > 0) {
            gpmtx_rec r;
            if (gpmtx_rec_parse(&log->g, log->region.host, s, *tail, target->size, &r) !=
                GPMTX_REC_OK)
                return refuse(log, target, s);
            gpmtx_rec_undo(&log->g, log->region.host, s, &r, target->host);
            if (gpm_region_persist(target, (uint8_t *)target->host + r.off, r.len) != 0)
                return -1;
            /* Removed only once its old value is durable. The tail's
             * persist is progress only: a crash that loses it leaves a
             * later tail, and the next recovery undoes those records
             * again, newest first as before, each restoring the same old
             * bytes, so the target ends the same; gpmlog_reset() below
             * persists every tail before the transaction is inactive. It
             * spares a crashed recovery the undos it had already done
             * (test_tx.c: recovery_that_lost_its_tail_stores_ends_exactly_right). */
            *tail = r.start;
            if (gpm_region_persist(&log->region, tail, sizeof *tail) != 0)
                return -1;
            (*undone)++;
            *bytes += r.len;
        }
    }
    return 0;
}

int gpmtx_recover(gpmlog *log, const gpm_region *target, gpmtx_stats *st)
{
    gpmtx_stats local;
    uint64_t w = load_word(log);
    uint32_t bad;
    int gpu = log->tails_dev != NULL && target->dev != NULL;

    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    st->committed = gpmtx_word_committed(w);
    st->was_active = gpmtx_word_active(w);
    if (!st->was_active) {
        for (uint32_t s = 0; s < log->g.n_slots; s++)
            st->dropped_bytes += *tail_ptr(log, s);
        if (gpmlog_reset(log) != 0)
            return -1;
        log->tx_clean = 1;
        return 0;
    }
    if (!target->host)
        return gpm_set_error("%s: recovery needs the mapped target region: map it with gpm_map",
                             log->region.path);
    st->on_gpu = gpu;
    if (gpu) {
        void *copy = NULL;
        int rc = gpmtx_log_to_gpu(log, &copy) || gpmtx_check_on_gpu(log, copy, target, &bad);
        if (rc == 0 && bad == UINT32_MAX)
            rc = gpmtx_undo_on_gpu(log, copy, target, &st->undone, &st->undone_bytes);
        gpmtx_log_free_gpu(copy);
        if (rc != 0)
            return -1;
        if (bad != UINT32_MAX)
            return refuse(log, target, bad);
    } else {
        if (check_on_cpu(log, target, &bad) != 0)
            return -1;
        if (bad != UINT32_MAX)
            return refuse(log, target, bad);
        if (undo_on_cpu(log, target, &st->undone, &st->undone_bytes) != 0)
            return -1;
    }
    for (uint32_t s = 0; s < log->g.n_slots; s++)
        if (*tail_ptr(log, s) != 0)
            return gpm_set_error("%s: slot %u still holds %u bytes after the undo: was a kernel "
                                 "still using the log? Run the recovery again with none",
                                 log->region.path, s, *tail_ptr(log, s));
    /* Empty first, then inactive: a crash between the two finds an active
     * transaction with nothing left to undo. */
    if (gpmlog_reset(log) != 0 || store_word(log, gpmtx_word(st->committed, 0)) != 0)
        return -1;
    log->tx_clean = 1;
    return 0;
}
