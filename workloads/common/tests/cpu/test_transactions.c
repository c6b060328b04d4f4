/* The transaction helper (wl_tx_*, tx.c), through a fake CPU workload built
 * like the transactional ones: batches of updates to a table of counters,
 * each new value depending on the old, undo-logged and committed batch by
 * batch. Real SIGKILLs inside transactions, then recoveries that must undo
 * the interrupted batch, resume after the last committed one and end with
 * the uninterrupted run's table; a recovery that skips the undo must fail. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/tx.h"
#include "tests/wl_test.h"
#include "wl.h"

#define WORDS 4096
enum { BANK_TABLE, BANK_LOG };

static const struct wl_param bank_params[] = {
    {.flag = "batches", .help = "batches", .sizes = 1, .scale = {40, 40, 40}, .min = 1,
     .max = 100000},
    {.flag = "updates", .help = "updates a batch", .sizes = 1, .scale = {64, 64, 64}, .min = 1,
     .max = 4096},
    {.flag = "slow-us", .help = "sleep in the middle of every batch", .scale = {0, 0, 0},
     .min = 0, .max = 1000000},
    {.flag = "bug", .help = "none, or skip-undo (recovery drops the log instead of undoing)",
     .type = WL_STR, .sscale = {"none", "none", "none"}},
    WL_TX_PARAMS,
    {0},
};

static const struct wl_obj_decl bank_objects[] = {
    [BANK_TABLE] = {"table", WL_OBJ_REGION},
    [BANK_LOG] = {"log", WL_OBJ_TX},
    {NULL, WL_OBJ_REGION},
};

static uint64_t initial(uint64_t i) { return gpm_mix64(i + 7); }
static uint64_t where(uint64_t b, uint64_t j) { return gpm_mix64(b * 100003 + j) % WORDS; }
/* The new value depends on the old: an update applied twice, or not undone,
 * shows. */
static uint64_t updated(uint64_t old, uint64_t b, uint64_t j) { return old * 31 + b * 7 + j; }

static uint64_t *table(struct wl_ctx *c) { return wl_region(c, BANK_TABLE)->host; }

/* The table after the first BATCHES batches, as the reference computes it. */
static void reference(uint64_t *t, uint64_t batches, uint64_t updates)
{
    for (uint64_t i = 0; i < WORDS; i++)
        t[i] = initial(i);
    for (uint64_t b = 0; b < batches; b++)
        for (uint64_t j = 0; j < updates; j++)
            t[where(b, j)] = updated(t[where(b, j)], b, j);
}

static int bank_layout(struct wl_ctx *c)
{
    size_t updates = (size_t)wl_int(c, "updates");
    /* One logging thread (slot 0) takes a batch's records, with room to
     * spare. */
    struct wl_tx_sizes tx = {.region = BANK_TABLE, .records = updates * 2,
                             .blocks = 1, .threads = 32, .change_bytes = 8,
                             .max_changes = updates, .unit = 8};
    wl_obj_region(c, BANK_TABLE, WORDS * sizeof(uint64_t));
    if (wl_tx_layout(c, BANK_LOG, &tx) != 0)
        return -1;
    c->data_bytes = WORDS * sizeof(uint64_t);
    c->expected_s = 0.01;
    return 0;
}

static int bank_setup(struct wl_ctx *c) { return wl_tx_setup(c, BANK_LOG, NULL, NULL); }

static int bank_prepare(struct wl_ctx *c)
{
    uint64_t *t = table(c);
    for (uint64_t i = 0; i < WORDS; i++)
        t[i] = initial(i);
    return gpm_region_persist(wl_region(c, BANK_TABLE), t, WORDS * sizeof *t) ||
                   wl_tx_reset(c, BANK_LOG)
               ? -1
               : 0;
}

/* Batch B as the CPU counterpart makes it: each word's old value logged
 * before it changes, the table durable before the engine commits. */
static int apply(struct wl_ctx *c, uint64_t b, const wl_txdev *d)
{
    uint64_t *t = table(c), n = (uint64_t)wl_int(c, "updates");
    if (d->gpu)
        return gpm_set_error("bank: a CPU workload");
    for (uint64_t j = 0; j < n; j++) {
        uint64_t w = where(b, j);
        if (wl_tx_host_undo(c, BANK_LOG, 0, w * sizeof *t, &t[w], sizeof *t) != 0)
            return -1;
        t[w] = updated(t[w], b, j);
        if (j == n / 2 && wl_int(c, "slow-us"))
            usleep((useconds_t)wl_int(c, "slow-us")); /* a kill lands mid-transaction */
    }
    return wl_pm_persist(c, BANK_TABLE, t, WORDS * sizeof *t);
}

