/* The reduction end to end on the CPU (its cpu mode needs no GPU):
 * verified rows, a real SIGKILL after chosen blocks resumed from the
 * durable ones, and a durable total that leaves nothing to do. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reduce_layout.h"
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
    char *ok[] = {"reduce", "--mode", "cpu", "--scale", "tiny", "--reps", "2", "--pm-dir", dir,
                  "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\treduce\trun\tcpu\ttiny\t4194304\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tn=1048576,block=1024,seed=1,cpu_threads=all:"),
                 1);
}

/* SIGKILL just after unit K (never on a clock), then --recover computes
 * only the blocks without the epoch: the row says what it found. */
static void crash_then_recover(void)
{
    char at[32];
    char *crash[] = {"reduce", "--mode", "cpu", "--n", "16M", "--block", "128", "--pm-dir",
                     dir, "--reps", "1", "--kill", at};
    char *rec[] = {"reduce", "--mode", "cpu", "--n", "16M", "--block", "128", "--pm-dir", dir,
                   "--recover", "--out", rows};
    unlink(rows);
    for (int trial = 0; trial < 3; trial++) {
        char params[4096];
        const char *d;
        unsigned long long durable = 0, total = 0, k = 1 + 50000 * (unsigned long long)trial;
        snprintf(at, sizeof at, "progress:%llu", k); /* of 131,073 units */
        CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
        /* At least the K units before the kill were durable (other threads
         * may have made more before it landed), and fewer than all. */
        wl_test_field(rows, "params", params, sizeof params);
        d = strstr(params, ",durable=");
        CHECKF(d && sscanf(d, ",durable=%llu/%llu", &durable, &total) == 2, "%s", params);
        CHECKF(durable >= k && durable < total && total == 131073, "%s", params);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\treduce\trecover\tcpu\tcustom\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",trial=mid-work,"), 3);
}

/* Killed at its last unit (the total), the run is durable whole: the
 * recovery computes nothing and verifies. */
static void durable_total_leaves_nothing_to_do(void)
{
    char *crash[] = {"reduce", "--mode", "cpu", "--n", "64K", "--block", "128", "--pm-dir",
                     dir, "--reps", "1", "--kill", "progress:513"};
    char *rec[] = {"reduce", "--mode", "cpu", "--n", "64K", "--block", "128", "--pm-dir", dir,
                   "--recover", "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "final=durable"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",durable=513/513,redone=0"), 1);
}

/* The total's persist lost (reduce_ref.c's last wl_pm_persist, a mutant
 * the checker cannot flag): the recovery finds every block durable and
 * only the total missing, and recomputes it from the slots, right. Its
 * loss costs one unit of redo, never a wrong answer. */
static void a_lost_total_is_recomputed_from_the_slots(void)
{
    char *crash[] = {"reduce", "--mode", "cpu", "--n", "64K", "--block", "128", "--pm-dir",
                     dir, "--reps", "1", "--kill", "progress:513"};
    char *rec[] = {"reduce", "--mode", "cpu", "--n", "64K", "--block", "128", "--pm-dir", dir,
                   "--recover", "--out", rows};
    char path[8400];
    uint64_t lost = 0;
    FILE *f;
    unlink(rows);
    CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK(wl_test_path(dir, "reduce-*.tree", path, sizeof path) == 0);
    f = fopen(path, "r+");
    CHECK(f);
    CHECK(fseek(f, (long)red_total_off(64 * 1024, 128), SEEK_SET) == 0 &&
          fwrite(&lost, 8, 1, f) == 1);
    fclose(f);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "resumed_blocks=0,pending_blocks=0,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",durable=512/513,redone=1"), 1);
}

/* A finished run damaged after it: 10 slots of block 3 overwritten. The
 * recovery finds the total durable and does nothing; verify names the
 * first wrong slot, and the row measures them: 10 of the 262,144 slots and
 * the total wrong. */
static void a_damaged_tree_is_measured_in_wrong_sums(void)
{
    char *run[] = {"reduce", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                   "--keep"};
    char *rec[] = {"reduce", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                   "--out", rows};
    char cmd[8400], path[8400], err[4300];
    uint64_t junk[10];
    FILE *f;
    snprintf(err, sizeof err, "%s/stderr", dir);
    unlink(rows);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    CHECK(wl_test_path(dir, "reduce-tiny.tree", path, sizeof path) == 0);
    for (int i = 0; i < 10; i++)
        junk[i] = red_slot(1, 0xffffffffu - (uint32_t)i); /* the run's epoch, wrong sums */
    f = fopen(path, "r+");
    CHECK(f);
    CHECK(fseek(f, (long)(red_slots_off() + (3 * 256 + 5) * 8), SEEK_SET) == 0 &&
          fwrite(junk, 8, 10, f) == 10);
    fclose(f);
    CHECK_EQ_INT(wl_test_run(&WORKLOAD, rec, ARGC(rec), err), 1);
    CHECK_EQ_INT(wl_test_count_lines(err, "reduce: slot 5 of block 3 holds 4294967295"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "final=durable"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",wrong_units=10/262145,units=sums"), 1);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/reduce-*", dir);
    CHECK(system(cmd) == 0);
}

/* A --block that is no power of two is refused by the harness, in one
 * line that names the flag and the choices, before any file is made. */
static void block_must_be_a_power_of_two(void)
{
    char *bad[] = {"reduce", "--mode", "cpu", "--block", "1000", "--pm-dir", dir};
    char err[4300];
    snprintf(err, sizeof err, "%s/stderr", dir);
    CHECK_EQ_INT(wl_test_run(&WORKLOAD, bad, ARGC(bad), err), 2);
    CHECK_EQ_INT(wl_test_count_lines(err, "--block: 1000 is not a power of two: pass 128, 256, "
                                          "... or 4096"), 1);
    CHECK(wl_test_path(dir, "reduce-*", err, sizeof err) != 0);
}

int main(void)
{
    wl_test_scratch("reduce-cpu", dir, rows, NULL);
    RUN(verified_rows_in_cpu_mode);
    RUN(block_must_be_a_power_of_two);
    RUN(crash_then_recover);
    RUN(durable_total_leaves_nothing_to_do);
    RUN(a_lost_total_is_recomputed_from_the_slots);
    RUN(a_damaged_tree_is_measured_in_wrong_sums);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
