/* Log files on emulated PM without a GPU: create, reopen, refuse to
 * overwrite, reject what is not a sound log without writing a byte, count
 * only entries whose tail was persisted, and reset by writing only the
 * lines of tails that are not zero. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/log.h"
#include "gpm/tx.h"

/* The whole file NAME (resolved under GPM_PM_DIR); *N its size. */
static uint8_t *slurp(const char *name, size_t *n)
{
    char full[4096];
    gpm_resolve_path(name, full, sizeof full);
    return check_read_file(full, n);
}

static void spit(const char *name, const uint8_t *b, size_t n)
{
    char full[4096];
    FILE *f;
    gpm_resolve_path(name, full, sizeof full);
    f = fopen(full, "wb");
    if (f) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

static void create_then_reopen_keeps_geometry_and_entries(void)
{
    gpmlog log;
    uint64_t e = 0x1122334455667788ull;
    CHECKF(gpmlog_create_hcl(&log, "log-reopen", 1 << 20, 4, 96, GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    CHECK(gpmlog_host_insert(&log, 5, &e, sizeof e) == 0);
    CHECK(gpmlog_host_insert(&log, 5, &e, 3) == 0);
    gpmlog_close(&log);
    CHECKF(gpmlog_open(&log, "log-reopen", GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    CHECK_EQ_INT(log.g.kind, GPMLOG_HCL);
    CHECK_EQ_INT(log.g.blocks, 4);
    CHECK_EQ_INT(log.g.threads, 96);
    CHECK_EQ_INT(gpmlog_tail(&log, 5), 12);
    CHECK_EQ_INT(gpmlog_tail(&log, 4), 0);
    {
        uint64_t back = 0;
        gpmlog_copy_out(&log.g, log.region.host, 5, 0, &back, sizeof back);
        CHECK(back == e);
    }
    gpmlog_close(&log);
}

static void create_refuses_an_existing_file(void)
{
    gpmlog log;
    size_t n0, n1;
    uint8_t *before, *after;
    CHECK(gpmlog_create_conv(&log, "log-exists", 64 * 1024, 4, GPM_HOST_ONLY) == 0);
    CHECK(gpmlog_host_insert(&log, 1, "abcd", 4) == 0);
    gpmlog_close(&log);
    before = slurp("log-exists", &n0);
    CHECK(gpmlog_create_conv(&log, "log-exists", 64 * 1024, 4, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "log-exists");
    CHECK_MSG(gpm_last_error(), "already exists");
    CHECK(gpmlog_create_hcl(&log, "log-exists", 64 * 1024, 1, 32, GPM_HOST_ONLY) == -1);
    after = slurp("log-exists", &n1);
    CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0);
    free(before);
    free(after);
}

static void bad_geometry_is_named(void)
{
    gpmlog log;
    CHECK(gpmlog_create_hcl(&log, "log-geom", 64, 4, 96, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "log-geom");
    CHECK_MSG(gpm_last_error(), "4 bytes per thread");
    CHECK(gpmlog_create_conv(&log, "log-geom", 1 << 20, 0, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "n_partitions");
    {
        char full[4096];
        CHECK(gpm_resolve_path("log-geom", full, sizeof full) == 0);
        CHECK(access(full, F_OK) != 0);
    }
}

static void conv_partitions_append_in_order(void)
{
    gpmlog log;
    uint32_t v;
    CHECK(gpmlog_create_conv(&log, "log-conv", 4 * 1024, 4, GPM_HOST_ONLY) == 0);
    CHECK_EQ_INT(log.g.slot_bytes, 1024);
    for (v = 0; v < 256; v++)
        CHECKF(gpmlog_host_insert(&log, 2, &v, 4) == 0, "%s", gpm_last_error());
    CHECK(gpmlog_host_insert(&log, 2, &v, 4) == -1); /* full */
    CHECK_MSG(gpm_last_error(), "full");
    CHECK_EQ_INT(gpmlog_tail(&log, 2), 1024);
    gpmlog_copy_out(&log.g, log.region.host, 2, 4 * 200, &v, 4);
    CHECK_EQ_INT(v, 200);
    CHECK(gpmlog_reset(&log) == 0);
    CHECK_EQ_INT(gpmlog_tail(&log, 2), 0);
    gpmlog_close(&log);
}

/* An entry whose chunks reached PM but whose tail was not bumped (a crash
 * between the two persists) does not count. */
static void torn_entry_is_invisible(void)
{
    gpmlog log;
    uint32_t w = 0xdeadbeef;
    CHECK(gpmlog_create_hcl(&log, "log-torn", 64 * 1024, 1, 64, GPM_HOST_ONLY) == 0);
    CHECK(gpmlog_host_insert(&log, 33, "12345678", 8) == 0);
    /* the half-written next entry: one chunk stored, tail untouched */
    memcpy((uint8_t *)log.region.host + gpmlog_hcl_chunk_off(&log.g, 33, 2), &w, 4);
    gpmlog_close(&log);
    CHECK(gpmlog_open(&log, "log-torn", GPM_HOST_ONLY) == 0);
    CHECK_EQ_INT(gpmlog_tail(&log, 33), 8);
    gpmlog_close(&log);
}

/* A store to a read-only page jumps back here instead of killing the test. */
static sigjmp_buf wrote_jmp;

static void on_write_fault(int sig)
{
    (void)sig;
    siglongjmp(wrote_jmp, 1);
}

/* gpmlog_reset with the pages of tails [FROM, TO) read-only: 0, or -1
 * where it stored into one of them (or failed). */
static int reset_sparing(gpmlog *log, uint32_t from, uint32_t to)
{
    uint8_t *p = (uint8_t *)log->region.host + gpmlog_tail_off(&log->g, from);
    size_t len = (size_t)(to - from) * 4u;
    struct sigaction sa, old;
    volatile int rc = -1; /* kept across the jump */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_write_fault;
    sigemptyset(&sa.sa_mask);
    if (mprotect(p, len, PROT_READ) != 0 || sigaction(SIGSEGV, &sa, &old) != 0)
        return -1;
    if (sigsetjmp(wrote_jmp, 1) == 0)
        rc = gpmlog_reset(log);
    sigaction(SIGSEGV, &old, NULL);
    mprotect(p, len, PROT_READ | PROT_WRITE);
    return rc;
}

/* The tails of 4 x 1024 slots fill four pages; entries in the first and
 * the last page leave the two between all zero. A reset zeroes every tail
 * (the entries stay, uncounted) without a store to those two pages, and a
 * second one, every tail zero, stores nowhere. */
static void reset_writes_only_the_lines_of_nonzero_tails(void)
{
    gpmlog log;
    uint64_t e = 0x0102030405060708ull, back = 0;
    uint32_t n;
    if (sysconf(_SC_PAGESIZE) != 4096)
        SKIP("pages are not 4 KiB: the tails' pages are laid out for 4 KiB");
    CHECKF(gpmlog_create_hcl(&log, "log-reset", 1 << 20, 4, 1024, GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    n = log.g.n_slots;
    CHECK_EQ_INT(n, 4096);
    CHECK(gpmlog_host_insert(&log, 3, &e, sizeof e) == 0);
    CHECK(gpmlog_host_insert(&log, 3, &e, sizeof e) == 0);
    CHECK(gpmlog_host_insert(&log, 17, &e, sizeof e) == 0);
    CHECK(gpmlog_host_insert(&log, n - 1, &e, 4) == 0);
    CHECKF(reset_sparing(&log, 1024, 3072) == 0, "%s",
           "the reset stored into tails that were all zero");
    for (uint32_t s = 0; s < n; s++)
        CHECKF(gpmlog_tail(&log, s) == 0, "slot %u: tail %u", s, gpmlog_tail(&log, s));
    gpmlog_copy_out(&log.g, log.region.host, 3, 8, &back, sizeof back);
    CHECK(back == e);
    CHECKF(reset_sparing(&log, 0, n) == 0, "%s", "a reset of an empty log stored a tail");
    gpmlog_close(&log);
    CHECKF(gpmlog_open(&log, "log-reset", GPM_HOST_ONLY) == 0, "%s", gpm_last_error());
    CHECK_EQ_INT(gpmlog_tail(&log, 3), 0);
    CHECK_EQ_INT(gpmlog_tail(&log, n - 1), 0);
    gpmlog_close(&log);
}

static void expect_rejected(const char *name, const char *needle)
{
    gpmlog log;
    size_t n0, n1;
    uint8_t *before = slurp(name, &n0), *after;
    CHECK(before);
    CHECK(gpmlog_open(&log, name, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), name);
    CHECK_MSG(gpm_last_error(), needle);
    CHECK(strchr(gpm_last_error(), '\n') == NULL);
    after = slurp(name, &n1);
    CHECK(after && n0 == n1 && memcmp(before, after, n0) == 0);
    free(before);
    free(after);
}

static void make_log(const char *name)
{
    gpmlog log;
    if (gpmlog_create_hcl(&log, name, 16 * 1024, 2, 64, GPM_HOST_ONLY) == 0)
        gpmlog_close(&log);
}

static void not_a_log_is_rejected(void)
{
    uint8_t junk[8192];
    memset(junk, 'x', sizeof junk);
    spit("log-junk", junk, sizeof junk);
    expect_rejected("log-junk", "not a libgpm log");
    spit("log-tiny", junk, 10);
    expect_rejected("log-tiny", "not a libgpm log");
}

static void other_version_is_rejected(void)
{
    size_t n;
    uint8_t *b;
    gpmlog_header h;
    make_log("log-ver");
    b = slurp("log-ver", &n);
    CHECK(b);
    memcpy(&h, b, sizeof h);
    h.version = 2;
    h.checksum = gpmlog_checksum(&h, GPMLOG_CHECKED_BYTES);
    memcpy(b, &h, sizeof h);
    spit("log-ver", b, n);
    free(b);
    expect_rejected("log-ver", "another format version");
}

static void corrupt_header_is_rejected(void)
{
    size_t n;
    uint8_t *b;
    make_log("log-bad");
    b = slurp("log-bad", &n);
    CHECK(b);
    b[44] ^= 0x10; /* slot_bytes */
    spit("log-bad", b, n);
    free(b);
    expect_rejected("log-bad", "corrupt log header");
}

static void truncated_file_is_rejected(void)
{
    size_t n;
    uint8_t *b;
    make_log("log-short");
    b = slurp("log-short", &n);
    CHECK(b);
    spit("log-short", b, n - 128);
    free(b);
    expect_rejected("log-short", "file size");
}

static void impossible_tail_is_rejected(void)
{
    size_t n;
    uint8_t *b;
    uint32_t t = 1u << 30;
    make_log("log-tail");
    b = slurp("log-tail", &n);
    CHECK(b);
    memcpy(b + GPMLOG_HEADER_BYTES + 4 * 17, &t, 4);
    spit("log-tail", b, n);
    free(b);
    expect_rejected("log-tail", "tail of slot 17");
}

/* Random damage to the header page, many times: never a crash, never a
 * write; either a clear rejection or (damage outside the checked bytes and
 * the checksum: the reserved word, the transaction word, the zeros) a log
 * that still opens with its geometry intact and reads its transaction word
 * from exactly GPMLOG_TX_OFF. */
static void fuzzed_headers_are_rejected_cleanly(void)
{
    size_t n;
    uint8_t *orig, *b;
    int rejected = 0, opened = 0, word_hit = 0;
    make_log("log-fuzz");
    orig = slurp("log-fuzz", &n);
    CHECK(orig);
    b = malloc(n);
    srand(12345);
    for (int trial = 0; trial < 2000; trial++) {
        gpmlog log;
        int flips = 1 + rand() % 4, checked = 0, word = 0;
        memcpy(b, orig, n);
        for (int f = 0; f < flips; f++) {
            /* odd trials: the header; even ones: the page, every third
             * flip on the transaction word */
            const int tx = (int)GPMLOG_TX_OFF;
            int pos = trial % 2 ? rand() % 64 : f % 3 == 2 ? tx + rand() % 8 : rand() % 4096;
            b[pos] ^= (uint8_t)(1 + rand() % 255);
            checked |= pos < 60;
            word |= pos >= tx && pos < tx + 8;
        }
        spit("log-fuzz-t", b, n);
        if (gpmlog_open(&log, "log-fuzz-t", GPM_HOST_ONLY) == 0) {
            uint64_t w;
            opened++;
            word_hit += word;
            CHECK(memcmp(&log.hdr, orig, GPMLOG_CHECKED_BYTES) == 0);
            CHECK_EQ_INT(log.g.n_slots, 128);
            memcpy(&w, b + GPMLOG_TX_OFF, 8);
            CHECK(gpmtx_committed(&log) == w >> 1 && gpmtx_active(&log) == (int)(w & 1));
            gpmlog_close(&log);
        } else {
            const char *m = gpm_last_error();
            rejected++;
            CHECKF(checked, "trial %d: damage outside the checked header was rejected: %s",
                   trial, m);
            CHECKF(strstr(m, "log-fuzz-t") && (strstr(m, "corrupt") || strstr(m, "not a libgpm") ||
                                               strstr(m, "version") || strstr(m, "size")),
                   "trial %d: unclear message \"%s\"", trial, m);
        }
        {
            size_t m;
            uint8_t *after = slurp("log-fuzz-t", &m);
            int same = after && m == n && memcmp(after, b, n) == 0;
            free(after);
            CHECKF(same, "trial %d: open wrote to a rejected or opened file", trial);
        }
    }
    free(b);
    free(orig);
    CHECKF(rejected > 900 && opened > 0 && word_hit > 100, "rejected %d, opened %d (%d with "
           "a damaged transaction word)", rejected, opened, word_hit);
}

static void missing_file_is_named(void)
{
    gpmlog log;
    CHECK(gpmlog_open(&log, "log-absent", GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "log-absent");
    CHECK_MSG(gpm_last_error(), "does not exist");
}

int main(void)
{
    RUN(create_then_reopen_keeps_geometry_and_entries);
    RUN(create_refuses_an_existing_file);
    RUN(bad_geometry_is_named);
    RUN(conv_partitions_append_in_order);
    RUN(torn_entry_is_invisible);
    RUN(reset_writes_only_the_lines_of_nonzero_tails);
    RUN(not_a_log_is_rejected);
    RUN(other_version_is_rejected);
    RUN(corrupt_header_is_rejected);
    RUN(truncated_file_is_rejected);
    RUN(impossible_tail_is_rejected);
    RUN(fuzzed_headers_are_rejected_cleanly);
    RUN(missing_file_is_named);
    CHECK_EXIT();
}
