/* gpKVS's kernels in the GPU modes that log: an undo record that does not
 * fit leaves its way unchanged, the batch fails, and the undo gives back
 * exactly the table before it (gpm: records fenced in-kernel; gpm-ndp:
 * flushed by the CPU before anything on PM changes). And YCSB's stream
 * (--op ycsb) in every GPU mode, killed and recovered in gpm. */
#include <unistd.h>

#include "../../kvs.h"
#include "../log_overflow.h"
#include "../ycsb_crash.h"
#include "gpm/check_gpu.h"

static char dir[4096], rows[4200], errf[4200];

static void a_full_log_changes_nothing_it_could_not_log_in_gpm(void)
{
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    kvs_log_overflow_case("gpm", dir, errf);
}

static void a_full_log_changes_nothing_it_could_not_log_in_gpm_ndp(void)
{
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    kvs_log_overflow_case("gpm-ndp", dir, errf);
}

static int run(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, errf);
}

/* F's reads and read-modify-writes, D's inserts among reads of the
 * latest, in every GPU mode gpKVS has, each checked against the
 * reference (its GETs' digests and the whole table). */
static void ycsb_runs_in_every_gpu_mode(void)
{
    const char *modes[] = {"gpm", "gpm-ndp", "gpm-eadr", "cap-mm", "cap-fs", "cap-delta",
                           "none"};
    const char *w[] = {"f", "d"};
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    unlink(rows);
    for (int m = 0; m < 7; m++)
        for (int k = 0; k < 2; k++) {
            char *av[] = {"kvs", "--mode", (char *)modes[m], "--scale", "tiny", "--pm-dir", dir,
                          "--reps", "1", "--out", rows, "--op", "ycsb", "--workload",
                          (char *)w[k]};
            CHECKF(run(av, ARGC(av)) == 0, "--mode %s --workload %s", modes[m], w[k]);
        }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tkvs\tycsb\t"), 14);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 14);
    /* Each row says where its batches spent their time, phase by phase. */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",gets_s="), 14);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",apply_s="), 14);
    /* And what its kernels stored to PM, for a roofline. */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",pm_records="), 14);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",pm_record_bytes="), 14);
}

/* Killed before the run's third commit, recovered (ycsb_crash.h). */
static void a_killed_ycsb_run_resumes_in_gpm(void)
{
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    kvs_ycsb_crash_case("gpm", dir, rows, errf);
}

int main(void)
{
    wl_test_scratch("kvs-gpu", dir, rows, errf);
    RUN(a_full_log_changes_nothing_it_could_not_log_in_gpm);
    RUN(a_full_log_changes_nothing_it_could_not_log_in_gpm_ndp);
    RUN(ycsb_runs_in_every_gpu_mode);
    RUN(a_killed_ycsb_run_resumes_in_gpm);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
