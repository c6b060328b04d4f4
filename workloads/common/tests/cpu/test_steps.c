/* The loop of iterative workloads that checkpoint (wl_steps_run,
 * wl_steps_recover), through a fake CPU workload built like BLK: a state
 * changed by every step, checkpointed every K steps with a record of the
 * steps it holds. Real SIGKILLs, then recoveries that must resume from the
 * last checkpoint and end with the uninterrupted run's state. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/check.h"
#include "tests/wl_test.h"
#include "wl.h"
#include "wl_hd.h"

#define WORDS 4096
enum { ITER_STATE };

static const struct wl_param iter_params[] = {
    {.flag = "steps", .help = "steps", .sizes = 1, .scale = {40, 40, 40}, .min = 1, .max = 100000},
    {.flag = "every", .help = "checkpoint every K steps", .scale = {4, 4, 4}, .min = 1,
     .max = 100000},
    {.flag = "slow-us", .help = "sleep in every step", .scale = {0, 0, 0}, .min = 0,
     .max = 1000000},
    {.flag = "verify-more", .help = "steps verify wants beyond --steps", .scale = {0, 0, 0},
     .min = 0, .max = 100},
    {0},
};

static const struct wl_obj_decl iter_objects[] = {
    [ITER_STATE] = {"state", WL_OBJ_CHECKPOINT},
    {NULL, WL_OBJ_REGION},
};

struct iter_record {
    uint64_t done; /* steps the state holds */
    uint64_t hooks; /* before_checkpoint calls, checked to cover every step once */
};

struct iter {
    uint64_t state[WORDS];
    struct iter_record rec;
    uint64_t restored; /* after_restore calls */
};

static struct iter *I(struct wl_ctx *c) { return c->priv; }

static uint64_t value(uint64_t i, uint64_t steps) { return gpm_mix64(i * 1000 + steps); }

static int iter_layout(struct wl_ctx *c)
{
    wl_obj_checkpoint(c, ITER_STATE, sizeof(struct iter), 2);
    c->data_bytes = sizeof(((struct iter *)0)->state);
    c->expected_s = 0.01;
    return 0;
}

static int reset(struct wl_ctx *c)
{
    for (uint64_t i = 0; i < WORDS; i++)
        I(c)->state[i] = value(i, 0);
    memset(&I(c)->rec, 0, sizeof I(c)->rec);
    return 0;
}

static int iter_setup(struct wl_ctx *c)
{
    struct iter *it = I(c);
    return wl_cp_register(c, ITER_STATE, it->state, sizeof it->state) ||
                   wl_cp_register_record(c, ITER_STATE, &it->rec, sizeof it->rec)
               ? -1
               : 0;
}

static int step(struct wl_ctx *c, uint64_t s)
{
    if (wl_int(c, "slow-us"))
        usleep((useconds_t)wl_int(c, "slow-us"));
    for (uint64_t i = 0; i < WORDS; i++)
        I(c)->state[i] = value(i, s + 1);
    return 0;
}

static int before(struct wl_ctx *c, uint64_t from, uint64_t to)
{
    /* Called once per checkpoint, for exactly the steps since the last. */
    if (to <= from || to - from > (uint64_t)wl_int(c, "every"))
        return gpm_set_error("before_checkpoint of steps %llu..%llu", (unsigned long long)from,
                             (unsigned long long)to);
    I(c)->rec.hooks += to - from;
    return 0;
}

static int after(struct wl_ctx *c)
{
    I(c)->restored++;
    return 0;
}

static struct wl_steps steps(struct wl_ctx *c)
{
    struct wl_steps s = {.cp = ITER_STATE, .total = (uint64_t)wl_int(c, "steps"),
                         .every = (uint64_t)wl_int(c, "every"), .done = &I(c)->rec.done,
                         .unit = "step", .step = step, .before_checkpoint = before,
                         .after_restore = after};
    return s;
}

static int iter_run(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    return wl_steps_run(c, &s, 0);
}

static int iter_recover(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    int rc = wl_steps_recover(c, &s, reset);
    wl_note(c, "restored=%llu", (unsigned long long)I(c)->restored);
    return rc;
}

static int iter_verify(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    uint64_t total = (uint64_t)wl_int(c, "steps");
    int rc;
    s.total += (uint64_t)wl_int(c, "verify-more"); /* a record short of the end */
    if ((rc = wl_steps_final(c, &s)) != 0)
        return rc;
    if (I(c)->rec.hooks != total)
        return gpm_set_error("before_checkpoint covered %llu steps of %llu",
                             (unsigned long long)I(c)->rec.hooks, (unsigned long long)total), 1;
    for (uint64_t i = 0; i < WORDS; i++)
        if (I(c)->state[i] != value(i, total))
            return gpm_set_error("word %llu is not the final state", (unsigned long long)i), 1;
    return 0;
}

