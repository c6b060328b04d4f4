/* wl_main: the life of one workload run.
 *
 * Every flag, directory, file and the GPU are checked before any work.
 * Setup is untimed; each repetition times exactly the workload's run()
 * (kernels + persistence), the suite's timing rule. The run's identity on PM
 * says CREATED, then PREPARING and RUNNING with the repetition's epoch,
 * then COMPLETE, so that --recover knows what a crash interrupted:
 *
 *   CREATED, PREPARING  the kill came before the work (PREPARING: inside a
 *                       repetition's prepare()): a new run;
 *   RUNNING, resumable  recover() resumes from what is durable, and must
 *                       redo exactly what was missing;
 *   RUNNING, otherwise  the mode persists nothing until the end: rerun;
 *   COMPLETE            the kill came after the work (finished first):
 *                       where resumable, recover() restores what is durable
 *                       and redoes nothing (the restoration latency of
 *                       Table 5); otherwise nothing to do.
 *
 * The recovery row says which (trial=mid-work|before-progress|finished-first). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpm/crash.h"
#include "gpm/persistency.h"
#include "gpm/platform.h"
#include "gpm/results.h"
#include "harness.h"

static int fail(const struct wl_workload *w, int status)
{
    fprintf(stderr, "%s: %s\n", w->name, gpm_last_error());
    return status;
}

/* The PM directory must exist before anything is created in it. */
static int check_pm_dir(const struct wl_ctx *c)
{
    const char *dir = c->h->opt.pm_dir ? c->h->opt.pm_dir : getenv("GPM_PM_DIR");
    const char *what = c->h->opt.pm_dir ? "--pm-dir" : "GPM_PM_DIR";
    struct stat st;
    if (!dir || !*dir)
        return 0; /* the default, made on first use */
    if (stat(dir, &st) != 0)
        return gpm_set_error("%s: %s does not exist: create it, or pass an existing directory "
                             "on PM (or /dev/shm)", what, dir);
    if (!S_ISDIR(st.st_mode))
        return gpm_set_error("%s: %s is not a directory: pass a directory on PM (or /dev/shm)",
                             what, dir);
    if (wl_pm_dir_usable(dir, what) != 0)
        return -1;
    if (c->h->opt.pm_dir)
        setenv("GPM_PM_DIR", c->h->opt.pm_dir, 1);
    return 0;
}

static int check_gpu(const struct wl_ctx *c)
{
    if (!c->m->needs_gpu)
        return 0;
    /* A mutant of a kernel's persist (GPM_MUTATE) is set before any kernel runs. */
    if (gpm_gpu_check() == 0)
        return gpm_trace_device_mutant();
    return gpm_set_error("%s: run on a machine with an NVIDIA GPU%s", gpm_last_error(),
                         c->wl->modes & WL_MODE_BIT(WL_CPU) ? ", or use --mode cpu" : "");
}

/* A mode whose commit engine cannot run here (cap-gds without cuFile) says
 * why in one line, before any file is made. */
static int check_usable(const struct wl_ctx *c)
{
    char why[768];
    if (!c->m->commit->usable || c->m->commit->usable(why, sizeof why))
        return 0;
    return gpm_set_error("--mode %s: %s", c->m->name, why);
}

static int declare_objects(struct wl_ctx *c)
{
    for (c->h->nobj = 0; c->wl->objects && c->wl->objects[c->h->nobj].name; c->h->nobj++) {
        if (c->h->nobj == WL_MAX_OBJECTS)
            return gpm_set_error("%s: declares more than %d PM objects", c->wl->name,
                                 WL_MAX_OBJECTS);
        c->h->obj[c->h->nobj].name = c->wl->objects[c->h->nobj].name;
        c->h->obj[c->h->nobj].kind = c->wl->objects[c->h->nobj].kind;
        /* A transactional log is what the mode's engine keeps: chosen once. */
        if (c->h->obj[c->h->nobj].kind == WL_OBJ_TX)
            c->h->obj[c->h->nobj].kind = c->m->tx->log;
        c->h->obj[c->h->nobj].lock_fd = -1;
    }
    return 0;
}

