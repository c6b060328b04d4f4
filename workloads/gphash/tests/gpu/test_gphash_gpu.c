/* GPHash's kernels: every YCSB workload verified in gpm and none (each
 * answer and the whole table against the reference), BktCache written
 * through and reloaded, inserts racing by CAS for the free slots of a
 * table filled to 0.7, and a SIGKILL inside a kernel in gpm-eadr
 * recovered. (test_workloads.sh runs
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
            int rc = run_main(argv, ARGC(argv));
            wl_test_line(errf, 1, line, sizeof line);
            CHECKF(rc == 0, "%s %s: %s", modes[m], mixes[i], line);
        }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tworkload="), 22);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",kernel_s="), 22);
}

/* BktCache reloaded every 4 batches while updates, inserts and deletes
 * write through cached buckets: every answer and the table still right,
 * and the cache serving lookups. */
static void bktcache_serves_lookups_and_stays_right(void)
{
    static const char *const mixes[] = {"a", "c", "d", "f", "delete", "insert"};
    char line[512];
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    unlink(rows);
    for (size_t i = 0; i < sizeof mixes / sizeof *mixes; i++) {
        char *argv[] = {"gphash", "--mode", "gpm", "--workload", (char *)mixes[i], "--records",
                        "100000", "--ops", "200000", "--batch", "2048", "--cache", "30",
                        "--cache-reload", "4", "--pm-dir", dir, "--reps", "2", "--out", rows};
        int rc = run_main(argv, ARGC(argv));
        wl_test_line(errf, 1, line, sizeof line);
        CHECKF(rc == 0, "%s: %s", mixes[i], line);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tworkload="), 6);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",bktcache_loads=24,"), 6); /* 100 batches */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",bktcache_hit_rate=0.0000"), 0);
}

/* 8-byte keys and values in 4-slot buckets filled to 0.7 (34,000 keys in
 * 49,152 slots): warps' inserts meet on one free slot, only one CAS wins
 * it, and the others look again (the row counts them: cas_retries). */
static void inserts_race_for_slots_by_cas(void)
{
    char *argv[] = {"gphash", "--mode", "gpm", "--workload", "insert", "--records", "20000",
                    "--ops", "14000", "--key-bytes", "8", "--value-bytes", "8", "--slots",
                    "4", "--buckets", "8192", "--batch", "8192", "--pm-dir", dir, "--reps",
                    "3", "--out", rows};
    char line[512];
    int rc;
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    unlink(rows);
    rc = run_main(argv, ARGC(argv));
    wl_test_line(errf, 1, line, sizeof line);
    CHECKF(rc == 0, "%s", line);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",cas_retries=0,"), 0);
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
    RUN(bktcache_serves_lookups_and_stays_right);
    RUN(inserts_race_for_slots_by_cas);
    RUN(killed_in_a_kernel_and_recovered_in_gpm_eadr);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
