/* PS end to end on the CPU (its cpu mode needs no GPU): verified rows, a
 * real SIGKILL mid-scan resumed from the durable blocks, and stale markers
 * of a file whose run identity is gone never taken for this run's. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../ps_layout.h"
#include "gpm/check.h"
#include "tests/wl_test.h"
#include "wl.h"

static char dir[4096], rows[4200];

static int run_main(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, NULL);
}

static void verified_rows_in_cpu_mode(void)
{
    char *ok[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--reps", "2", "--pm-dir", dir,
                  "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tps\trun\tcpu\ttiny\t4194304\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tn=1048576,block=4096,seed=1,cpu_threads=all:"), 1);
}

/* A real crash: SIGKILL just after unit K of progress (never on a clock,
 * so it lands mid-scan whatever the machine's speed), then --recover
 * resumes the blocks that were not done; the row says what it found and
 * reused. */
static void crash_then_recover(void)
{
    char at[32];
    char *crash[] = {"ps", "--mode", "cpu", "--n", "64M", "--block", "256", "--pm-dir", dir,
                     "--reps", "1", "--kill", at};
    char *rec[] = {"ps", "--mode", "cpu", "--n", "64M", "--block", "256", "--pm-dir", dir,
                   "--recover", "--out", rows};
    unlink(rows);
    for (int trial = 0; trial < 3; trial++) {
        snprintf(at, sizeof at, "progress:%d", 1 + 100000 * trial); /* of 262,145 units */
        CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tps\trecover\tcpu\tcustom\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",trial=mid-work,"), 3);
}

/* Done markers of some earlier run in a file whose identity is lost: the
 * new run must not resume from them after a crash. */
static void stale_markers_without_identity_never_count(void)
{
    char *crash[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--block", "128", "--pm-dir",
                     dir, "--reps", "1", "--kill", "time:0.002", "--keep"};
    char *rec[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--block", "128", "--pm-dir", dir,
                   "--recover"};
    char cmd[8400], path[8400];
    const uint64_t n = 16 << 16, nb = ps_nblocks(n, 128);
    uint32_t *done = malloc(nb * 4);
    FILE *f;
    CHECK(done);
    /* Make the files once to learn their name, then replace the region with
     * one whose every block carries epoch 1 and drop the identity. */
    CHECK_EQ_INT(run_main(crash, ARGC(crash)) >= 0, 1);
    CHECK(wl_test_path(dir, "ps-custom-*.sums", path, sizeof path) == 0);
    for (uint64_t b = 0; b < nb; b++)
        done[b] = 1;
    f = fopen(path, "r+");
    CHECK(f);
    CHECK(fseek(f, (long)ps_done_off(n), SEEK_SET) == 0 && fwrite(done, 4, nb, f) == nb);
    CHECK(fseek(f, 0, SEEK_SET) == 0 && fwrite(done, 4, 64, f) == 64); /* wrong sums too */
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/ps-custom-*.id", dir);
    CHECK(system(cmd) == 0);
    for (int trial = 0; trial < 3; trial++) {
        int rc = run_main(crash, ARGC(crash));
        CHECKF(rc == 128 + SIGKILL || rc == 0, "crash run ended with %d", rc);
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    }
    free(done);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/ps-*", dir);
    CHECK(system(cmd) == 0);
}

/* A finished scan damaged after it: 100 partial sums of block 1
 * overwritten, the done markers of blocks 10 to 12 cleared. The recovery
 * redoes blocks 10 to 12 and the block sums, and trusts block 1's marker;
 * verify names the first wrong sum, and the row measures them: 100 of the
 * 1048576 partial and 257 block sums wrong, every marker there. */
static void a_damaged_scan_is_measured_in_wrong_sums(void)
{
    char *run[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                   "--keep"};
    char *rec[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                   "--out", rows};
    char cmd[8400], path[8400], err[4300];
    const uint64_t n = 16 << 16;
    uint32_t junk[100], zero[3] = {0, 0, 0};
    FILE *f;
    snprintf(err, sizeof err, "%s/stderr", dir);
    unlink(rows);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    CHECK(wl_test_path(dir, "ps-tiny.sums", path, sizeof path) == 0);
    for (int i = 0; i < 100; i++)
        junk[i] = 0xffffffffu - (uint32_t)i;
    f = fopen(path, "r+");
    CHECK(f);
    CHECK(fseek(f, (long)(ps_out_off() + 5000 * 4), SEEK_SET) == 0 &&
          fwrite(junk, 4, 100, f) == 100);
    CHECK(fseek(f, (long)(ps_done_off(n) + 10 * 4), SEEK_SET) == 0 &&
          fwrite(zero, 4, 3, f) == 3);
    fclose(f);
    CHECK_EQ_INT(wl_test_run(&WORKLOAD, rec, ARGC(rec), err), 1);
    CHECK_EQ_INT(wl_test_count_lines(err, "ps: partial sums: element 5000 is 4294967295"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",resumed_blocks=3,pending_blocks=3,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",wrong_units=100/1048833,units=sums,wrong_marks=0/256"),
                 1);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/ps-*", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    wl_test_scratch("ps-cpu", dir, rows, NULL);
    RUN(verified_rows_in_cpu_mode);
    RUN(crash_then_recover);
    RUN(stale_markers_without_identity_never_count);
    RUN(a_damaged_scan_is_measured_in_wrong_sums);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
