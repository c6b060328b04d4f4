/* GPHash's kernels: every YCSB workload verified in gpm and none (each
 * answer and the whole table against the reference), BktCache written
 * through and reloaded, inserts racing by CAS for the free slots of a
 * table filled to 0.7, a SIGKILL inside a kernel in gpm-eadr recovered,
 * and the modes whose batches are transactions verified on deletes and
 * inserts, killed before a commit and recovered; keys that share a
 * group, interleaved, a turn each. (test_workloads.sh runs
 * every mode at tiny scale and gpm's crash trials.) */
#include <signal.h>
#include <stdio.h>
#include <string.h>

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

/* Without the mirror (lookups read PM), BktCache reloaded every 4 batches
 * while updates, inserts and deletes
 * write through cached buckets: every answer and the table still right,
 * and the cache serving lookups. Loading between batches, every phase
 * swaps in at once; loading beside them, a phase swaps in when it is done
 * (its buckets that batches wrote meanwhile fetched again), and at the
 * latest when the next begins, so only the last may be left out. */
static void bktcache_serves_lookups_and_stays_right(void)
{
    static const char *const mixes[] = {"a", "c", "d", "f", "delete", "insert"};
    static const char *const loading[] = {"blocking", "concurrent"};
    char line[512];
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    unlink(rows);
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < sizeof mixes / sizeof *mixes; i++) {
            char *argv[] = {"gphash", "--mode", "gpm", "--workload", (char *)mixes[i],
                            "--records", "100000", "--ops", "200000", "--batch", "2048",
                            "--mirror", "0", "--cache", "30", "--cache-reload", "4",
                            "--cache-loading",
                            (char *)loading[l], "--pm-dir", dir, "--reps", "2", "--out", rows};
            int rc = run_main(argv, ARGC(argv));
            wl_test_line(errf, 1, line, sizeof line);
            CHECKF(rc == 0, "%s %s: %s", loading[l], mixes[i], line);
        }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tworkload="), 12);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",bktcache_loads=24,"), 12); /* 100 batches */
    CHECK_EQ_INT(wl_test_count_lines(rows, "bktcache_loading=blocking,bktcache_loads=24,"
                                           "bktcache_swaps=24,bktcache_refetched=0,"), 6);
    CHECK_EQ_INT(wl_test_count_lines(rows, "bktcache_loading=concurrent,bktcache_loads=24,"
                                           "bktcache_swaps=2"), 6); /* 23 or 24 */
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
                     "--kill", "progress:120000"};
    char *rec[] = {"gphash", "--mode", "gpm-eadr", "--workload", "d", "--records", "100000",
                   "--ops", "200000", "--pm-dir", dir, "--recover", "--out", rows};
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    unlink(rows);
    CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",trial=mid-work,"), 1);
}

/* A trace that deletes each of the first RECORDS loaded keys and inserts
 * a new key after it: every batch frees slots and claims others. */
static void write_churn_trace(const char *path, uint64_t records)
{
    FILE *f = fopen(path, "w");
    CHECK(f);
    if (!f)
        return;
    for (uint64_t k = 0; k < records; k++) {
        fprintf(f, "DELETE usertable user%llu\n", (unsigned long long)wl_ycsb_key(k));
        fprintf(f, "INSERT usertable user%llu [ field0=x ]\n",
                (unsigned long long)wl_ycsb_key(records + k));
        if (k % 4 == 0)
            fprintf(f, "READ usertable user%llu [ <all fields>]\n",
                    (unsigned long long)wl_ycsb_key(records + k));
    }
    fclose(f);
}

/* Where the kernels cannot fence, a batch is a transaction of the mode's
 * engine: each verifies the churn of a table (17,000 keys deleted and as
 * many inserted in 49,152 slots; a delete waits for its batch's inserts,
 * so that no word changes twice in a batch and one undo record a word
 * suffices, and the batch's inserts need room beside the slots it frees). Where the engine is failure-atomic (gpm-ndp's
 * undo log, cap-delta's redo log), a kill before the run's third commit
 * leaves the load and two of the run's 18 batches durable, and the
 * recovery redoes the other 16. */
