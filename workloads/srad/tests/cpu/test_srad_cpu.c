/* SRAD end to end on the CPU (its cpu mode needs no GPU): verified rows, a
 * real SIGKILL mid-run resumed from the last complete iteration, a
 * recovery after a finished run that redoes nothing, records of a file
 * whose run identity is gone never taken for this run's, and a bad ROI. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../srad_layout.h"
#include "gpm/check.h"
#include "tests/wl_test.h"
#include "wl.h"

static char dir[4096], rows[4200], err[4200];

static int run_main(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, err);
}

/* The recovery row's "durable=D/T,redone=R" (D = -1 if absent). */
static void last_progress(long *d, long *t, long *r)
{
    char line[8192], *p;
    FILE *f = fopen(rows, "r");
    *d = *t = *r = -1;
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if ((p = strstr(line, ",durable=")) != NULL &&
            sscanf(p, ",durable=%ld/%ld,redone=%ld", d, t, r) != 3)
            *d = -1;
    fclose(f);
}

static void verified_rows_in_cpu_mode(void)
{
    char *ok[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--reps", "2", "--cpu-threads", "1",
                  "--pm-dir", dir, "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    /* Two images and two coefficient arrays of 256 x 256 floats. */
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tsrad\trun\tcpu\ttiny\t1048576\t1\t2\t"), 1);
    /* Per repetition: 4 iterations of 2 x 256 KiB, and a 128-byte record each. */
    CHECK_EQ_INT(wl_test_count_lines(rows, "\t2097664\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\trows=256,cols=256,iters=4,lambda=0.5,roi-r1=0,"
                                           "roi-r2=31,roi-c1=0,roi-c2=31,seed=1,cpu_threads=1,"
                                           "check=cpu,max_dj=0,max_dc=0"), 1);
}

/* A real crash: SIGKILL from the watchdog while iterations run, then
 * --recover resumes after the last complete one. Kills come later each
 * trial until one lands after some iteration was durable and before the
 * last (a loaded machine may be slower than expected). */
static void crash_then_recover_resumes_the_last_complete_iteration(void)
{
    static const char *after[] = {"time:0.03", "time:0.06", "time:0.1", "time:0.2"};
    char *rec[] = {"srad", "--mode", "cpu", "--rows", "1024", "--cols", "512", "--iters", "40",
                   "--cpu-threads", "1", "--pm-dir", dir, "--recover", "--out", rows};
    int mid = 0;
    unlink(rows);
    for (int trial = 0; trial < 4 && !mid; trial++) {
        char *crash[] = {"srad", "--mode", "cpu", "--rows", "1024", "--cols", "512", "--iters",
                         "40", "--cpu-threads", "1", "--pm-dir", dir, "--reps", "1",
                         "--kill", (char *)after[trial]};
        long d, t, r;
        int rc = run_main(crash, ARGC(crash));
        CHECKF(rc == 128 + SIGKILL || rc == 0, "crash run ended with %d", rc);
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
        CHECK_EQ_INT(wl_test_count_lines(rows, "\tsrad\trecover\tcpu\tcustom\t"), trial + 1);
        CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), trial + 1);
        last_progress(&d, &t, &r);
        if (rc == 0) {
            CHECK_EQ_INT(wl_test_count_lines(rows, ",trial=finished-first,durable=40/40,"
                                                   "redone=0,"), 1);
            SKIP("the run finished before the watchdog (machine too fast for 0.03 s)");
        }
        CHECK_EQ_INT(t, 40);
        CHECK_EQ_INT(r, t - d);
        if (d > 0 && d < t) {
            char want[64];
            snprintf(want, sizeof want, ",trial=mid-work,durable=%ld/40,", d);
            CHECK_EQ_INT(wl_test_count_lines(rows, want), 1);
            snprintf(want, sizeof want, ",resumed_from_iter=%ld,", d);
            CHECK_EQ_INT(wl_test_count_lines(rows, want), 1);
            mid = 1;
        }
    }
    CHECKF(mid, "no kill landed between the first and the last iteration");
}

static void recovery_after_a_finished_run_redoes_nothing(void)
{
    char *run[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--cpu-threads", "1", "--pm-dir",
                   dir, "--reps", "1", "--keep"};
    char *rec[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--cpu-threads", "1", "--pm-dir",
                   dir, "--recover", "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",trial=finished-first,durable=4/4,redone=0,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",resumed_from_iter=4,"), 1);
}

/* A finished run whose final image was damaged after it: 256 pixels set
 * to 1e6. The recovery redoes nothing; verify fails, and the row says how
 * wrong: 256 of the 65536 pixels, the largest difference about 1e6, the
 * iteration record right. */