static int batches_from(struct wl_ctx *c, uint64_t from)
{
    for (uint64_t b = from; b < (uint64_t)wl_int(c, "batches"); b++)
        if (wl_tx_batch(c, BANK_LOG, b, apply) != 0)
            return -1;
    return 0;
}

static int bank_run(struct wl_ctx *c) { return batches_from(c, 0); }

static int bank_recover(struct wl_ctx *c)
{
    uint64_t total = (uint64_t)wl_int(c, "batches"), done;
    if (strcmp(wl_str(c, "bug"), "skip-undo") == 0) {
        /* The wrong recovery: the batch count is right, the undo is not done. */
        done = wl_tx_committed(c, BANK_LOG);
        if (gpmtx_reset(wl_log(c, BANK_LOG)) != 0)
            return -1;
        for (uint64_t k = 0; k < done; k++)
            if (gpmtx_begin(wl_log(c, BANK_LOG)) || gpmtx_commit(wl_log(c, BANK_LOG)))
                return -1;
    } else if (wl_tx_recover(c, BANK_LOG, &done) != 0) {
        return -1;
    }
    c->progress.total = total;
    c->progress.durable = done;
    if (batches_from(c, done) != 0)
        return -1;
    c->progress.redone = total - done;
    return 0;
}

static int bank_verify(struct wl_ctx *c)
{
    uint64_t *want = malloc(WORDS * sizeof *want), batches = (uint64_t)wl_int(c, "batches");
    int logged = wl_tx_atomic(c);
    uint64_t committed = logged ? wl_tx_committed(c, BANK_LOG) : 0;
    /* The log's count of committed batches is the run's marker. */
    struct wl_wrong w = {.units = "words", .marks = logged,
                         .marks_bad = logged && committed != batches};
    int rc = 0;
    if (!want)
        return -1;
    reference(want, batches, (uint64_t)wl_int(c, "updates"));
    for (uint64_t i = WORDS; i-- > 0;) /* every word; the message names the first */
        if (table(c)[i] != want[i]) {
            gpm_set_error("word %llu is %llu, the reference %llu", (unsigned long long)i,
                          (unsigned long long)table(c)[i], (unsigned long long)want[i]);
            w.bad++;
            rc = 1;
        }
    w.total = WORDS;
    free(want);
    return wl_tx_verified(c, rc, &w, committed, batches, "batches");
}

const struct wl_workload WORKLOAD = {
    .name = "bank",
    .about = "the transaction helper's test workload",
    .modes = WL_MODE_BIT(WL_CPU),
    .progress_by = WL_BY_TRANSACTIONS,
    .objects = bank_objects,
    .params = bank_params,
    .layout = bank_layout,
    .setup = bank_setup,
    .prepare = bank_prepare,
    .run = bank_run,
    .recover = bank_recover,
    .verify = bank_verify,
};

/* ---- a mode added in one row and its engine, touching no workload ---- */

/* A fake engine: each batch applied and made durable, with no log (so not
 * failure-atomic), and counted in the row so that a test sees it ran. */
static int nolog_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply)
{
    wl_txdev d = wl_tx_dev_base(c, tx);
    static uint64_t batches;
    if (apply(c, b, &d) != 0)
        return -1;
    if (b == 0)
        batches = 0;
    wl_note(c, "nolog_batch=%llu", (unsigned long long)++batches);
    return 0;
}

static const struct wl_tx_engine nolog_engine = {
    .name = "nolog", .atomic = 0, .log = WL_OBJ_NONE, .batch = nolog_batch,
};

static struct wl_mode_info cpu_nolog;

static void add_the_fake_mode(void)
{
    cpu_nolog = *wl_mode(WL_CPU);
    cpu_nolog.name = "cpu-nolog";
    cpu_nolog.tx = &nolog_engine;
    cpu_nolog.like = WL_CPU;
    CHECK_EQ_INT(wl_mode_add(&cpu_nolog), WL_NMODES);
    CHECK(wl_mode_add(&cpu_nolog) < 0); /* a name is taken once */
    CHECK_MSG(gpm_last_error(), "mode 'cpu-nolog' exists");
}

static char dir[4096], rows[4200], errf[4200];

static int run(char **argv, int argc) { return wl_test_run(&WORKLOAD, argv, argc, errf); }

