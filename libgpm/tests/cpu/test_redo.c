/* The redo log of CPU-assisted transactions without a GPU: its shape,
 * a batch committed and applied, one committed and applied halfway
 * (recovery finishes it), one logged and not committed (recovery drops
 * it), refusals that change nothing, and real SIGKILLs of a process
 * committing batch after batch, each recovered to exactly the table after
 * the last commit. */
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/hd.h"
#include "gpm/redo.h"

#define TABLE_BYTES (256 * 1024)
#define DATA 16 /* bytes a record sets */
#define RECORDS 1000 /* a batch */
#define BATCHES 2000

struct record {
    uint64_t off;
    uint8_t data[DATA];
};

/* Batch B's records: RECORDS distinct 16-byte slots of the table, their
 * new bytes a function of (B, slot). */
static void batch(uint64_t b, struct record *r)
{
    uint64_t slots = TABLE_BYTES / DATA, start = gpm_mix64(b) % slots;
    for (uint64_t k = 0; k < RECORDS; k++) {
        uint64_t s = (start + k * 7919) % slots; /* 7919 is prime to the slot count */
        r[k].off = s * DATA;
        for (int i = 0; i < DATA; i++)
            r[k].data[i] = (uint8_t)gpm_mix64(b * 131 + s * 17 + (uint64_t)i);
    }
}

/* The table after batches 0..N-1, from zero. */
static void reference(uint64_t n, uint8_t *t)
{
    struct record r[RECORDS];
    memset(t, 0, TABLE_BYTES);
    for (uint64_t b = 0; b < n; b++) {
        batch(b, r);
        for (int k = 0; k < RECORDS; k++)
            memcpy(t + r[k].off, r[k].data, DATA);
    }
}

/* Removes the test's files (under the PM directory). */
static void remove_pair(void)
{
    char full[4096];
    if (gpm_resolve_path("redo-test.log", full, sizeof full) == 0)
        unlink(full);
    if (gpm_resolve_path("redo-test.table", full, sizeof full) == 0)
        unlink(full);
}

/* The log and the table: CREATE makes them afresh (a zero table). */
static int open_pair(gpm_region *log, gpm_region *table, int create)
{
    int flags = (create ? GPM_CREATE : 0) | GPM_HOST_ONLY;
    if (create)
        remove_pair();
    if (gpm_map(log, "redo-test.log", gpm_redo_bytes(DATA, RECORDS), flags) != 0)
        return -1;
    if (gpm_map(table, "redo-test.table", TABLE_BYTES, flags) != 0) {
        gpm_unmap(log);
        return -1;
    }
    if (create && (gpm_redo_init(log, DATA, RECORDS) != 0 ||
                   gpm_region_persist(table, table->host, TABLE_BYTES) != 0)) {
        gpm_unmap(log), gpm_unmap(table);
        return -1;
    }
    return 0;
}

static void close_pair(gpm_region *log, gpm_region *table)
{
    gpm_unmap(log);
    gpm_unmap(table);
}

static void shape_is_checked(void)
{
    gpm_region log, table;
    CHECK(gpm_redo_record_bytes(16) == 24 && gpm_redo_record_bytes(13) == 24 &&
          gpm_redo_record_bytes(64) == 72);
    CHECK(gpm_redo_bytes(DATA, RECORDS) == 64 + 24 * RECORDS);
    CHECK(open_pair(&log, &table, 1) == 0);
    CHECK_EQ_INT(gpm_redo_check(&log, DATA, RECORDS), 0);
    CHECK_EQ_INT(gpm_redo_committed(&log), 0);
    CHECK(gpm_redo_check(&log, DATA, RECORDS / 2) != 0);
    CHECK_MSG(gpm_last_error(), "pass the size flags of the crashed run");
    CHECK(gpm_redo_check(&table, DATA, RECORDS) != 0);
    CHECK_MSG(gpm_last_error(), "not a redo log: rerun without --recover");
    close_pair(&log, &table);
}

static void logged_batch_is_applied_and_counted(void)
{
    static struct record r[RECORDS];
    static uint8_t want[TABLE_BYTES];
    gpm_region log, table;
    gpm_flusher *f = gpm_flusher_create(2);
    uint64_t applied = 0;
    CHECK(f && open_pair(&log, &table, 1) == 0);
    for (uint64_t b = 0; b < 3; b++) {
        batch(b, r);
        CHECK_EQ_INT(gpm_redo_log(&log, f, r, RECORDS, 0, NULL), 0);
        CHECK_EQ_INT(gpm_redo_commit(&log), 0);
        CHECK_EQ_INT(gpm_redo_committed(&log), b); /* committed, not applied */
        CHECK_EQ_INT(gpm_redo_apply(&log, &table, f, &applied), 0);
        CHECK_EQ_INT(applied, RECORDS);
        CHECK_EQ_INT(gpm_redo_committed(&log), b + 1);
    }
    reference(3, want);
    CHECK(memcmp(table.host, want, TABLE_BYTES) == 0);
    CHECK_EQ_INT(gpm_redo_recover(&log, &table, f, &applied), 0); /* nothing pending */
    CHECK_EQ_INT(applied, 0);
    close_pair(&log, &table);
    gpm_flusher_destroy(f);
}