static void transactions_verify_and_recover_a_churned_table(void)
{
    static const char *const modes[] = {"gpm-ndp", "cap-mm", "cap-fs", "cap-eadr",
                                        "cap-delta"};
    char trace[4200], line[8192], *p;
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    snprintf(trace, sizeof trace, "%s/churn.txt", dir);
    write_churn_trace(trace, 17000);
    unlink(rows);
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        char *argv[] = {"gphash", "--mode", (char *)modes[m], "--records", "17000",
                        "--ycsb-trace", trace, "--key-bytes", "8", "--value-bytes", "8",
                        "--slots", "8", "--buckets", "4096", "--batch", "2048", "--pm-dir",
                        dir, "--reps", "2", "--out", rows};
        int rc = run_main(argv, ARGC(argv));
        wl_test_line(errf, 1, line, sizeof line);
        CHECKF(rc == 0, "%s: %s", modes[m], line);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tworkload="), 5);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",run_ops=38250,"), 5);
    CHECK_EQ_INT(wl_test_count_lines(rows, "tx=undo-flushed,atomic=yes"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "tx=redo-cpu,atomic=yes"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "tx=cap-chunks,atomic=no"), 3);
    for (int m = 0; m < 2; m++) {
        const char *mode = m ? "cap-delta" : "gpm-ndp";
        char *crash[] = {"gphash", "--mode", (char *)mode, "--records", "17000",
                         "--ycsb-trace", trace, "--key-bytes", "8", "--value-bytes", "8",
                         "--slots", "8", "--buckets", "4096", "--batch", "2048", "--pm-dir",
                         dir, "--reps", "1", "--kill", "commit:3"};
        char *rec[] = {"gphash", "--mode", (char *)mode, "--records", "17000",
                       "--ycsb-trace", trace, "--key-bytes", "8", "--value-bytes", "8",
                       "--slots", "8", "--buckets", "4096", "--batch", "2048", "--pm-dir",
                       dir, "--recover", "--out", rows};
        char want[128];
        unlink(rows);
        CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
        /* gpm keeps its progress in the header, not the log: refused,
         * naming the mode that can recover the files, which stay intact. */
        rec[2] = "gpm";
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
        snprintf(want, sizeof want, "recover it with --mode %s", mode);
        CHECK_EQ_INT(wl_test_count_lines(errf, want), 1);
        rec[2] = (char *)mode;
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
        wl_test_line(rows, 1, line, sizeof line);
        p = strstr(line, "trial=");
        CHECKF(p && !strncmp(p, "trial=mid-work,durable=2/18,redone=16", 37) &&
                   strstr(line, "\tok\t") && strstr(line, "resumed_from_batch=11"),
               "%s: %s", mode, line);
    }
}

/* A trace of loaded keys in pairs whose fingerprints share the grouped
 * bits (GROUP_BITS, 16), so that each pair's operations form one group,
 * interleaved: A is read, updated, B updated, A updated again and read.
 * The operations written (0: the file could not be). */
static uint64_t write_interleaved_trace(const char *path, uint64_t records)
{
    static uint32_t first[1u << 16];
    FILE *f = fopen(path, "w");
    uint64_t ops = 0;
    if (!f)
        return 0;
    memset(first, 0, sizeof first);
    for (uint64_t r = 0; r < records; r++) {
        uint64_t k = wl_ycsb_key(r), g = gph_fingerprint(&k, 1) & 0xffffu, a;
        if (!first[g]) {
            first[g] = (uint32_t)r + 1;
            continue;
        }
        a = wl_ycsb_key(first[g] - 1);
        fprintf(f, "READ usertable user%llu [ <all fields>]\n", (unsigned long long)a);
        fprintf(f, "UPDATE usertable user%llu [ field0=x ]\n", (unsigned long long)a);
        fprintf(f, "UPDATE usertable user%llu [ field0=x ]\n", (unsigned long long)k);
        fprintf(f, "UPDATE usertable user%llu [ field0=x ]\n", (unsigned long long)a);
        fprintf(f, "READ usertable user%llu [ <all fields>]\n", (unsigned long long)a);
        ops += 5;
    }
    fclose(f);
    return ops;
}