static void runs_say_their_log(void)
{
    char *hcl[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "2", "--out", rows};
    char *conv[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--out", rows,
                    "--log", "conv", "--partitions", "8"};
    char *bad[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--log", "redo"};
    unlink(rows);
    CHECK_EQ_INT(run(hcl, ARGC(hcl)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tbatches=40,updates=64,slow-us=0,bug=none,"
                                           "log=hcl,partitions=64,cap-chunk=best,seed=1,"
                                           "cpu_threads=all:"),
                 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",tx=undo-cpu,atomic=yes,log_slots=32"), 1);
    CHECK_EQ_INT(run(conv, ARGC(conv)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",log=conv,partitions=8,cap-chunk=best,seed=1,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",tx=undo-cpu,atomic=yes,log_slots=8"), 1);
    CHECK_EQ_INT(run(bad, ARGC(bad)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--log: unknown log 'redo': pass hcl or conv"), 1);
}

/* Killed inside transactions (40 batches of 4 ms, kills between 10 and 140
 * ms): each recovery undoes the batch it interrupted and resumes after the
 * last committed one, and the table ends as an uninterrupted run's. */
static void kills_inside_a_batch_are_undone_and_resumed(void)
{
    int undid = 0, trials = 0;
    for (int k = 0; k < 6; k++) {
        char at[32], line[8192], *p;
        char *crash[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--slow-us",
                         "4000", "--kill", at, k % 2 ? "--log" : "--seed",
                         k % 2 ? "conv" : "1"};
        char *rec[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--slow-us", "4000",
                       "--recover", "--out", rows, k % 2 ? "--log" : "--seed", k % 2 ? "conv" : "1"};
        unsigned long long d = 0, t = 0, r = 0, undone = 0;
        int active = 0;
        snprintf(at, sizeof at, "time:%.3f", 0.010 + 0.026 * k);
        unlink(rows);
        if (run(crash, ARGC(crash)) != 128 + SIGKILL)
            continue; /* finished first on a slow machine: not a trial */
        trials++;
        CHECKF(run(rec, ARGC(rec)) == 0, "trial %d: recovery failed", k);
        wl_test_line(rows, 1, line, sizeof line);
        p = strstr(line, "tx_was_active=");
        CHECKF(p && sscanf(p, "tx_was_active=%d,undone=%llu", &active, &undone) == 2, "%s",
               line);
        p = strstr(line, "durable=");
        CHECKF(p && sscanf(p, "durable=%llu/%llu,redone=%llu", &d, &t, &r) == 3, "%s", line);
        CHECKF(t == 40 && r == t - d && strstr(line, "\tok\t"), "%s", line);
        if (active && undone > 0 && d > 0)
            undid++;
    }
    CHECKF(trials >= 4, "only %d of 6 kills landed inside the run", trials);
    CHECKF(undid >= 2, "only %d recoveries undid an interrupted batch after committed ones", undid);
}

/* The test can fail: a recovery that drops the log without undoing leaves
 * the interrupted batch's updates in the table, and verification says so. */
static void a_recovery_that_skips_the_undo_fails(void)
{
    int caught = 0;
    for (int k = 0; k < 4 && !caught; k++) {
        char at[32];
        char *crash[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--slow-us",
                         "4000", "--bug", "skip-undo", "--kill", at};
        char *rec[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--slow-us", "4000",
                       "--bug", "skip-undo", "--recover"};
        snprintf(at, sizeof at, "time:%.3f", 0.030 + 0.020 * k);
        if (run(crash, ARGC(crash)) == 128 + SIGKILL && run(rec, ARGC(rec)) == 1 &&
            wl_test_count_lines(errf, "the reference") == 1)
            caught = 1;
    }
    CHECKF(caught, "no recovery without undo was caught by verification");
}

/* --kill commit:N: killed with every update and undo record of
 * batch N durable and its commit not; the recovery undoes all of it. */
static void killed_just_before_a_commit(void)
{
    char line[8192], *p;
    char *crash[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1",
                     "--kill", "commit:5"};
    char *rec[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--recover", "--out", rows};
    char *both[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--recover",
                    "--kill", "commit:1"};
    unsigned long long undone = 0;
    int active = 0;
    double undo_s = -1;
    unlink(rows);
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    wl_test_line(rows, 1, line, sizeof line);
    p = strstr(line, "tx_was_active=");
    /* The undo's own time too (Table 5 sets it beside the whole restore). */
    CHECKF(p && sscanf(p, "tx_was_active=%d,undone=%llu,undo_s=%lf", &active, &undone,
                       &undo_s) == 3 && active && undone == 64 && undo_s >= 0 && undo_s < 60 &&
               strstr(line, "durable=4/40,redone=36") && strstr(line, "\tok\t"),
           "%s", line);
    CHECK_EQ_INT(run(both, ARGC(both)), 2);
    CHECK_EQ_INT(wl_test_count_lines(errf, "--kill commit:N: not with --recover"), 1);
}

/* The bytes a run persisted are counted by the harness: each batch's
 * table (wl_pm_persist) and its 64 undo records with their tails. */
static void bytes_persisted_are_counted_by_the_harness(void)
{
    char *av[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--out", rows,
                  "--batches", "3"};
    char f[64];
    double want = 3.0 * (WORDS * 8 + 64 * (gpmtx_record_bytes(8) + 4)), got = -1;
    unlink(rows);
    CHECK_EQ_INT(run(av, ARGC(av)), 0);
    wl_test_field(rows, "bytes_persisted", f, sizeof f);
    CHECKF(sscanf(f, "%lf", &got) == 1 && got == want, "got %g, want %g", got, want);
}

/* --kill progress:K: the kill lands right after the K-th batch is
 * committed, whatever the speed: the recovery finds exactly K. */
static void a_kill_at_a_batch_lands_right_after_it(void)
{
    char *crash[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1",
                     "--kill", "progress:7"};
    char *rec[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--recover", "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(wl_test_count_lines(errf, "crash: SIGKILL after 7 units of progress"), 1);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "tx_was_active=0,undone=0,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "trial=mid-work,durable=7/40,redone=33"), 1);
}

/* --kill after-progress:S: the kill lands S seconds after the first
 * committed batch, so never before durable progress; the times of the
 * first and the last batch are noted when asked. */
static void kills_after_the_first_batch_land_inside_the_work(void)
{
    char *timed[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--slow-us",
                     "2000", "--progress-times", "--out", rows};
    char *crash[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--slow-us",
                     "2000", "--kill", "after-progress:0.01"};
    char *rec[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--slow-us", "2000", "--recover",
                   "--out", rows};
    char line[8192], *p;
    unsigned long long units = 0, d = 0;
    double first = -1, last = -1;
    unlink(rows);
    CHECK_EQ_INT(run(timed, ARGC(timed)), 0);
    wl_test_line(rows, 1, line, sizeof line);
    p = strstr(line, "progress_units=");
    CHECKF(p && sscanf(p, "progress_units=%llu,progress_first_s=%lf,progress_last_s=%lf",
                       &units, &first, &last) == 3 && units == 40 && first > 0 && last > first,
           "%s", line);
    unlink(rows);
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    wl_test_line(rows, 1, line, sizeof line);
    p = strstr(line, "trial=mid-work,durable=");
    CHECKF(p && sscanf(p, "trial=mid-work,durable=%llu/", &d) == 1 && d >= 1 && d < 40, "%s",
           line);
}

/* An undo record that does not fit stops the batch before its word
 * changes: the table then holds the logged changes and nothing else, and
 * the undo gives back exactly the table before the batch. */
static void a_full_log_leaves_exactly_what_recovery_undoes(void)
{
    char *full[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--keep",
                    "--log-room", "10@3"};
    char *rec[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--recover", "--out", rows};
    char table_path[4300], log_path[4300];
    uint64_t *before = malloc(WORDS * 8), *now;
    gpm_region t;
    gpmlog log;
    gpmtx_stats st;
    size_t n;
    snprintf(table_path, sizeof table_path, "%s/bank-small.table", dir);
    snprintf(log_path, sizeof log_path, "%s/bank-small.log", dir);
    CHECK(before);
    reference(before, 3, 64);
    /* From batch 3 on a batch's log holds 10 records: batch 3 stops at its
     * 11th. */
    CHECK_EQ_INT(run(full, ARGC(full)), 1);
    CHECK_EQ_INT(wl_test_count_lines(errf, "the batch's log is full"), 1);
    now = (uint64_t *)check_read_file(table_path, &n);
    CHECK(now && n == WORDS * 8 && memcmp(now, before, n) != 0); /* the logged changes */
    free(now);
    /* The undo alone, as recovery does it first. */
    CHECK_EQ_INT(gpm_map(&t, table_path, WORDS * 8, GPM_HOST_ONLY), 0);
    CHECK_EQ_INT(gpmlog_open(&log, log_path, GPM_HOST_ONLY), 0);
    CHECK(gpmtx_active(&log) && gpmtx_committed(&log) == 3);
    CHECK_EQ_INT(gpmtx_recover(&log, &t, &st), 0);
    CHECK(st.was_active && st.undone == 10);
    CHECK(memcmp(t.host, before, WORDS * 8) == 0);
    gpmlog_close(&log);
    gpm_unmap(&t);
    /* And the whole recovery finishes the run. */
    unlink(rows);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "durable=3/40,redone=37"), 1);
    free(before);
}

/* A mode added with wl_mode_add, one row and its engine: the bank runs in
 * it, its batches through the engine, with no change to the workload. */
static void a_mode_added_to_the_table_runs_the_workload_unchanged(void)
{
    char *av[] = {"bank", "--mode", "cpu-nolog", "--pm-dir", dir, "--reps", "1", "--out",
                  rows};
    char *crash[] = {"bank", "--mode", "cpu-nolog", "--pm-dir", dir, "--reps", "1",
                     "--kill", "progress:5"};
    char *rec[] = {"bank", "--mode", "cpu-nolog", "--pm-dir", dir, "--recover", "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run(av, ARGC(av)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tcpu-nolog\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",tx=nolog,atomic=no,nolog_batch=1,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",nolog_batch=40,"), 1);
    /* Not failure-atomic: a crash is not resumed, the run starts over. */
    unlink(rows);
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "trial=mid-work,durable=0"), 1);
}

/* Recovering with another mode than the crashed run's names the mode that
 * wrote the files, rather than finding their sizes or a file missing. */
static void recovery_in_another_mode_names_the_mode_that_wrote_the_files(void)
{
    char *crash[] = {"bank", "--mode", "cpu-nolog", "--pm-dir", dir, "--reps", "1",
                     "--kill", "progress:3"};
    char *rec[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--recover"};
    char *fresh[] = {"bank", "--mode", "cpu", "--pm-dir", dir, "--reps", "1"};
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 1);
    CHECK_EQ_INT(wl_test_count_lines(errf, "written by a cpu-nolog run, whose progress is not "
                                           "durable until it ends: recover it with --mode "
                                           "cpu-nolog"),
                 1);
    /* A new run over them starts over, and says what it discards. */
    CHECK_EQ_INT(run(fresh, ARGC(fresh)), 0);
    CHECK_EQ_INT(wl_test_count_lines(errf, "held a cpu-nolog run that was killed mid-work "
                                           "(epoch 1): this run starts over and discards it; "
                                           "to resume it instead, run with --recover --mode "
                                           "cpu-nolog"),
                 1);
}

/* The end of a transactional verify: a right output under a log that
 * counts too few commits fails, naming the count; the measure is noted
 * where the verify fails, and a result it did not check passes through. */
static void a_log_that_counts_too_few_commits_fails_the_verify(void)
{
    struct wl_ctx c;
    struct wl_harness h;
    struct wl_wrong w = {.units = "words", .total = 8, .marks = 1, .marks_bad = 1};
    wl_test_ctx(&c, &h);
    c.wl = &WORKLOAD;
    CHECK_EQ_INT(wl_tx_verified(&c, 0, &w, 3, 5, "batches"), 1);
    CHECK_MSG(gpm_last_error(), "bank: the log counts 3 committed batches of 5");
    CHECKF(c.h->note && strstr(c.h->note, "wrong_units=0/8,units=words,wrong_marks=1/1"), "%s",
           c.h->note ? c.h->note : "(no note)");
    free(c.h->note);
    wl_test_ctx(&c, &h);
    c.wl = &WORKLOAD;
    w.marks_bad = 0;
    CHECK_EQ_INT(wl_tx_verified(&c, 0, &w, 5, 5, "batches"), 0);
    CHECK_EQ_INT(wl_tx_verified(&c, -1, &w, 5, 5, "batches"), -1);
    CHECK(!c.h->note);
}

int main(void)
{
    wl_test_scratch("bank", dir, rows, errf);
    RUN(a_log_that_counts_too_few_commits_fails_the_verify);
    RUN(add_the_fake_mode);
    RUN(runs_say_their_log);
    RUN(bytes_persisted_are_counted_by_the_harness);
    RUN(a_kill_at_a_batch_lands_right_after_it);
    RUN(kills_after_the_first_batch_land_inside_the_work);
    RUN(a_full_log_leaves_exactly_what_recovery_undoes);
    RUN(a_mode_added_to_the_table_runs_the_workload_unchanged);
    RUN(recovery_in_another_mode_names_the_mode_that_wrote_the_files);
    RUN(kills_inside_a_batch_are_undone_and_resumed);
    RUN(a_recovery_that_skips_the_undo_fails);
    RUN(killed_just_before_a_commit);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
