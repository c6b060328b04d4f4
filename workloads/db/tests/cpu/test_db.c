/* gpDB on the CPU: the rows and the statement on hand-checked values, the
 * reference, the exact sizing of the UPDATE log, and the CPU counterpart
 * end to end, killed with SIGKILL inside transactions and recovered. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../db.h"
#include "gpm/check.h"
#include "tests/wl_test.h"

static char dir[4096], rows[4200], errf[4200];

static int run(char **argv, int argc) { return wl_test_run(&WORKLOAD, argv, argc, errf); }

static void rows_and_the_statement(void)
{
    db_row x = db_row_gen(1, 41), y = db_row_gen(1, 41);
    CHECK(sizeof(db_row) == DB_ROW_BYTES && db_row_off(0) == 64 && db_row_off(3) == 256);
    CHECK(memcmp(&x, &y, sizeof x) == 0 && x.key == 42);
    x.c[0] = 45;
    CHECK(db_matches(&x, 5) && db_matches(&x, 25) && !db_matches(&x, 6));
    x.c[1] = 10;
    db_update(&x, 5);
    CHECK_EQ_INT(x.c[1], 10 * 3 + 7 + 5);
    x.c[1] = (int32_t)0x7fffffff; /* wraps modulo 2^32, the same on every side */
    db_update(&x, 0);
    CHECK_EQ_INT(x.c[1], (int32_t)(0x7fffffffu * 3u + 7u));
}

/* A statement selects about one row in 20; an INSERT appends generated rows
 * and raises the count. */
static void reference_steps(void)
{
    struct db_state st;
    db_row *t = calloc(20000 + 2 * 100, sizeof *t);
    uint64_t count = 20000, changed = 0;
    memset(&st, 0, sizeof st);
    st.batch = 100;
    CHECK(t != NULL);
    for (uint64_t k = 0; k < count; k++)
        t[k] = db_row_gen(7, k);
    db_ref_step(&st, DB_OP_UPDATE, 7, 3, t, &count);
    for (uint64_t k = 0; k < count; k++) {
        db_row x = db_row_gen(7, k);
        if (db_matches(&x, 3)) {
            db_update(&x, 3);
            changed++;
        }
        CHECKF(memcmp(&x, &t[k], sizeof x) == 0, "row %llu", (unsigned long long)k);
    }
    CHECKF(changed > 850 && changed < 1150, "%llu rows of 20000 changed",
           (unsigned long long)changed);
    db_ref_step(&st, DB_OP_INSERT, 7, 0, t, &count);
    CHECK(count == 20100 && t[20099].key == 20100);
    free(t);
}

/* The UPDATE log holds what the fullest slot needs, counted exactly. */
static void log_sizing_counts_the_fullest_slot(void)
{
    struct db_state st;
    uint64_t best = 0;
    memset(&st, 0, sizeof st);
    st.rows = 1000;
    st.steps = 3;
    st.h_c0mod = malloc(st.rows);
    CHECK(st.h_c0mod != NULL);
    for (uint64_t k = 0; k < st.rows; k++)
        st.h_c0mod[k] = (uint8_t)(k % 7 == 0 ? 2 : 19);
    /* Statements 0..2 select c0 % 20 in {0, 1, 2}: only the rows k % 7 == 0. */
    CHECK_EQ_INT((int)db_max_matches(&st, 1, 0), 143);
    /* One warp: 143 selected rows dealt to 32 lanes, 5 to the first. Two
     * warps take alternate 32-row tiles: 73 and 70 rows, 3 a lane. */
    CHECK_EQ_INT((int)db_max_matches(&st, 32, 1), 5);
    CHECK_EQ_INT((int)db_max_matches(&st, 64, 1), 3);
    best = db_max_matches(&st, 10, 0);                 /* contiguous shares of 100 */
    CHECK_EQ_INT((int)best, 15);
    free(st.h_c0mod);
}

