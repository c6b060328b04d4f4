/* gpmlog_inspect and the gpm-inspect program on log files: geometry, tails
 * and a clear answer for files that are not logs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/log.h"
#include "gpm/tx.h"

static char out[16384];

static int inspect(const char *name)
{
    FILE *f = tmpfile();
    size_t n;
    int r;
    if (!f)
        return -2;
    r = gpmlog_inspect(f, name);
    rewind(f);
    n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    fclose(f);
    return r;
}

static void hcl_log_is_described(void)
{
    gpmlog log;
    uint32_t v = 7;
    CHECK(gpmlog_create_hcl(&log, "li-hcl", 64 * 1024, 3, 40, GPM_HOST_ONLY) == 0);
    CHECK(gpmlog_host_insert(&log, gpmlog_hcl_slot(&log.g, 2, 1, 3), &v, 4) == 0);
    CHECK(gpmlog_host_insert(&log, gpmlog_hcl_slot(&log.g, 2, 1, 3), &v, 4) == 0);
    CHECK(gpmlog_host_insert(&log, 0, &v, 4) == 0);
    gpmlog_close(&log);
    CHECK_EQ_INT(inspect("li-hcl"), 0);
    CHECK_MSG(out, "kind\thcl");
    CHECK_MSG(out, "3 blocks x 40 threads (2 warps/block)");
    CHECK_MSG(out, "nonempty_slots\t2 of 192");
    CHECK_MSG(out, "tail_bytes_total\t12");
    CHECK_MSG(out, "slot 163 (block 2 warp 1 lane 3)\t8 bytes");
    CHECK_MSG(out, "tx_committed\t0\n");
    CHECK_MSG(out, "tx_active\tno\n");
    CHECK_MSG(out, "would truncate");
}

/* The transaction word, and what recovery would find in the records of
 * an active transaction. */
static void transaction_word_is_described(void)
{
    gpmlog log;
    uint32_t v = 7;
    CHECK(gpmlog_create_hcl(&log, "li-tx", 64 * 1024, 2, 64, GPM_HOST_ONLY) == 0);
    for (int t = 0; t < 3; t++)
        CHECK(gpmtx_begin(&log) == 0 && gpmtx_commit(&log) == 0);
    CHECK(gpmtx_begin(&log) == 0);
    CHECK(gpmtx_host_log_undo(&log, 4, 0, &v, 4) == 0);
    CHECK(gpmtx_host_log_undo(&log, 4, 8, &v, 2) == 0);
    CHECK(gpmtx_host_log_undo(&log, 100, 16, &v, 1) == 0);
    gpmlog_close(&log);
    CHECK_EQ_INT(inspect("li-tx"), 0);
    CHECK_MSG(out, "tx_committed\t3\n");
    CHECK_MSG(out, "tx_active\tyes (transaction 4)");
    CHECK_MSG(out, "tx_records\t3 undo records, all sound");
    CHECK_MSG(out, "gpmtx_recover would undo");
    /* a damaged record: inspect says recovery would stop */
    CHECK(gpmlog_open(&log, "li-tx", GPM_HOST_ONLY) == 0);
    ((unsigned char *)log.region.host)[gpmlog_hcl_chunk_off(&log.g, 100, 0)] ^= 0x10;
    gpmlog_close(&log);
    CHECK_EQ_INT(inspect("li-tx"), 0);
    CHECK_MSG(out, "tx_records\t2 sound, then slot 100 refused at byte 20");
    CHECK_MSG(out, "would stop and write nothing");
}

static void conv_log_is_described(void)
{
    gpmlog log;
    CHECK(gpmlog_create_conv(&log, "li-conv", 8 * 1024, 4, GPM_HOST_ONLY) == 0);
    gpmlog_close(&log);
    CHECK_EQ_INT(inspect("li-conv"), 0);
    CHECK_MSG(out, "kind\tconv");
    CHECK_MSG(out, "partitions\t4");
    CHECK_MSG(out, "nothing to undo");
}

static void other_files_are_not_logs(void)
{
    char full[4096];
    CHECK(gpm_resolve_path("li-text", full, sizeof full) == 0);
    CHECK(check_write_file(full, "hello, not a log\n") == 0);
    CHECK_EQ_INT(inspect("li-text"), 1);
    CHECK_EQ_INT(inspect("li-missing"), -1);
    CHECK_MSG(gpm_last_error(), "li-missing");
}

static void corrupt_log_is_an_error(void)
{
    gpmlog log;
    CHECK(gpmlog_create_conv(&log, "li-bad", 8 * 1024, 4, GPM_HOST_ONLY) == 0);
    ((unsigned char *)log.region.host)[40] ^= 1;
    gpmlog_close(&log);
    CHECK_EQ_INT(inspect("li-bad"), -1);
    CHECK_MSG(gpm_last_error(), "corrupt log header");
}

/* The program: 0 with a description, 1 with a clear message otherwise. */
static void program_exit_codes(void)
{
    const char *bin = getenv("GPM_BIN");
    char cmd[8192];
    if (!bin)
        SKIP("GPM_BIN not set (run through scripts/run-tests.sh)");
    snprintf(cmd, sizeof cmd, "%s/gpm-inspect li-conv >/dev/null", bin);
    CHECK_EQ_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/gpm-inspect li-text 2>/dev/null", bin);
    CHECK(system(cmd) != 0);
    snprintf(cmd, sizeof cmd, "%s/gpm-inspect li-text 2>&1 | grep -q 'neither a libgpm log'",
             bin);
    CHECK_EQ_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/gpm-inspect li-bad 2>&1 | grep -q 'corrupt log header'", bin);
    CHECK_EQ_INT(system(cmd), 0);
}

int main(void)
{
    RUN(hcl_log_is_described);
    RUN(transaction_word_is_described);
    RUN(conv_log_is_described);
    RUN(other_files_are_not_logs);
    RUN(corrupt_log_is_an_error);
    RUN(program_exit_codes);
    CHECK_EXIT();
}
