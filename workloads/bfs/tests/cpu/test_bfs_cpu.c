/* BFS end to end on the CPU (its cpu mode needs no GPU): verified rows on
 * the generator and on a DIMACS file, bad flags, a real SIGKILL mid-search
 * resumed from the durable levels, and recoveries that find a finished
 * search, a cost array of another epoch, no durable level, or another
 * graph. */
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../bfs_layout.h"
#include "gpm/check.h"
#include "tests/wl_test.h"
#include "wl.h"

static char dir[4096], rows[4200], err[4200], gr[4200];

static int run_main(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, err);
}

/* The progress of the last recovery row of ROWS. */
static int last_progress(unsigned *durable, unsigned *total, unsigned *redone, char *trial)
{
    char line[8192], *p = NULL;
    FILE *f = fopen(rows, "r");
    int found = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if ((p = strstr(line, ",trial=")) &&
            sscanf(p, ",trial=%31[a-z-],durable=%u/%u,redone=%u", trial, durable, total,
                   redone) == 4)
            found = 1;
    fclose(f);
    return found;
}

static void remove_pm_files(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/bfs-*", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s/bfs-*\n", dir);
}

static void verified_rows_on_the_generator(void)
{
    char *ok[] = {"bfs", "--mode", "cpu", "--scale", "tiny", "--reps", "2", "--pm-dir", dir,
                  "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tbfs\trun\tcpu\ttiny\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tnodes=65536,graph=gen,source=0,seed=1,cpu_threads=all:"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",graph_nodes=65536,arcs="), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",input=generated-lattice-256x256"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",levels=0,"), 0);
}

/* A 5 x 5 grid, every arc both ways: from its centre, 5 levels. */
static int write_grid(const char *path, int shift)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "c a 5 x 5 grid\np sp 25 80\n");
    for (int v = 0; v < 25; v++) {
        if (v % 5 < 4)
            fprintf(f, "a %d %d 1\na %d %d 1\n", v + 1, v + 2, v + 2, v + 1);
        if (v < 20) /* SHIFT moves one arc: the same size, another graph */
            fprintf(f, "a %d %d 1\na %d %d 1\n", v + 1, v + 6, v + 6,
                    v == 0 && shift ? 3 : v + 1);
    }
    return fclose(f);
}

static void verified_rows_on_a_dimacs_file(void)
{
    char *ok[] = {"bfs", "--mode", "cpu", "--graph", gr, "--source", "12", "--reps", "1",
                  "--pm-dir", dir, "--out", rows};
    unlink(rows);
    CHECK(write_grid(gr, 0) == 0);
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tbfs\trun\tcpu\tcustom\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",graph_nodes=25,arcs=80,levels=5,graph_cache="), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",input=file-test-bfs-grid.gr"), 1);
}

static void bad_flags_name_the_flag(void)
{
    char *nodes[] = {"bfs", "--mode", "cpu", "--graph", gr, "--nodes", "100", "--pm-dir", dir};
    char *source[] = {"bfs", "--mode", "cpu", "--graph", gr, "--source", "25", "--pm-dir", dir};
    char *missing[] = {"bfs", "--mode", "cpu", "--graph", "/nonexistent/x.gr", "--pm-dir", dir};
    CHECK(write_grid(gr, 0) == 0);
    CHECK_EQ_INT(run_main(nodes, ARGC(nodes)), 2);
    CHECK(wl_test_count_lines(err, "--nodes: the graph file") == 1);
    CHECK_EQ_INT(run_main(source, ARGC(source)), 2);
    CHECK(wl_test_count_lines(err, "--source: node 25 of a graph of 25 nodes") == 1);
    CHECK_EQ_INT(run_main(missing, ARGC(missing)), 2);
    CHECK(wl_test_count_lines(err, "/nonexistent/x.gr: cannot open the graph") == 1);
}

/* A real crash: SIGKILL just after unit K of the search's durable progress
 * (never on a clock, so it lands mid-search whatever the machine's speed;
 * 2,913 units here), then --recover resumes from the durable levels:
 * the row says what it found and reused, and a recovery that started over
 * would have redone more than total - durable (which the harness fails). */
static void crash_then_recover_from_a_durable_level(void)
{
    char at[32];
    char *crash[] = {"bfs", "--mode", "cpu", "--nodes", "2097152", "--cpu-threads", "1",
                     "--pm-dir", dir, "--reps", "1", "--kill", at};
    char *rec[] = {"bfs", "--mode", "cpu", "--nodes", "2097152", "--cpu-threads", "1",
                   "--pm-dir", dir, "--recover", "--out", rows};
    unlink(rows);
    for (int trial = 0; trial < 3; trial++) {
        unsigned durable, total, redone;
        char what[32];
        snprintf(at, sizeof at, "progress:%d", 1 + 100 * trial);
        CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
        CHECK(last_progress(&durable, &total, &redone, what));
        CHECKF(redone == total - durable, "durable=%u/%u,redone=%u", durable, total, redone);
        CHECKF(strcmp(what, "mid-work") == 0 && durable > 0 && durable < total,
               "killed after unit %s: %s with durable=%u/%u", at, what, durable, total);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tbfs\trecover\tcpu\tcustom\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",resumed_from_level="), 3);
    remove_pm_files();
}