static void write_row(struct wl_ctx *c, const char *op, int reps, const double *t,
                      int verified, int *row_err)
{
    gpm_platform plat;
    gpm_result res;
    char *params, sizes[1024];
    const struct wl_harness *h = c->h;
    const char *note = h->note ? h->note : "";
    size_t len;
    wl_params_string(c, sizes, sizeof sizes);
    /* As long as the notes are: a row never loses the end of them. */
    len = strlen(sizes) + strlen(h->threads_how) + strlen(h->setup_note) + strlen(note) + 64;
    if (!(params = malloc(len))) {
        fprintf(stderr, "%s: out of memory for the row\n", c->wl->name);
        *row_err = 1;
        return;
    }
    snprintf(params, len, "%s,seed=%llu,cpu_threads=%s%s%s%s%s", sizes, c->h->opt.seed,
             h->threads_how, h->setup_note[0] ? "," : "", h->setup_note, note[0] ? "," : "", note);
    gpm_result_point(&res, c->wl->name, op, c->m->name,
                     c->h->opt.custom ? "custom" : wl_scale_name(c->h->opt.scale),
                     c->data_bytes, c->threads, t, reps, c->bytes_persisted, verified);
    res.params = params;
    gpm_platform_collect(&plat);
    if (c->h->opt.out) {
        if (gpm_result_append(c->h->opt.out, &plat, &res) != 0) {
            fprintf(stderr, "%s: %s\n", c->wl->name, gpm_last_error());
            *row_err = 1;
        }
    } else {
        gpm_result_tsv_header(stdout);
        gpm_result_tsv_row(stdout, &plat, &res);
        /* A row that never reached stdout (a full disk, a closed pipe) is
         * a failed run, as with --out. */
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "%s: cannot write the result row to stdout (%s): free space "
                    "where it goes, or pass --out FILE\n", c->wl->name, strerror(errno));
            *row_err = 1;
        }
    }
    free(params);
}

static void progress_line(const struct wl_ctx *c, int rep, int reps, double s)
{
    /* Only long runs: a short one would drown its row in noise. */
    if (s < 2.0 && c->expected_s * reps < 5.0)
        return;
    fprintf(stderr, "%s %s: rep %d/%d %.3f s\n", c->wl->name, c->m->name, rep + 1, reps, s);
}

/* Does --kill ask for the watchdog (time:S, random)? */
static int watchdog(const struct wl_ctx *c)
{
    return c->h->opt.kill.kind == WL_KILL_TIME || c->h->opt.kill.kind == WL_KILL_RANDOM;
}

/* --kill random: uniform over 5%..95% of the expected work, so the kill
 * lands inside it rather than at its edges; the clock and pid make
 * repeated trials of one seed land at different moments. (Crash campaigns
 * pass moments drawn from a measured duration instead.) */
static double crash_pick(double expected_s, unsigned long long salt)
{
    struct timespec now;
    uint64_t x;
    clock_gettime(CLOCK_REALTIME, &now);
    x = (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 32) ^ salt;
    if (expected_s < 0.01)
        expected_s = 0.01;
    return (double)gpm_crash_pick_us(x, (uint64_t)(expected_s * 0.05e6),
                                     (uint64_t)(expected_s * 0.95e6)) / 1e6;
}

/* libgpm's SIGKILL watchdog, disarmed as soon as the work returns, so that
 * only kills inside the work happen; the PM files survive for --recover.
 * A crash that was asked for but cannot be armed is an error: the run
 * must not pass for one that finished before the kill. */
static int arm_crash(struct wl_ctx *c)
{
    const struct wl_kill *k = &c->h->opt.kill;
    double s = k->kind == WL_KILL_RANDOM ? crash_pick(c->expected_s, wl_seed(c)) : k->seconds;
    if (!watchdog(c))
        return 0; /* the other kills land on progress (progress.c) or a commit (tx.c) */
    fprintf(stderr, "crash: SIGKILL in %.3f s\n", s);
    fflush(stderr);
    if (gpm_crash_arm_us((uint64_t)(s * 1e6)) == 0)
        return 0;
    return gpm_set_error("--kill: %s", gpm_last_error());
}

