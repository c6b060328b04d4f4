/* GPHash's kernels: every YCSB workload verified in gpm and none (each
 * answer and the whole table against the reference), inserts racing by CAS
 * for the few free slots of a nearly full table of 2-slot buckets, and a
 * SIGKILL inside a kernel in gpm-eadr recovered. (test_workloads.sh runs
 * every mode at tiny scale and gpm's crash trials.) */
#include <signal.h>

#include "../../gphash.h"
#include "gpm/check_gpu.h"
#include "tests/wl_test.h"

static char dir[4096], rows[4200], errf[4200];

static int run_main(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, errf);
}

static void every_workload_verifies_in_gpm_and_none(void)
{
    static const char *const mixes[] = {"load", "a", "b", "c", "d", "f", "search",
                                        "search-miss", "insert", "update", "delete"};
    static const char *const modes[] = {"gpm", "none"};
    char line[512];
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    unlink(rows);
    for (int m = 0; m < 2; m++)
        for (size_t i = 0; i < sizeof mixes / sizeof *mixes; i++) {
            char *argv[] = {"gphash", "--mode", (char *)modes[m], "--workload",
                            (char *)mixes[i], "--records", "100000", "--ops", "200000",
                            "--batch", "2048", "--pm-dir", dir, "--reps", "2", "--out", rows};
            wl_test_line(errf, 1, line, sizeof line);
            CHECKF(run_main(argv, ARGC(argv)) == 0, "%s %s: %s", modes[m], mixes[i], line);
        }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tworkload="), 22);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",kernel_s="), 22);
}

/* 8-byte keys and values in 2-slot buckets filled to 0.9: many warps'
 * inserts meet on one free slot, and only one CAS wins it. */
static void inserts_race_for_slots_by_cas(void)
{
    char *argv[] = {"gphash", "--mode", "gpm", "--workload", "insert", "--records", "20000",
                    "--ops", "35000", "--key-bytes", "8", "--value-bytes", "8", "--slots",
                    "2", "--buckets", "16384", "--batch", "8192", "--pm-dir", dir, "--reps",
                    "3"};
    char line[512];
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    wl_test_line(errf, 1, line, sizeof line);
    CHECKF(run_main(argv, ARGC(argv)) == 0, "%s", line);
}

/* Killed inside a kernel, just after operation K is durable; recovered. */
static void killed_in_a_kernel_and_recovered_in_gpm_eadr(void)
{
    char *crash[] = {"gphash", "--mode", "gpm-eadr", "--workload", "d", "--records",
                     "100000", "--ops", "200000", "--pm-dir", dir, "--reps", "1",
                     "--crash-at-progress", "120000"};
    char *rec[] = {"gphash", "--mode", "gpm-eadr", "--workload", "d", "--records", "100000",
                   "--ops", "200000", "--pm-dir", dir, "--recover", "--out", rows};
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    unlink(rows);
    CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",trial=mid-work,"), 1);
}

int main(void)
{
    wl_test_scratch("gphash-gpu", dir, rows, errf);
    RUN(every_workload_verifies_in_gpm_and_none);
    RUN(inserts_race_for_slots_by_cas);
    RUN(killed_in_a_kernel_and_recovered_in_gpm_eadr);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