static void pending_batch_is_finished_by_recovery(void)
{
    static struct record r[RECORDS];
    static uint8_t want[TABLE_BYTES];
    gpm_region log, table;
    uint64_t applied = 0;
    CHECK(open_pair(&log, &table, 1) == 0);
    batch(0, r);
    CHECK(gpm_redo_log(&log, NULL, r, RECORDS, 0, NULL) == 0 && gpm_redo_commit(&log) == 0 &&
          gpm_redo_apply(&log, &table, NULL, NULL) == 0);
    /* Batch 1 committed, then half of it stored before the "crash". */
    batch(1, r);
    CHECK(gpm_redo_log(&log, NULL, r, RECORDS, 0, NULL) == 0 && gpm_redo_commit(&log) == 0);
    for (int k = 0; k < RECORDS / 2; k++)
        memcpy((uint8_t *)table.host + r[k].off, r[k].data, DATA);
    close_pair(&log, &table);
    CHECK(open_pair(&log, &table, 0) == 0);
    CHECK_EQ_INT(gpm_redo_check(&log, DATA, RECORDS), 0);
    CHECK_EQ_INT(gpm_redo_recover(&log, &table, NULL, &applied), 0);
    CHECK_EQ_INT(applied, RECORDS);
    CHECK_EQ_INT(gpm_redo_committed(&log), 2);
    reference(2, want);
    CHECK(memcmp(table.host, want, TABLE_BYTES) == 0);
    close_pair(&log, &table);
}

static void uncommitted_batch_is_dropped(void)
{
    static struct record r[RECORDS];
    static uint8_t want[TABLE_BYTES];
    gpm_region log, table;
    uint64_t applied = 1;
    CHECK(open_pair(&log, &table, 1) == 0);
    batch(0, r);
    CHECK(gpm_redo_log(&log, NULL, r, RECORDS, 0, NULL) == 0 && gpm_redo_commit(&log) == 0 &&
          gpm_redo_apply(&log, &table, NULL, NULL) == 0);
    batch(1, r); /* logged whole, the "crash" before its commit point */
    CHECK_EQ_INT(gpm_redo_log(&log, NULL, r, RECORDS, 0, NULL), 0);
    close_pair(&log, &table);
    CHECK(open_pair(&log, &table, 0) == 0);
    CHECK_EQ_INT(gpm_redo_recover(&log, &table, NULL, &applied), 0);
    CHECK_EQ_INT(applied, 0);
    CHECK_EQ_INT(gpm_redo_committed(&log), 1);
    reference(1, want);
    CHECK(memcmp(table.host, want, TABLE_BYTES) == 0);
    close_pair(&log, &table);
}

/* On an ordinary file system the table is made durable with msync, not
 * cache-line write-backs: the same batch, applied that way. */
static void ordinary_files_are_synced(void)
{
    static struct record r[RECORDS];
    static uint8_t want[TABLE_BYTES];
    char dir[] = "/var/tmp/gpm-redo.XXXXXX", lp[64], tp[64];
    gpm_region log, table;
    gpm_flusher *f = gpm_flusher_create(2);
    CHECK(f && mkdtemp(dir));
    snprintf(lp, sizeof lp, "%s/log", dir);
    snprintf(tp, sizeof tp, "%s/table", dir);
    CHECK(gpm_map(&log, lp, gpm_redo_bytes(DATA, RECORDS), GPM_CREATE | GPM_HOST_ONLY) == 0);
    CHECK(gpm_map(&table, tp, TABLE_BYTES, GPM_CREATE | GPM_HOST_ONLY) == 0);
    int file = table.backend == GPM_BACKEND_FILE, ok = 0;
    batch(0, r);
    reference(1, want);
    if (file)
        ok = gpm_redo_init(&log, DATA, RECORDS) == 0 &&
             gpm_redo_log(&log, f, r, RECORDS, 0, NULL) == 0 && gpm_redo_commit(&log) == 0 &&
             gpm_redo_apply(&log, &table, f, NULL) == 0 &&
             memcmp(table.host, want, TABLE_BYTES) == 0 && gpm_redo_committed(&log) == 1;
    gpm_unmap(&log), gpm_unmap(&table), gpm_flusher_destroy(f);
    unlink(lp), unlink(tp), rmdir(dir);
    if (!file)
        SKIP("/var/tmp is not an ordinary file system here");
    CHECKF(ok, "the batch was not applied exactly: %s", gpm_last_error());
}