static void a_damaged_image_is_measured_in_wrong_pixels(void)
{
    char *run[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--cpu-threads", "1", "--pm-dir",
                   dir, "--reps", "1", "--keep"};
    char *rec[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--cpu-threads", "1", "--pm-dir",
                   dir, "--recover", "--out", rows};
    char cmd[8400], path[8400];
    float junk[256];
    FILE *f;
    unlink(rows);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    snprintf(path, sizeof path, "%s/srad-tiny.image", dir);
    for (int k = 0; k < 256; k++)
        junk[k] = 1e6f;
    f = fopen(path, "r+");
    CHECK(f);
    /* 4 iterations: the last is in slot 0; rows 10 and 11. */
    CHECK(fseek(f, (long)(srad_image_off(256 * 256, srad_slot(4)) + 2560 * 4), SEEK_SET) == 0 &&
          fwrite(junk, sizeof junk, 1, f) == 1);
    fclose(f);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
    CHECK_EQ_INT(wl_test_count_lines(err, "image pixel at row 10 column 0 after 4 iterations is "
                                          "1000000"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",wrong_units=256/65536,units=pixels,wrong_max_err=1e+06,"
                                           "wrong_err=abs,wrong_marks=0/1"), 1);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/srad-*", dir);
    CHECK(system(cmd) == 0);
}

/* Records of an earlier run in a file whose identity is lost: the harness
 * zeroes the region, so a new run (whose epoch starts again) never resumes
 * from them. */
static void stale_records_without_identity_never_count(void)
{
    char *keep[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--cpu-threads", "1",
                    "--pm-dir", dir, "--reps", "1", "--keep"};
    char *crash[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--cpu-threads", "1",
                     "--pm-dir", dir, "--reps", "1", "--kill", "time:0.001"};
    char *rec[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--cpu-threads", "1", "--pm-dir",
                   dir, "--recover", "--out", rows};
    char cmd[8400], path[8400];
    srad_record r[2];
    float junk[256];
    FILE *f;
    CHECK_EQ_INT(run_main(keep, ARGC(keep)), 0);
    snprintf(path, sizeof path, "%s/srad-tiny.image", dir);
    /* Iterations 3 and 4 of epoch 1 "complete", over images of junk. */
    r[0] = srad_record_make(1, 4, 256, 256);
    r[1] = srad_record_make(1, 3, 256, 256);
    for (int k = 0; k < 256; k++)
        junk[k] = 1e6f;
    f = fopen(path, "r+");
    CHECK(f);
    CHECK(fwrite(r, sizeof r, 1, f) == 1);
    for (uint32_t s = 0; s < 2; s++)
        CHECK(fseek(f, (long)srad_image_off(256 * 256, s), SEEK_SET) == 0 &&
              fwrite(junk, sizeof junk, 1, f) == 1);
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/srad-tiny.id", dir);
    CHECK(system(cmd) == 0);
    unlink(rows);
    for (int trial = 0; trial < 2; trial++) {
        int rc = run_main(crash, ARGC(crash));
        CHECKF(rc == 128 + SIGKILL || rc == 0, "crash run ended with %d", rc);
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 2);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/srad-*", dir);
    CHECK(system(cmd) == 0);
}

static void roi_outside_the_image_is_refused(void)
{
    char *bad[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--roi-r2", "256", "--pm-dir", dir};
    char *bad_c[] = {"srad", "--mode", "cpu", "--scale", "tiny", "--roi-c1", "40", "--pm-dir",
                     dir};
    char line[512] = "";
    FILE *f;
    CHECK_EQ_INT(run_main(bad, ARGC(bad)), 2);
    f = fopen(err, "r");
    CHECK(f && fgets(line, sizeof line, f));
    fclose(f);
    CHECK_MSG(line, "--roi-r1/--roi-r2: rows 0..256 are not inside the image's 256 rows");
    CHECK_EQ_INT(run_main(bad_c, ARGC(bad_c)), 2);
    f = fopen(err, "r");
    CHECK(f && fgets(line, sizeof line, f));
    fclose(f);
    CHECK_MSG(line, "--roi-c1/--roi-c2: columns 40..31");
}

int main(void)
{
    wl_test_scratch("srad-cpu", dir, rows, err);
    RUN(verified_rows_in_cpu_mode);
    RUN(crash_then_recover_resumes_the_last_complete_iteration);
    RUN(recovery_after_a_finished_run_redoes_nothing);
    RUN(a_damaged_image_is_measured_in_wrong_pixels);
    RUN(stale_records_without_identity_never_count);
    RUN(roi_outside_the_image_is_refused);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