const struct wl_workload WORKLOAD = {
    .name = "iter",
    .about = "the steps loop's test workload",
    .modes = WL_MODE_BIT(WL_CPU),
    .progress_by = WL_BY_COMMITS,
    .objects = iter_objects,
    .params = iter_params,
    .state_bytes = sizeof(struct iter),
    .layout = iter_layout,
    .setup = iter_setup,
    .prepare = reset,
    .run = iter_run,
    .recover = iter_recover,
    .verify = iter_verify,
};

static char dir[4096], rows[4200];

static int run(char **argv, int argc) { return wl_test_run(&WORKLOAD, argv, argc, NULL); }

static void the_schedule(void)
{
    CHECK(wl_checkpoint_due(4, 40, 4) && !wl_checkpoint_due(5, 40, 4));
    CHECK(wl_checkpoint_due(3, 3, 10) && wl_checkpoint_due(1, 5, 1));
}

static void a_run_checkpoints_on_schedule(void)
{
    char *av[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--out", rows, "--reps", "2",
                  "--steps", "10", "--every", "4"};
    unlink(rows);
    CHECK_EQ_INT(run(av, ARGC(av)), 0);
    /* 10 steps every 4: after steps 4, 8 and 10. */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",checkpoints=3,checkpoint_s="), 1);
    /* The checkpoints' time is some, not all, of the run's. */
    {
        char line[8192];
        const char *cs;
        double cp_s;
        wl_test_line(rows, 1, line, sizeof line);
        cs = strstr(line, "checkpoint_s=");
        CHECK(cs && sscanf(cs, "checkpoint_s=%lf", &cp_s) == 1);
        CHECKF(cs && cp_s > 0 && cp_s < 1, "%s", line);
    }
}

/* Killed mid-run (after the checkpoint that makes step 10 durable, never
 * on a clock): the recovery resumes from the last checkpoint (a multiple
 * of every), restores, and ends with the uninterrupted run's state. */
static void a_crash_resumes_from_the_last_checkpoint(void)
{
    char *crash[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--slow-us",
                     "5000", "--kill", "progress:10"};
    char *rec[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--slow-us", "5000", "--recover",
                   "--out", rows};
    unsigned long long from = 99, d = 0, t = 0, r = 0;
    char line[8192], *p;
    unlink(rows);
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    wl_test_line(rows, 1, line, sizeof line);
    p = strstr(line, "resumed_from=");
    CHECK(p && sscanf(p, "resumed_from=%llu", &from) == 1);
    p = strstr(line, "durable=");
    CHECK(p && sscanf(p, "durable=%llu/%llu,redone=%llu", &d, &t, &r) == 3);
    CHECKF(from > 0 && from < 40 && from % 4 == 0 && d == from && t == 40 && r == 40 - from,
           "%s", line);
    CHECK(strstr(line, "restored=1") && strstr(line, "trial=mid-work"));
}

/* Killed before the first checkpoint: nothing to restore, a start from
 * step 0 through the reset. */
static void a_crash_before_any_checkpoint_starts_over(void)
{
    char *crash[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--slow-us",
                     "50000", "--kill", "time:0.02"};
    char *rec[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--slow-us", "1000", "--recover",
                   "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 1); /* other flags than the crashed run's: refused */
    rec[6] = "50000";
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "resumed_from=0,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "restored=0"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "trial=before-progress,durable=0/40,redone=40"), 1);
}

/* --kill progress:K: the kill lands right after the checkpoint that
 * makes step K durable (progress counts steps): here the one after step 12,
 * whatever the machine's speed. */
static void a_kill_at_a_step_lands_after_its_checkpoint(void)
{
    char *crash[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--every", "4",
                     "--kill", "progress:9"};
    char *rec[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--every", "4", "--recover",
                   "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK_EQ_INT(run(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "resumed_from=12,"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "trial=mid-work,durable=12/40,redone=28"), 1);
}

/* A workload without transactions has no commit to crash before. */
/* A last checkpoint short of the end fails verify as a marker: the row
 * says wrong_marks=1/1 and measures no output. */
static void a_short_last_checkpoint_is_a_wrong_marker(void)
{
    char *go[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--reps", "1", "--verify-more",
                  "1", "--out", rows};
    unlink(rows);
    CHECK_EQ_INT(run(go, ARGC(go)), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",wrong_marks=1/1"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "wrong_units="), 0);
}

static void no_commit_to_crash_before(void)
{
    char *av[] = {"iter", "--mode", "cpu", "--pm-dir", dir, "--kill", "commit:1"};
    CHECK_EQ_INT(run(av, ARGC(av)), 2);
}

int main(void)
{
    wl_test_scratch("steps", dir, rows, NULL);
    RUN(the_schedule);
    RUN(a_run_checkpoints_on_schedule);
    RUN(a_crash_resumes_from_the_last_checkpoint);
    RUN(a_crash_before_any_checkpoint_starts_over);
    RUN(a_kill_at_a_step_lands_after_its_checkpoint);
    RUN(no_commit_to_crash_before);
    RUN(a_short_last_checkpoint_is_a_wrong_marker);
    unlink(rows);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
