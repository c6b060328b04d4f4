/* gpm-check: a persistency checker. Runs a program once with its PM stores
 * and persist points traced (--trace, gpm/trace.h), checks the trace is
 * complete (replayed onto the start images, it gives the files the run
 * left), builds the crash images the persistency model allows
 * (gpm/persistency.h), and runs the program's own --recover on each: every
 * image must recover to the golden output, which the program's
 * verification checks.
 *
 *   gpm-check [options] PROGRAM ARGS...
 *
 * ARGS are the run's own flags (--mode M --scale S ...; not --pm-dir,
 * --reps, --recover or --out, which gpm-check passes). Exit status: 0 every
 * image recovered, 1 a failure (each is named: its crash point, what it
 * dropped, what the recovery said), 2 usage. */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpm/args.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"
#include "gpm/results.h"

static const char synopsis[] =
    "[options] PROGRAM ARGS...\n"
    "  runs PROGRAM ARGS once, traced, then recovers every crash image the model\n"
    "  allows (at most --images) with PROGRAM ARGS --recover";

static int model_arg(const char *flag, const char *val, void *to)
{
    (void)flag;
    return gpm_model_parse(val, to);
}

/* 0 parsed, -1 with the message set, 1 --help printed. */
static int parse(int argc, char **argv, struct opts *o)
{
    long long seed;
    int first, rc;
    struct gpm_flag flags[] = {
        GPM_FLAG_INT("--images", &o->images, 1, 100000, "200", "N",
                     "crash images to recover at most, 1 to 100000"),
        GPM_FLAG_CUSTOM("--model", model_arg, &o->model, NULL, "strict|eadr|ndp|none|sbrp",
                        "by default the model PROGRAM's trace declares (the suite's programs "
                        "declare their mode's: eadr for the *-eadr modes, ndp for gpm-ndp), else "
                        "strict; none (no persist honoured: any value written may be what PM "
                        "holds), sbrp (scoped buffered release persistency: GPU persists ordered "
                        "only by oFences and scoped pRel/pAcq pairs, durable by dFences)"),
        GPM_FLAG_STR("--honour", &o->honour, NULL, "S",
                     "with --model none: the persists of files whose names end in S count as "
                     "under strict (a run's bookkeeping, e.g. .id)"),
        GPM_FLAG_LL("--seed", &seed, 0, 0x7fffffffffffffffll, "1", "N",
                    "the random images' seed"),
        GPM_FLAG_INT("--jobs", &o->jobs, 1, 1024, NULL, "N",
                     "recovery processes at most, 1 to 1024 (default: the cores; one per 25 "
                     "images); each recovers images in turn, and any image not recovered there "
                     "is recovered again in a process of its own, whose verdict stands"),
        GPM_FLAG_SET("--isolate", &o->isolate, "every image in a process of its own (slower)"),
        GPM_FLAG_SET("--rerun", &o->rerun,
                     "trace a second run of PROGRAM ARGS, over the files a first, untraced one "
                     "left: the start is old output, not fresh files, so what a reset must "
                     "persist shows"),
        GPM_FLAG_INT("--nested", &o->nested, 0, 100, "0", "N",
                     "then N of the images whose recovery had most to do checked again with "
                     "--from: crashes during their recovery, 0 to 100"),
        GPM_FLAG_STR("--from", &o->from, NULL, "DIR",
                     "check the recovery of the crash image whose files DIR holds: the traced "
                     "run is PROGRAM ARGS --recover on a copy of them"),
        GPM_FLAG_STR("--dir", &o->dir, NULL, "DIR",
                     "where the run and the images go (default: a new folder under $GPM_PM_DIR "
                     "or /dev/shm)"),
        GPM_FLAG_SET("--keep", &o->keep, "keep the --dir (a failing image is kept)"),
        GPM_FLAG_SET("--sites", &o->sites,
                     "list the trace's persist points (site, kind, count) and stop"),
        GPM_FLAG_STR("--out", &o->out, NULL, "FILE",
                     "append a result row of the check (median_s: its wall time; params run_s "
                     "and run_work_s: the traced run's wall time and timed work; mode, scale "
                     "and op= as the program's trace describes its run)"),
        GPM_FLAGS_STOP(&first, 1, INT_MAX, "PROGRAM",
                       "pass the program to check and its flags")}; /* and then its own */
    memset(o, 0, sizeof *o);
    o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if ((rc = gpm_args_parse(PROG, synopsis, flags, argc, argv)) != 0)
        return rc;
    o->seed = (unsigned long long)seed;
    o->model_given = gpm_args_seen(flags, "--model") != 0;
    o->argv = argv + first;
    o->argc = argc - first;
    if (o->argc > MAX_ARGS)
        return gpm_set_error("more than %d flags for PROGRAM", MAX_ARGS);
    if (o->from) {
        struct stat st;
        if (stat(o->from, &st) != 0 || !S_ISDIR(st.st_mode))
            return gpm_set_error("--from %s: not a folder: pass the folder of a crash image's "
                                 "PM files", o->from);
    }
    for (int i = 1; i < o->argc; i++)
        if (!strcmp(o->argv[i], "--pm-dir") || !strcmp(o->argv[i], "--reps") ||
            !strcmp(o->argv[i], "--recover") || !strcmp(o->argv[i], "--out") ||
            !strcmp(o->argv[i], "--trace"))
            return gpm_set_error("%s: gpm-check passes it itself: leave it out", o->argv[i]);
    if (o->rerun && o->from)
        return gpm_set_error("--rerun with --from: a recovery runs over its crash image "
                             "already: leave one out");
    if (o->honour && (o->model != GPM_MODEL_NONE || !*o->honour))
        return gpm_set_error("--honour %s: only with --model none, and with the end of the "
                             "files' names whose persists count (e.g. --honour .id)", o->honour);
    return 0;
}

