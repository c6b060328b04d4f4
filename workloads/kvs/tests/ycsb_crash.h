/* gpKVS's YCSB run killed before the run's third commit (the load's
 * commits, in prepare(), do not count), never on a clock: the recovery
 * undoes that batch, finds the load and two of the run's eight batches
 * durable, and redoes the other six. Shared by the CPU counterpart's test
 * and the GPU modes' (tests/cpu, tests/gpu). */
#ifndef KVS_TEST_YCSB_CRASH_H
#define KVS_TEST_YCSB_CRASH_H

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "gpm/check.h"
#include "tests/wl_test.h"

/* In MODE, with PM files under DIR; the recovery's row goes to ROWS, the
 * programs' stderr to ERRF. */
static void kvs_ycsb_crash_case(const char *mode, char *dir, char *rows, const char *errf)
{
    char line[8192], *p;
    char *crash[] = {"kvs", "--mode", (char *)mode, "--scale", "tiny", "--pm-dir", dir, "--op",
                     "ycsb", "--reps", "1", "--kill", "commit:3"};
    char *rec[] = {"kvs", "--mode", (char *)mode, "--scale", "tiny", "--pm-dir", dir, "--op",
                   "ycsb", "--recover", "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(wl_test_run(&WORKLOAD, crash, ARGC(crash), errf), 128 + SIGKILL);
    CHECK_EQ_INT(wl_test_run(&WORKLOAD, rec, ARGC(rec), errf), 0);
    wl_test_line(rows, 1, line, sizeof line);
    p = strstr(line, "trial=");
    CHECKF(p && !strncmp(p, "trial=mid-work,durable=2/8,redone=6", 35) &&
               strstr(line, "\tok\t"),
           "%s", line);
}

#endif