/* Writes LEN bytes at OFF of the region. */
static int poke(const char *path, long off, const void *p, size_t len)
{
    FILE *f = fopen(path, "r+");
    size_t k;
    if (!f)
        return -1;
    k = fseek(f, off, SEEK_SET) == 0 ? fwrite(p, 1, len, f) : 0;
    return fclose(f) == 0 && k == len ? 0 : -1;
}

static void recovery_of_a_finished_a_stale_or_an_empty_search(void)
{
    char *run[] = {"bfs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                   "--keep"};
    char *rec[] = {"bfs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                   "--keep", "--out", rows};
    char path[4200], what[32];
    unsigned durable, total, redone, garbage[64], zero = 0;
    uint64_t none = 0;
    unlink(rows);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    /* Finished: everything durable, nothing redone. */
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK(last_progress(&durable, &total, &redone, what));
    CHECK(strcmp(what, "finished-first") == 0 && durable == total && redone == 0 && total > 500);
    /* A cost array that is not this epoch's (as a CAP run leaves it) is
     * rewritten from the durable frontiers. */
    CHECK(wl_test_path(dir, "bfs-*.search", path, sizeof path) == 0);
    for (int i = 0; i < 64; i++)
        garbage[i] = 7;
    CHECK(poke(path, (long)(bfs_meta_off() + offsetof(struct bfs_meta, cost_epoch)), &zero, 4) == 0);
    CHECK(poke(path, (long)bfs_cost_off() + 4000, garbage, sizeof garbage) == 0);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK(last_progress(&durable, &total, &redone, what));
    CHECK(durable == total && redone == 0);
    /* No durable level (a count of no run): the search starts over. */
    CHECK(poke(path, (long)bfs_count_off(), &none, 8) == 0);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK(last_progress(&durable, &total, &redone, what));
    CHECKF(durable == 0 && redone == total && total > 500, "%s durable=%u/%u redone=%u", what,
           durable, total, redone);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
    remove_pm_files();
}

/* A finished search whose costs were damaged after it: the recovery has
 * nothing to do but verify, which fails, and its row says how wrong: 64
 * nodes of the 65536 with a wrong cost, the durable count right. */
static void a_damaged_search_is_measured_in_wrong_nodes(void)
{
    char *run[] = {"bfs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                   "--keep"};
    char *rec[] = {"bfs", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                   "--out", rows};
    char path[4200];
    unsigned garbage[64];
    unlink(rows);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    CHECK(wl_test_path(dir, "bfs-*.search", path, sizeof path) == 0);
    for (int i = 0; i < 64; i++)
        garbage[i] = 1u << 30; /* no cost: a search of 65536 nodes has fewer levels */
    CHECK(poke(path, (long)bfs_cost_off() + 4000, garbage, sizeof garbage) == 0);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
    CHECK_EQ_INT(wl_test_count_lines(err, "cost of node: element 1000 is 1073741824, expected"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",wrong_units=64/65536,units=nodes,wrong_marks=0/1"),
                 1);
    remove_pm_files();
}

static void recovery_refuses_another_graph(void)
{
    char *run[] = {"bfs", "--mode", "cpu", "--graph", gr, "--pm-dir", dir, "--reps", "1",
                   "--keep"};
    char *rec[] = {"bfs", "--mode", "cpu", "--graph", gr, "--pm-dir", dir, "--recover"};
    struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
    CHECK(write_grid(gr, 0) == 0);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    CHECK(write_grid(gr, 1) == 0);
    CHECK(utimensat(AT_FDCWD, gr, later, 0) == 0); /* whatever the clock's resolution */
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
    CHECK(wl_test_count_lines(err, "holds a search of another graph or source") == 1);
    remove_pm_files();
}

int main(void)
{
    char data[256];
    wl_test_scratch("bfs-cpu", dir, rows, err);
    snprintf(data, sizeof data, "/tmp/test-bfs-cpu-%d", (int)getpid());
    mkdir(data, 0700);
    setenv("GPM_DATA_DIR", data, 1); /* graph caches: scratch */
    snprintf(gr, sizeof gr, "%s/test-bfs-grid.gr", data);
    RUN(verified_rows_on_the_generator);
    RUN(verified_rows_on_a_dimacs_file);
    RUN(bad_flags_name_the_flag);
    RUN(crash_then_recover_from_a_durable_level);
    RUN(recovery_of_a_finished_a_stale_or_an_empty_search);
    RUN(a_damaged_search_is_measured_in_wrong_nodes);
    RUN(recovery_refuses_another_graph);
    wl_test_scratch_remove(dir);
    wl_test_scratch_remove(data);
    CHECK_EXIT();
}