static void row(const struct opts *o, const gpm_ptrace *t, const char *params, int ok,
                double wall_s)
{
    gpm_platform plat;
    char mode[64], scale[64];
    gpm_result res = {.workload = base_name(o->argv[0]), .op = "check",
                      .mode = run_word(t, "mode", mode, sizeof mode, "?"),
                      .scale = run_word(t, "scale", scale, sizeof scale, "unknown"), .reps = 1,
                      .median_s = wall_s, .min_s = wall_s, .max_s = wall_s, .rsd_pct = NAN,
                      .verified = ok ? "ok" : "fail", .params = params};
    gpm_platform_collect(&plat);
    if (gpm_result_append(o->out, &plat, &res) != 0)
        fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
}

/* What the check found, for its summary and its row. */
struct outcome {
    int complete; /* gpm_replay_check's: 0 the trace is complete */
    struct image_counts chosen;
    struct verdicts by;
    struct nested_counts nested;
    int alone; /* images recovered again in a process of their own */
    int fails;
    double start, run_s, run_work_s, choose_s, write_s, recover_s;
};

/* The last error, said; CODE, the exit status. */
static int fail(int code)
{
    fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
    return code;
}

/* The folder of the run and the images: --dir, or a new one. 0, or the
 * exit status. */
static int make_work(struct check *c)
{
    const char *pm = getenv("GPM_PM_DIR");
    if (c->o.dir) {
        snprintf(c->work, sizeof c->work, "%s", c->o.dir);
        if (mkdir(c->work, 0700) != 0 && errno != EEXIST) {
            fprintf(stderr, "%s: --dir %s: cannot create it (%s)\n", PROG, c->work,
                    strerror(errno));
            return 2;
        }
        return 0;
    }
    snprintf(c->work, sizeof c->work, "%s/gpm-check.XXXXXX", pm && *pm ? pm : "/dev/shm");
    if (!mkdtemp(c->work)) {
        fprintf(stderr, "%s: cannot make a folder in %s (%s): set GPM_PM_DIR or --dir\n", PROG,
                pm && *pm ? pm : "/dev/shm", strerror(errno));
        return 1;
    }
    return 0;
}

/* The traced run, of the work or (--from) of a crash image's recovery, and
 * its trace loaded. 0, or the exit status. */