/* Is a kill armed around the timed work (the first repetition's, or the
 * recovery's)? commit:N is not: it lands in the first repetition's commits. */
static int crash_asked(const struct wl_ctx *c)
{
    return c->h->opt.kill.kind != WL_KILL_NONE && c->h->opt.kill.kind != WL_KILL_COMMIT;
}

/* One timed piece of work, FN, under the identity protocol; the kills
 * (when ARM) cover exactly FN. */
static int timed(struct wl_ctx *c, struct wl_run *run, int (*fn)(struct wl_ctx *), int arm,
                 double *t)
{
    double t0;
    int rc, sampling;
    c->bytes_persisted = 0;
    c->excluded_s = 0;
    /* The sampler starts first: opening NVML on the first run takes tens of
     * milliseconds, which the watchdog must not count as work. */
    sampling = wl_pcie_start(c);
    if (wl_live_start(c, arm) != 0 || (arm && arm_crash(c) != 0)) {
        wl_live_stop(c);
        wl_pcie_stop(c, sampling);
        return -1;
    }
    t0 = wl_now();
    rc = fn(c);
    if (rc == 0 && c->m->commit->work_end)
        rc = c->m->commit->work_end(c);
    *t = wl_now() - t0 - c->excluded_s;
    if (wl_live_stop(c) != 0)
        rc = -1;
    wl_pcie_stop(c, sampling);
    if (rc == 0 && c->m->commit->after_work)
        rc = c->m->commit->after_work(c);
    if (c->h->opt.sbrp)
        wl_note(c, "persistency=sbrp");
    if (c->h->opt.cp_blocks)
        wl_note(c, "cp_blocks=%d", c->h->opt.cp_blocks);
    else
        wl_cp_pace_note(c);
    if (arm && watchdog(c) && gpm_crash_disarm() == 1)
        fprintf(stderr, "crash: the work finished before the watchdog fired\n");
    if (arm && !watchdog(c))
        fprintf(stderr, "crash: the work finished before the kill on progress\n");
    if (c->h->opt.kill.kind == WL_KILL_COMMIT && c->rep == 0)
        fprintf(stderr, "crash: the work finished before commit %lld\n", c->h->opt.kill.commit);
    if (rc == 0)
        rc = wl_identity_write(c, run, GPM_RUN_COMPLETE);
    return rc;
}

/* A new epoch, PREPARING on PM before prepare() touches anything, and
 * RUNNING once what it prepared is durable: a crash inside prepare() is no
 * crash of the work, and a recovery must not resume from half a reset. */
static int start_epoch(struct wl_ctx *c, struct wl_run *run)
{
    if (++c->epoch == 0)
        c->epoch = 1; /* 0 marks what no run has written */
    if (wl_identity_write(c, run, GPM_RUN_PREPARING) != 0 ||
        (c->wl->prepare && c->wl->prepare(c) != 0))
        return -1;
    return wl_identity_write(c, run, GPM_RUN_RUNNING);
}

static int reps_of_run(struct wl_ctx *c, struct wl_run *run, double *t)
{
    for (int r = 0; r < c->h->opt.reps; r++) {
        c->rep = r;
        if (c->h->note)
            c->h->note[0] = '\0'; /* the row keeps the last repetition's notes */
        if (start_epoch(c, run) != 0 || timed(c, run, c->wl->run, r == 0 && crash_asked(c), &t[r]))
            return -1;
        progress_line(c, r, c->h->opt.reps, t[r]);
    }
    return 0;
}

/* The recovery's verdict on a resume: what it found and whether it reused
 * exactly that. COMPLETE: the run had finished before the kill. */
static int judge_resume(struct wl_ctx *c, int complete)
{
    const struct wl_progress *p = &c->progress;
    if (p->total == 0)
        return gpm_set_error("%s: recover() reported no progress (set c->progress)",
                             c->wl->name);
    wl_note(c, "trial=%s,durable=%llu/%llu,redone=%llu",
         complete || p->durable >= p->total ? "finished-first"
         : p->durable == 0                  ? "before-progress"
                                            : "mid-work",
         (unsigned long long)p->durable, (unsigned long long)p->total,
         (unsigned long long)p->redone);
    if (p->durable > p->total || p->redone != p->total - p->durable)
        return gpm_set_error("%s: recovery redid %llu of %llu units although %llu were "
                             "durable: it did not reuse exactly the durable progress",
                             c->wl->name, (unsigned long long)p->redone,
                             (unsigned long long)p->total, (unsigned long long)p->durable);
    return 0;
}

