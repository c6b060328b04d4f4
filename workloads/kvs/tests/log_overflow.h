/* gpKVS with a log that fills up mid-batch (--log-room): the batch
 * must fail with none of the ways it could not log changed, and the undo
 * of recovery must give back exactly the table before the batch. Shared
 * by the CPU counterpart's test and the GPU modes' (tests/cpu, tests/gpu). */
#ifndef KVS_TEST_LOG_OVERFLOW_H
#define KVS_TEST_LOG_OVERFLOW_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/tx.h"
#include "tests/wl_test.h"

/* In MODE, under the scratch directory DIR (two folders of its own):
 * batch 2 of 4 meets a full log; its before-image is the table of a run
 * killed right after batch 2 committed. ERRF gets the programs' stderr. */
static void kvs_log_overflow_case(const char *mode, const char *dir, const char *errf)
{
    char full_dir[4200], ref_dir[4200], table[4300], ref_table[4300], log_path[4300];
    char *full[] = {"kvs", "--mode", (char *)mode, "--scale", "tiny", "--pm-dir", full_dir,
                    "--reps", "1", "--keep", "--log-room", "500@2"};
    char *ref[] = {"kvs", "--mode", (char *)mode, "--scale", "tiny", "--pm-dir", ref_dir,
                   "--reps", "1", "--kill", "progress:2"};
    char *rec[] = {"kvs", "--mode", (char *)mode, "--scale", "tiny", "--pm-dir", full_dir,
                   "--recover"};
    unsigned char *before, *now;
    size_t n1 = 0, n2 = 0;
    gpm_region t;
    gpmlog log;
    gpmtx_stats st;
    int ndp = strcmp(mode, "gpm-ndp") == 0, rc;
    char why[1024];
    snprintf(full_dir, sizeof full_dir, "%s/full-%s", dir, mode);
    snprintf(ref_dir, sizeof ref_dir, "%s/ref-%s", dir, mode);
    mkdir(full_dir, 0700);
    mkdir(ref_dir, 0700);
    snprintf(table, sizeof table, "%s/kvs-tiny.table", full_dir);
    snprintf(ref_table, sizeof ref_table, "%s/kvs-tiny.table", ref_dir);
    snprintf(log_path, sizeof log_path, "%s/kvs-tiny.log", full_dir);

    /* From batch 2 on, a batch's log holds 500 of its some 3,000 records. */
    rc = wl_test_run(&WORKLOAD, full, ARGC(full), errf);
    wl_test_line(errf, 1, why, sizeof why);
    CHECKF(rc == 1 && wl_test_count_lines(errf, "kvs: batch 2: ") >= 1, "%s: exit %d: %s", mode,
           rc, why);
    CHECKF(wl_test_run(&WORKLOAD, ref, ARGC(ref), errf) == 128 + SIGKILL, "%s", mode);

    /* Where the batch changes PM as it logs (in-kernel, or the CPU's), some
     * ways changed, the logged ones, and the undo gives back the table to
     * the byte; gpm-ndp copies nothing to PM before its log is durable and
     * its transaction begun, so the table is still the before-image. */
    before = check_read_file(ref_table, &n1);
    now = check_read_file(table, &n2);
    CHECKF(before && now && n1 == n2 && (memcmp(before, now, n1) != 0) == !ndp, "%s", mode);
    CHECKF(gpm_map(&t, table, n2, GPM_HOST_ONLY) == 0, "%s: %s", mode, gpm_last_error());
    CHECKF(gpmlog_open(&log, log_path, GPM_HOST_ONLY) == 0, "%s: %s", mode, gpm_last_error());
    CHECKF(gpmtx_active(&log) == !ndp && gpmtx_committed(&log) == 2, "%s", mode);
    CHECKF(gpmtx_recover(&log, &t, &st) == 0 && st.was_active == !ndp && (st.undone > 0) == !ndp,
           "%s", mode);
    CHECKF(before && n1 == n2 && memcmp(t.host, before, n1) == 0,
           "%s: the undo did not give back the table before batch 2", mode);
    gpmlog_close(&log);
    gpm_unmap(&t);
    free(before);
    free(now);
    /* The harness's own recovery then finishes and verifies the run. */
    CHECKF(wl_test_run(&WORKLOAD, rec, ARGC(rec), errf) == 0, "%s", mode);
}

#endif