static int traced_run(struct check *c, struct outcome *out)
{
    const struct opts *o = &c->o;
    char rundir[4200], tracedir[4200], rows[4300], log[4400], why[1024];
    char *traced[] = {"--reps", "1", "--keep", "--pm-dir", rundir, "--trace", tracedir,
                      "--out", rows, "--recover"};
    double t0;
    int rc;
    snprintf(rundir, sizeof rundir, "%s/run", c->work);
    snprintf(tracedir, sizeof tracedir, "%s/trace", c->work);
    mkdir(rundir, 0700);
    mkdir(tracedir, 0700);
    snprintf(rows, sizeof rows, "%s/rows.tsv", rundir);
    snprintf(log, sizeof log, "%s/run.log", c->work);
    if (o->from && copy_files(o->from, rundir) != 0)
        return fail(2);
    if (o->rerun) {
        /* The same command first, untraced: its files are the start. (Not
         * another seed's: a workload's files may be sized by its data, and
         * a run refuses files of other sizes.) */
        char first[4400], *plain[] = {"--reps", "1", "--keep", "--pm-dir", rundir, "--out", first};
        snprintf(first, sizeof first, "%s/first-rows.tsv", c->work);
        if ((rc = run(o, plain, 7, log, 1)) != 0) {
            last_line(log, why, sizeof why);
            fprintf(stderr, "%s: --rerun: the first, untraced run of %s exited %d: %s\n", PROG,
                    o->argv[0], rc, why);
            return rc == 2 ? 2 : 1;
        }
    }
    t0 = gpm_now_s();
    rc = run(o, traced, o->from ? 10 : 9, log, 1);
    out->run_s = gpm_now_s() - t0;
    if (rc != 0) {
        last_line(log, why, sizeof why);
        if (rc == 2) { /* PROGRAM refused its flags: nothing ran worth keeping */
            fprintf(stderr, "%s: %s\n", PROG, why);
            if (!o->keep && !o->dir)
                remove_tree(c->work);
            return 2;
        }
        fprintf(stderr, "%s: the traced run of %s exited %d: %s (its log and files stay in %s)\n",
                PROG, o->argv[0], rc, why, c->work);
        return 1;
    }
    if (gpm_ptrace_load(&c->t, tracedir) != 0) {
        fprintf(stderr, "%s: %s (the run stays in %s)\n", PROG, gpm_last_error(), c->work);
        return 1;
    }
    out->run_work_s = median_s(rows);
    return 0;
}

/* The trace checked complete, and when each event is durable under the
 * model (a mutant's, beside the original's). 0, or the exit status. */
static int apply_model(struct check *c, struct outcome *out)
{
    struct opts *o = &c->o;
    gpm_ptrace *t = &c->t;
    uint64_t stores = 0, points = 0;
    char why[4400], mode[64];
    if (!o->model_given) /* the program's word for its PM, else strict */
        o->model = t->model ? (gpm_model)(t->model - 1) : GPM_MODEL_STRICT;
    for (uint32_t k = 0; o->honour && k < t->nobj; k++) {
        size_t n = strlen(t->obj[k].path), m = strlen(o->honour);
        t->obj[k].honoured = n >= m && strcmp(t->obj[k].path + n - m, o->honour) == 0;
        if (t->obj[k].honoured)
            printf("gpm-check: model none honours the persists of %s (--honour)\n",
                   base_name(t->obj[k].path));
    }
    out->complete = gpm_replay_check(t, why, sizeof why);
    if (out->complete < 0 || gpm_durability(t, o->model, &c->dur) != 0 ||
        (o->model == GPM_MODEL_SBRP && gpm_sbrp_order(t, &c->sbrp) != 0))
        return fail(1);
    if (o->model != GPM_MODEL_SBRP && gpm_ptrace_has_removed(t) &&
        (gpm_durability_unmutated(t, o->model, &c->unmutated) != 0 ||
         gpm_held_back(t, c->dur, c->unmutated, &c->held) != 0))
        return fail(1);
    for (uint64_t k = 0; k < t->nev; k++) {
        stores += t->ev[k].kind == GPM_TR_STORE;
        points += (uint64_t)gpm_ptrace_is_persist(t, k);
    }
    printf("gpm-check: %s, model %s: a trace of %llu events, %llu stores, %llu persist "
           "points\n", run_word(t, "mode", mode, sizeof mode, "?"), gpm_model_name(o->model),
           (unsigned long long)t->nev, (unsigned long long)stores, (unsigned long long)points);
    if (c->unmutated && c->held.stores == 0)
        printf("gpm-check: the mutant's %llu removed persist points hold no store back "
               "(a later persist makes each durable at the same point, or the trace saw none: "
               "a CPU store of the bytes already there is not seen), so every crash image of "
               "the mutant is one of the original's\n", (unsigned long long)c->held.removed);
    else if (c->unmutated)
        printf("gpm-check: the mutant's %llu removed persist points hold %llu stores back, "
               "over %llu crash points the original has not\n",
               (unsigned long long)c->held.removed, (unsigned long long)c->held.stores,
               (unsigned long long)c->held.points);
    if (out->complete) {
        printf("gpm-check: INCOMPLETE: %s\n", why);
        out->fails++;
    } else {
        printf("gpm-check: complete: the trace replayed onto the start images gives every file "
               "the run left, byte for byte\n");
    }
    return 0;
}