static int rerun(struct wl_ctx *c, struct wl_run *run, double *t)
{
    return start_epoch(c, run) || timed(c, run, c->wl->run, crash_asked(c), t) ? -1 : 0;
}

static int recovery(struct wl_ctx *c, struct wl_run *run, double *t)
{
    int complete = run->found.state == GPM_RUN_COMPLETE;
    *t = 0;
    if (run->found.state == GPM_RUN_CREATED || run->found.state == GPM_RUN_PREPARING) {
        /* killed before the work began */
        wl_note(c, "trial=before-progress");
        return rerun(c, run, t);
    }
    if (c->fresh) { /* nothing durable to resume in this mode */
        if (complete) {
            wl_note(c, "trial=finished-first");
            return 0;
        }
        wl_note(c, "trial=mid-work,durable=0");
        return rerun(c, run, t);
    }
    /* Resume; after a complete run this is the restoration alone (Table 5). */
    if (!c->wl->recover)
        return gpm_set_error("%s has no recovery", c->wl->name);
    if (wl_identity_write(c, run, GPM_RUN_RUNNING) != 0 ||
        timed(c, run, c->wl->recover, crash_asked(c), t) != 0)
        return -1;
    wl_note(c, "total_s=%.6f", *t);
    if (c->restore_s >= 0)
        *t = c->restore_s;
    return judge_resume(c, complete);
}

/* Where the process's time went, so that a figure's wall time can be
 * accounted for (scripts/report/timing.py): opening the GPU and the PM
 * files, calibrating the flush threads, the workload's setup, the timed
 * repetitions together, the rest of the repetitions (prepare, identity
 * writes; in a recovery, the work after the restore) and verification. */
static void note_wall(struct wl_ctx *c, const double *when, const double *t, int reps)
{
    double timed = 0;
    for (int r = 0; r < reps; r++)
        timed += t[r];
    wl_note(c,
            "open_s=%.3g,calibrate_s=%.3g,setup_s=%.3g,timed_s=%.6g,untimed_s=%.3g,"
            "verify_s=%.3g",
            when[1] - when[0], when[2] - when[1], when[3] - when[2], timed,
            when[4] - when[3] - timed, wl_now() - when[4]);
}

/* What a traced run is, in the words of its row, for gpm-check's. */
static void describe_trace(const struct wl_ctx *c)
{
    char words[256];
    snprintf(words, sizeof words, "mode=%s,scale=%s%s%s", c->m->name,
             c->h->opt.custom ? "custom" : wl_scale_name(c->h->opt.scale),
             c->wl->ops ? ",op=" : "", c->wl->ops ? wl_op(c) : "");
    gpm_trace_describe(words);
}