/* Keys that share the grouped bits and interleave in a batch (A, B, A)
 * take one turn each: no word changes twice in a batch. Every mode
 * verifies; and where a batch is an undo or redo transaction, a kill
 * before a commit, after the batch's words reached PM, is undone to the
 * batch before: the redone batch's reads of A (checked there) meet A's
 * value from before the batch, which a second turn of A would have
 * overwritten in the cell the undone reference names. */
static void interleaved_keys_of_a_group_take_one_turn(void)
{
    static const char *const modes[] = {"gpm", "gpm-ndp", "cap-delta"};
    char trace[4200], line[8192], ops[32];
    uint64_t n;
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    snprintf(trace, sizeof trace, "%s/interleaved.txt", dir);
    n = write_interleaved_trace(trace, 17000);
    CHECK(n > 5000);
    snprintf(ops, sizeof ops, ",run_ops=%llu,", (unsigned long long)n);
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        char *argv[] = {"gphash", "--mode", (char *)modes[m], "--records", "17000",
                        "--ycsb-trace", trace, "--key-bytes", "8", "--value-bytes", "16",
                        "--batch", "256", "--pm-dir", dir, "--reps", "1", "--out", rows};
        char *rec[] = {"gphash", "--mode", (char *)modes[m], "--records", "17000",
                       "--ycsb-trace", trace, "--key-bytes", "8", "--value-bytes", "16",
                       "--batch", "256", "--pm-dir", dir, "--recover", "--out", rows};
        char *kill[] = {"--kill", "commit:3"};
        char *crash[ARGC(argv) + 2];
        int rc;
        unlink(rows);
        rc = run_main(argv, ARGC(argv));
        wl_test_line(errf, 1, line, sizeof line);
        CHECKF(rc == 0, "%s: %s", modes[m], line);
        CHECK_EQ_INT(wl_test_count_lines(rows, ops), 1);
        if (m == 0)
            continue; /* gpm keeps no transaction to kill before its commit */
        memcpy(crash, argv, sizeof argv);
        memcpy(crash + ARGC(argv), kill, sizeof kill);
        CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
        unlink(rows);
        rc = run_main(rec, ARGC(rec));
        wl_test_line(errf, 1, line, sizeof line);
        CHECKF(rc == 0, "%s recovered: %s", modes[m], line);
        wl_test_line(rows, 1, line, sizeof line);
        CHECKF(strstr(line, "\tok\t") && strstr(line, "trial=mid-work,"), "%s: %s",
               modes[m], line);
    }
}

/* The same churn where the kernels fence, with the mirror and without:
 * deletes free slots that the batch's inserts claim, and no late store of
 * a delete overwrites the fingerprint an insert put there. */
static void churn_verifies_with_and_without_the_mirror(void)
{
    static const char *const mirror[] = {"1", "0"};
    char trace[4200], line[512];
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    snprintf(trace, sizeof trace, "%s/churn.txt", dir);
    write_churn_trace(trace, 17000);
    unlink(rows);
    for (int m = 0; m < 2; m++) {
        char *argv[] = {"gphash", "--mode", "gpm", "--mirror", (char *)mirror[m], "--records",
                        "17000", "--ycsb-trace", trace, "--key-bytes", "8", "--value-bytes",
                        "8", "--slots", "8", "--buckets", "4096", "--batch", "2048",
                        "--cache", "0", "--pm-dir", dir, "--reps", "3", "--out", rows};
        int rc = run_main(argv, ARGC(argv));
        wl_test_line(errf, 1, line, sizeof line);
        CHECKF(rc == 0, "--mirror %s: %s", mirror[m], line);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tworkload="), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",mirror=1,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",pm_reads=0"), 1);
}

int main(void)
{
    wl_test_scratch("gphash-gpu", dir, rows, errf);
    RUN(every_workload_verifies_in_gpm_and_none);
    RUN(bktcache_serves_lookups_and_stays_right);
    RUN(inserts_race_for_slots_by_cas);
    RUN(killed_in_a_kernel_and_recovered_in_gpm_eadr);
    RUN(transactions_verify_and_recover_a_churned_table);
    RUN(churn_verifies_with_and_without_the_mirror);
    RUN(interleaved_keys_of_a_group_take_one_turn);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