/* The crash images chosen (plan), said by strategy. 0, or the exit status. */
static int choose_images(struct check *c, struct outcome *out)
{
    struct image_counts *k = &out->chosen;
    char by_mutant[64] = "";
    double t0;
    c->img = calloc(c->t.nobj ? c->t.nobj : 1, sizeof *c->img);
    c->im = calloc((size_t)c->o.images, sizeof *c->im);
    for (uint32_t o = 0; c->img && o < c->t.nobj; o++)
        c->img[o] = malloc(c->t.obj[o].size ? c->t.obj[o].size : 1);
    /* Each candidate image takes and frees scratch as large as the PM
     * files: kept on the heap rather than mapped and unmapped each time,
     * it is not faulted in again (half the time of choosing images). */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    /* The recoveries share the cores, and are not timed: OpenMP threads
     * that spin while they wait for work take the cores from the other
     * processes' (5x the recovery time of BFS cpu's images on 2 cores). */
    if (!getenv("OMP_WAIT_POLICY"))
        setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    t0 = gpm_now_s();
    c->n = -1;
    if (!c->img || !c->im || (c->n = plan(c, k)) < 0)
        return fail(1);
    if (c->unmutated)
        snprintf(by_mutant, sizeof by_mutant, "held back by the mutant %d, ", k->held_back);
    printf("gpm-check: %d images (end %d, %spersist points %d, exhaustive %d, random %d), "
           "distinct by hash\n", c->n, k->end, by_mutant, k->persist_points, k->exhaustive,
           k->random);
    out->choose_s = gpm_now_s() - t0;
    return 0;
}

/* Every image written and recovered, a round at a time, and judged; the
 * first ten failures described (and kept, with --keep every image). 0, or
 * the exit status. */
static int recover_images(struct check *c, struct outcome *out)
{
    int per_round = round_size(c);
    for (int i = 0, round; i < c->n; i += round) {
        double t1 = gpm_now_s(), t2;
        round = c->n - i < per_round ? c->n - i : per_round;
        for (int k = i; k < i + round; k++) {
            char dir[4300];
            image_dir(c->work, k, dir, sizeof dir);
            if (put_image(c, dir, &c->im[k]) != 0)
                return fail(1);
        }
        t2 = gpm_now_s();
        out->write_s += t2 - t1;
        if (recover_round(c, i, round, &out->alone) != 0)
            return fail(1);
        out->recover_s += gpm_now_s() - t2;
        for (int k = i; k < i + round; k++) {
            struct image *im = &c->im[k];
            char dir[4300], log[4400];
            image_dir(c->work, k, dir, sizeof dir);
            out->by.recovered += im->verdict == RECOVERED;
            out->by.wrong += im->verdict == WRONG_OUTPUT;
            out->by.crashed += im->verdict == CRASHED;
            out->by.refused += im->verdict == REFUSED;
            recovery_found(dir, im); /* before its folder may go */
            if (im->verdict != RECOVERED) {
                snprintf(log, sizeof log, "%s/recover.log", dir);
                last_line(log, im->why, sizeof im->why);
                if (out->fails++ < 10) {
                    printf("gpm-check: FAILED image %d:\n", k);
                    describe(c, im);
                } else if (!c->o.keep) {
                    remove_tree(dir); /* the ten described are kept: enough to look at */
                }
            } else if (!c->o.keep) {
                remove_tree(dir);
            }
        }
    }
    return 0;
}

/* The verdicts over the images, said; the row's notes on them in MORE. */
static void summarise(const struct check *c, const struct outcome *out, char *more, size_t len)
{
    double found;
    printf("gpm-check: %d images tested: ", c->n);
    print_verdicts(&out->by);
    printf("%s\n", out->complete ? "; trace incomplete" : "");
    if ((found = median_durable(c->im, c->n)) >= 0) {
        printf("gpm-check: the recoveries that passed found a median %.1f%% of the work durable\n",
               100 * found);
        appendf(more, len, ",durable_median=%.4g", found);
    }
    if (out->by.wrong)
        report_wrong(c, out->by.wrong, more, len);
    if (c->o.honour)
        appendf(more, len, ",honour=%s", c->o.honour);
    if (c->o.rerun)
        appendf(more, len, ",start=old");
}