static void refusals_change_nothing(void)
{
    static struct record r[RECORDS + 1];
    static uint8_t before[TABLE_BYTES];
    gpm_region log, table;
    CHECK(open_pair(&log, &table, 1) == 0);
    batch(0, r);
    CHECK(gpm_redo_log(&log, NULL, r, RECORDS + 1, 0, NULL) != 0);
    CHECK_MSG(gpm_last_error(), "more than the log's 1000");
    CHECK(gpm_redo_apply(&log, &table, NULL, NULL) != 0); /* nothing was committed */
    CHECK_MSG(gpm_last_error(), "no committed batch to apply");
    r[RECORDS - 1].off = TABLE_BYTES - 8; /* runs past the table */
    memcpy(before, table.host, TABLE_BYTES);
    CHECK(gpm_redo_log(&log, NULL, r, RECORDS, 0, NULL) == 0 && gpm_redo_commit(&log) == 0);
    CHECK(gpm_redo_log(&log, NULL, r, RECORDS, 0, NULL) != 0);
    CHECK_MSG(gpm_last_error(), "a committed batch is not applied yet");
    CHECK(gpm_redo_apply(&log, &table, NULL, NULL) != 0);
    CHECK_MSG(gpm_last_error(), "1 records outside");
    CHECK(memcmp(before, table.host, TABLE_BYTES) == 0);
    CHECK_EQ_INT(gpm_redo_committed(&log), 0);
    close_pair(&log, &table);
}

/* A child commits BATCHES batches; the parent SIGKILLs it at a moment
 * drawn from the measured duration of the work, recovers, and checks the
 * table against the reference after the batches the log counts. The child
 * is this program run afresh (--commit): OpenMP's threads do not survive
 * a fork. */
static int committer(void)
{
    static struct record r[RECORDS];
    gpm_region log, table;
    if (open_pair(&log, &table, 0) != 0)
        return 1;
    for (uint64_t b = gpm_redo_committed(&log); b < BATCHES; b++) {
        batch(b, r);
        if (gpm_redo_log(&log, NULL, r, RECORDS, 0, NULL) != 0 || gpm_redo_commit(&log) != 0 ||
            gpm_redo_apply(&log, &table, NULL, NULL) != 0)
            return 1;
    }
    return 0;
}

static pid_t start_committer(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "test_redo", "--commit", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void killed_committers_recover_exactly(void)
{
    static uint8_t want[TABLE_BYTES];
    gpm_region log, table;
    double t0, work;
    int mid = 0, st;
    pid_t pid;
    /* The measurement: one uninterrupted run. */
    CHECK(open_pair(&log, &table, 1) == 0);
    close_pair(&log, &table);
    t0 = now();
    pid = start_committer();
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    work = now() - t0;
    for (int trial = 1; trial <= 12; trial++) {
        uint64_t applied, done;
        struct timespec at;
        double when = work * (0.05 + 0.9 * (double)(gpm_mix64((uint64_t)trial) % 1000) / 1000.0);
        CHECK(open_pair(&log, &table, 1) == 0);
        close_pair(&log, &table);
        pid = start_committer();
        CHECK(pid > 0);
        at.tv_sec = (time_t)when;
        at.tv_nsec = (long)((when - (double)at.tv_sec) * 1e9);
        nanosleep(&at, NULL);
        kill(pid, SIGKILL);
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(open_pair(&log, &table, 0) == 0);
        CHECK_EQ_INT(gpm_redo_check(&log, DATA, RECORDS), 0);
        CHECK_EQ_INT(gpm_redo_recover(&log, &table, NULL, &applied), 0);
        done = gpm_redo_committed(&log);
        reference(done, want);
        CHECKF(memcmp(table.host, want, TABLE_BYTES) == 0,
               "trial %d: the table is not the reference after %llu batches", trial,
               (unsigned long long)done);
        close_pair(&log, &table);
        if (WIFSIGNALED(st) && done > 0 && done < BATCHES)
            mid++;
    }
    /* Kills drawn from the work's duration must mostly land inside it. */
    CHECKF(mid >= 6, "only %d of 12 kills landed mid-work (the work took %.3f s)", mid, work);
    remove_pair();
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--commit") == 0)
        return committer();
    RUN(shape_is_checked);
    RUN(logged_batch_is_applied_and_counted);
    RUN(pending_batch_is_finished_by_recovery);
    RUN(uncommitted_batch_is_dropped);
    RUN(ordinary_files_are_synced);
    RUN(refusals_change_nothing);
    RUN(killed_committers_recover_exactly);
    CHECK_EXIT();
}