int wl_run(const struct wl_workload *w, int argc, char **argv)
{
    struct wl_ctx ctx = {0}, *c = &ctx;
    struct wl_harness harness = {0};
    struct wl_run run;
    double *t = NULL, when[5];
    int reps, ok = 0, rc, row_err = 0;
    char why[1024] = "";
    enum wl_files files = WL_FILES_REMOVE_CREATED;

    c->h = &harness;
    c->wl = w;
    c->restore_s = -1;
    if ((rc = wl_parse_args(w, argc, argv, &c->h->opt, stdout)) != 0)
        return rc == 1 ? 0 : fail(w, 2); /* 1: --help and the like, printed */
    c->m = wl_mode(c->h->opt.mode);
    if (wl_check_flags(c) != 0 || check_pm_dir(c) != 0 || declare_objects(c) != 0)
        return fail(w, 2);
    if (c->h->opt.out && gpm_result_check_out(c->h->opt.out) != 0) {
        gpm_set_error("--out: %s", gpm_last_error());
        return fail(w, 2);
    }
    wl_resolve_params(w, &c->h->opt, c->p);
    if (w->state_bytes && !(c->priv = calloc(1, w->state_bytes))) {
        gpm_set_error("out of memory");
        return fail(w, 1);
    }
    if (w->layout && w->layout(c) != 0) {
        free(c->priv);
        return fail(w, 2);
    }
    when[0] = wl_now();
    if (c->h->opt.trace && gpm_trace_open(c->h->opt.trace) != 0) {
        free(c->priv);
        return fail(w, 2);
    }
    gpm_trace_model(c->h->opt.sbrp ? GPM_MODEL_SBRP : c->m->model);
    describe_trace(c);
    if (check_usable(c) != 0 || check_gpu(c) != 0 || wl_objects_open(c, &run) != 0) {
        free(c->priv);
        return fail(w, 1);
    }
    wl_pm_dir_note(w, &run.id);
    when[1] = wl_now();
    /* A resume needs a run that started and whose progress was durable, in
     * a mode that can continue it; anything else starts over. */
    c->fresh = !(c->h->opt.recover && run.found.state != GPM_RUN_CREATED &&
                 run.found.state != GPM_RUN_PREPARING &&
                 wl_resumes(w, (enum wl_mode)run.found.mode, c->h->opt.mode));

    reps = c->h->opt.recover ? 1 : c->h->opt.reps;
    t = calloc((size_t)reps, sizeof *t);
    rc = t ? 0 : gpm_set_error("out of memory");
    if (rc == 0)
        rc = wl_flusher_setup(c);
    if (rc == 0)
        rc = wl_live_open(c);
    when[2] = wl_now();
    if (rc == 0 && w->setup)
        rc = w->setup(c);
    if (rc == 0 && w->blocks && !wl_dev_region(c, 0)) /* its device copy, untimed */
        rc = -1;
    when[3] = wl_now();
    /* The trace covers the work: every repetition, or the recovery. */
    if (rc == 0)
        rc = gpm_trace_begin();
    if (rc == 0)
        rc = c->h->opt.recover ? recovery(c, &run, t) : reps_of_run(c, &run, t);
    if (gpm_trace_end() != 0)
        rc = -1;
    when[4] = wl_now();
    if (rc != 0) {
        rc = fail(w, 1);
        /* --keep keeps what a failed run left: a recovery may want it. */
        if (c->h->opt.keep) {
            files = WL_FILES_KEEP;
            fprintf(stderr, "%s: the PM files stay in %s (--keep): --recover resumes or "
                    "undoes what this run left\n", w->name, gpm_pm_dir());
        }
        goto out;
    }

    /* Every run verifies its output: a workload without a check fails. */
    memset(c->h->check_digest, 0, sizeof c->h->check_digest);
    rc = w->verify ? w->verify(c) : gpm_set_error("%s has no verify callback", w->name);
    if (rc < 0) {
        rc = fail(w, 1);
        goto out;
    }
    ok = rc == 0;
    note_wall(c, when, t, reps);
    /* Kept before the row is written: collecting the platform for it may
     * leave a message of its own (no GPU, say). */
    if (!ok)
        snprintf(why, sizeof why, "%s", gpm_last_error());
    write_row(c, c->h->opt.recover ? "recover" : wl_op(c), reps, t, ok, &row_err);
    if (!ok) {
        fprintf(stderr, "%s: verification failed: %s\n", w->name, why);
        fprintf(stderr, "%s: the PM files stay in %s for inspection (remove them when done)\n",
                w->name, gpm_pm_dir());
        files = WL_FILES_KEEP;
    } else
        files = c->h->opt.keep || c->h->opt.kill.kind != WL_KILL_NONE ? WL_FILES_KEEP
                                                                        : WL_FILES_REMOVE;
    rc = ok && !row_err ? 0 : 1;
out:
    free(t);
    if (w->teardown)
        w->teardown(c);
    wl_live_close(c);
    free(c->h->note);
    free(c->priv);
    if (c->h->flusher)
        gpm_flusher_destroy(c->h->flusher);
    wl_objects_close(c, &run, files);
    return rc;
}