/* --out's row: the check's counts and timings in its params. */
static void write_row(const struct check *c, const struct outcome *out, const char *more,
                      double wall_s)
{
    const struct opts *o = &c->o;
    const struct image_counts *k = &out->chosen;
    const struct nested_counts *nested = &out->nested;
    /* A workload of several operations: which one (op=, as a crash campaign's row). */
    char left[256] = "", params[2048], word[64];
    const char *op = run_word(&c->t, "op", word, sizeof word, NULL), *mutant = getenv("GPM_MUTATE");
    if (mutant && *mutant)
        snprintf(left, sizeof left, ",mutant_left=%llu,removed=%llu,held_stores=%llu,"
                 "held_points=%llu,held_images=%d,nested_removed=%lld,nested_held_stores=%lld,"
                 "nested_held_images=%lld", mutant_left(&c->t), (unsigned long long)c->held.removed,
                 (unsigned long long)c->held.stores, (unsigned long long)c->held.points,
                 k->held_back, nested->removed, nested->held_stores, nested->held_images);
    snprintf(params, sizeof params, "%s%s%s"
             "model=%s,images=%d,end=%d,persist_points=%d,exhaustive=%d,random=%d,recovered=%lld,"
             "wrong=%lld,crashed=%lld,refused=%lld,complete=%s,seed=%llu,alone=%d,choose_s=%.3g,"
             "write_s=%.3g,recover_s=%.3g,run_s=%.4g,run_work_s=%.4g,nested=%d,"
             "nested_images=%lld,nested_recovered=%lld%s%s%s%s%s",
             op ? "op=" : "", op ? op : "", op ? "," : "", gpm_model_name(o->model), c->n, k->end,
             k->persist_points, k->exhaustive, k->random, out->by.recovered, out->by.wrong,
             out->by.crashed, out->by.refused, out->complete ? "no" : "yes", o->seed,
             o->isolate ? c->n : out->alone, out->choose_s, out->write_s, out->recover_s,
             out->run_s, out->run_work_s, nested->checked, nested->images, nested->by.recovered,
             more, o->from ? ",from=image" : "", mutant ? ",mutant=" : "", mutant ? mutant : "",
             left);
    row(o, &c->t, params, out->fails == 0, wall_s);
}

static void free_check(struct check *c)
{
    for (uint32_t k = 0; k < c->t.nobj; k++)
        free(c->img[k]);
    free(c->img);
    free(c->im);
    free(c->dur);
    free(c->unmutated);
    free(c->held.at);
    gpm_sbrp_free(c->sbrp);
    gpm_ptrace_free(&c->t);
}

int main(int argc, char **argv)
{
    struct check c = {0};
    struct outcome out = {.start = gpm_now_s()};
    char more[512] = "";
    double wall_s;
    int rc = parse(argc, argv, &c.o);
    if (rc == 1)
        return 0;
    if (rc != 0)
        return gpm_args_fail(PROG);
    if ((rc = make_work(&c)) != 0 || (rc = traced_run(&c, &out)) != 0)
        return rc;
    if (c.o.sites) {
        list_sites(&c.t);
        gpm_ptrace_free(&c.t);
        if (!c.o.keep)
            remove_tree(c.work);
        return 0;
    }
    if ((rc = apply_model(&c, &out)) != 0 || (rc = choose_images(&c, &out)) != 0 ||
        (rc = recover_images(&c, &out)) != 0)
        return rc;
    summarise(&c, &out, more, sizeof more);
    if (c.o.nested)
        out.fails += check_nested(&c, &out.nested);
    if (c.o.isolate)
        printf("gpm-check: each image was recovered in a process of its own (--isolate)\n");
    else
        printf("gpm-check: %d images were recovered again, each in a process of its own: not "
               "recovered, or not reached, in a process that recovered several\n", out.alone);
    wall_s = gpm_now_s() - out.start;
    printf("gpm-check: %.2f s in all (%.1f images/s): the traced run %.2f s, choosing the "
           "images %.2f s, writing them %.2f s, recovering them %.2f s\n", wall_s, c.n / wall_s,
           out.run_s, out.choose_s, out.write_s, out.recover_s);
    if (c.o.out)
        write_row(&c, &out, more, wall_s);
    if (out.fails == 0 && !c.o.keep)
        remove_tree(c.work);
    else
        printf("gpm-check: the run, its trace and the %s stay in %s\n",
               c.o.keep ? "images" : "first ten failing images", c.work);
    free_check(&c);
    return out.fails ? 1 : 0;
}