static void cpu_counterpart_runs_both_operations(void)
{
    const char *op[] = {"insert", "update", "update"}, *log[] = {"hcl", "hcl", "conv"};
    unlink(rows);
    for (int k = 0; k < 3; k++) {
        char *av[] = {"db", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "2",
                      "--out", rows, "--op", (char *)op[k], "--log", (char *)log[k]};
        CHECKF(run(av, ARGC(av)) == 0, "%s with %s", op[k], log[k]);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tdb\tinsert\tcpu\ttiny\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tdb\tupdate\tcpu\ttiny\t"), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
    /* INSERT logs the count alone: one slot of a 32-slot log. */
    CHECK_EQ_INT(wl_test_count_lines(rows, "log=hcl,partitions=64,cap-chunk=best,seed=1,"
                                           "cpu_threads=all:2,tx=undo-cpu,atomic=yes,"
                                           "log_slots=32"), 2);
}

/* Killed inside the run, just before a step's commit (never on a clock:
 * the kill lands there whatever the machine's speed): the recovery undoes
 * the interrupted step (the old images of an UPDATE, the count of an
 * INSERT), resumes after the last committed one and ends with the
 * reference's table. */
static void killed_runs_resume_after_the_last_committed_step(void)
{
    static const char *const sizes[2][6] = {
        {"--op", "update", "--rows", "4194304", "--statements", "12"},
        {"--op", "insert", "--batch", "1048576", "--batches", "12"}};
    int resumed = 0, undid = 0, trials = 0;
    for (int k = 0; k < 6; k++) {
        const char *const *s = sizes[k % 2];
        char at[32], line[8192], *p;
        char *crash[] = {"db", "--mode", "cpu", "--pm-dir", dir, "--reps", "1",
                         "--kill",
                         at, (char *)s[0], (char *)s[1], (char *)s[2], (char *)s[3],
                         (char *)s[4], (char *)s[5]};
        char *rec[] = {"db", "--mode", "cpu", "--pm-dir", dir, "--recover", "--out", rows,
                       (char *)s[0], (char *)s[1], (char *)s[2], (char *)s[3], (char *)s[4],
                       (char *)s[5]};
        unsigned long long d = 0, t = 0, r = 0, undone = 0;
        snprintf(at, sizeof at, "commit:%d", 2 + k); /* steps 1 to 1 + k committed */
        unlink(rows);
        if (run(crash, ARGC(crash)) != 128 + SIGKILL)
            continue;
        trials++;
        CHECKF(run(rec, ARGC(rec)) == 0, "%s killed before commit %s: recovery failed", s[1],
               at);
        wl_test_line(rows, 1, line, sizeof line);
        p = strstr(line, "durable=");
        CHECKF(p && sscanf(p, "durable=%llu/%llu,redone=%llu", &d, &t, &r) == 3 && t == 12 &&
                   r == t - d && strstr(line, "\tok\t"),
               "%s", line);
        p = strstr(line, "undone=");
        if (p && sscanf(p, "undone=%llu", &undone) == 1 && undone > 0)
            undid++;
        resumed += d > 0 && d < t;
    }
    CHECKF(trials == 6, "only %d of 6 kills landed inside the run", trials);
    CHECKF(resumed == 6 && undid == 6, "%d of 6 recoveries resumed after committed steps, %d "
           "undid an interrupted one", resumed, undid);
}

static void bad_flags_name_the_fix(void)
{
    char *chunk[] = {"db", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--cap-chunk",
                     "1000"};
    char *op[] = {"db", "--mode", "cpu", "--op", "delete"};
    CHECK_EQ_INT(run(chunk, ARGC(chunk)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--cap-chunk: '1000' is not 'best' or a power of two"),
                 1);
    CHECK_EQ_INT(run(op, ARGC(op)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--op: db has no operation 'delete': use "
                                           "insert|update"),
                 1);
}

/* Finished runs whose table was damaged after them: 7 rows of an UPDATE's
 * changed, then the last 3 rows of an INSERT's zeroed. The recovery has
 * nothing to do; verify fails, and the row says how wrong: 7 of the 16384
 * rows, then 3 of the 20480 (16384 and 4 batches of 1024). */
static void a_damaged_table_is_measured_in_wrong_rows(void)
{
    char path[4300], cmd[4400];
    uint64_t count;
    FILE *f;
    snprintf(path, sizeof path, "%s/db-tiny.table", dir);
    snprintf(cmd, sizeof cmd, "rm -f '%s'/db-*", dir); /* files another case kept */
    for (int k = 0; k < 2; k++) {
        char *op = k ? "insert" : "update";
        char *go[] = {"db", "--mode", "cpu", "--scale", "tiny", "--op", op, "--pm-dir", dir,
                      "--reps", "1", "--keep"};
        char *rec[] = {"db", "--mode", "cpu", "--scale", "tiny", "--op", op, "--pm-dir", dir,
                       "--recover", "--out", rows};
        CHECK(system(cmd) == 0);
        unlink(rows);
        CHECK_EQ_INT(run(go, ARGC(go)), 0);
        CHECK((f = fopen(path, "r+")) != NULL);
        if (k == 0)
            for (int r = 0; r < 7; r++) {
                int32_t junk = -12345 - r;
                CHECK(fseek(f, (long)(db_row_off(1000 + 300 * (uint64_t)r) + 8), SEEK_SET) == 0 &&
                      fwrite(&junk, 4, 1, f) == 1);
            }
        else { /* the last 3 rows inserted: gone */
            static const db_row zero[3];
            CHECK(fread(&count, 8, 1, f) == 1 && count == 20480);
            CHECK(fseek(f, (long)db_row_off(count - 3), SEEK_SET) == 0 &&
                  fwrite(zero, sizeof zero, 1, f) == 1);
        }
        fclose(f);
        CHECK_EQ_INT(run(rec, ARGC(rec)), 1);
        CHECK_EQ_INT(wl_test_count_lines(errf, k ? "db: row 20477 on PM differs"
                                                 : "db: row 1000 on PM differs"), 1);
        CHECK_EQ_INT(wl_test_count_lines(rows, k ? ",wrong_units=3/20480,units=rows,wrong_marks=0/1"
                                                 : ",wrong_units=7/16384,units=rows,wrong_marks=0/1"),
                     1);
    }
    CHECK(system(cmd) == 0);
}

int main(void)
{
    wl_test_scratch("db-test", dir, rows, errf);
    /* The programs first: they run in forked children, and OpenMP's threads
     * do not survive a fork once this process has started them. */
    RUN(cpu_counterpart_runs_both_operations);
    RUN(killed_runs_resume_after_the_last_committed_step);
    RUN(bad_flags_name_the_fix);
    RUN(a_damaged_table_is_measured_in_wrong_rows);
    RUN(rows_and_the_statement);
    RUN(reference_steps);
    RUN(log_sizing_counts_the_fullest_slot);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
