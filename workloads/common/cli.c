/* The command line every workload shares, parsed with getopt_long and the
 * suite's option helpers (gpm/args.h): each bad flag gets one line that
 * names it and says what to pass instead. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/args.h"
#include "harness.h"

static const char *const scale_names[] = {"tiny", "small", "paper", "custom", NULL};

const char *wl_scale_name(enum wl_scale s)
{
    return (unsigned)s <= WL_CUSTOM ? scale_names[s] : "?";
}

static int nparams(const struct wl_workload *w)
{
    int n = 0;
    while (w->params && w->params[n].flag && n < WL_MAX_PARAMS)
        n++;
    return n;
}

int wl_param_index(const struct wl_workload *w, const char *flag)
{
    for (int i = 0; i < nparams(w); i++)
        if (strcmp(w->params[i].flag, flag) == 0)
            return i;
    return -1;
}

static void ops_list(const struct wl_workload *w, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; w->ops && w->ops[i]; i++)
        n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", i ? "|" : "", w->ops[i]);
}

const char *wl_op(const struct wl_ctx *c)
{
    return c->wl->ops ? c->wl->ops[c->opt.op] : "run";
}

/* A workload with a transactional log runs transactions (wl_tx_*). */
static int has_transactions(const struct wl_workload *w)
{
    for (int i = 0; w->objects && w->objects[i].name; i++)
        if (w->objects[i].kind == WL_OBJ_TX)
            return 1;
    return 0;
}

/* --kill's forms; commit:N only where there are transactions (scripts look). */
#define KILL_FORMS "time:S|random|progress:K|after-progress:S[@K]"
#define KILL_COMMIT(w) (has_transactions(w) ? "|commit:N" : "")

static void modes_list(const struct wl_workload *w, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int m = 0; m < WL_MAX_MODES; m++)
        if (wl_runs_mode(w, (enum wl_mode)m))
            n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "|" : "",
                                  wl_mode_name((enum wl_mode)m));
}

/* --modes: what the mode table says of each mode this workload runs, for
 * scripts that choose modes by what they do (make check-persistency). */
static void modes_table(const struct wl_workload *w, FILE *out)
{
    for (int m = 0; m < WL_MAX_MODES; m++)
        if (wl_runs_mode(w, (enum wl_mode)m)) {
            const struct wl_mode_info *i = wl_mode((enum wl_mode)m);
            fprintf(out, "%s\tneeds_gpu=%d\tkernels_write_pm=%d\tresumes=%d\tavailable=%d\n",
                    i->name, i->needs_gpu, i->kernels_write_pm, wl_resumable(w, (enum wl_mode)m),
                    !i->commit->usable || i->commit->usable(NULL, 0));
        }
}

static const char *type_word(enum wl_ptype t)
{
    return t == WL_FLOAT ? "X" : t == WL_STR ? "S" : "N";
}

static void usage(const struct wl_workload *w, FILE *out)
{
    char modes[256], ops[256];
    modes_list(w, modes, sizeof modes);
    ops_list(w, ops, sizeof ops);
    fprintf(out, "%s: %s\n", w->name, w->about ? w->about : "");
    fprintf(out, "usage: %s --mode %s", w->name, modes);
    if (w->ops)
        fprintf(out, " [--op %s]", ops);
    fprintf(out, " [--scale tiny|small|paper]");
    for (int i = 0; i < nparams(w); i++)
        fprintf(out, " [--%s %s]", w->params[i].flag, type_word(w->params[i].type));
    fprintf(out, "\n       [--reps N] [--pm-dir DIR] [--cpu-threads N|best] [--recover]\n"
                 "       [--kill " KILL_FORMS "%s]\n"
                 "       [--progress-times] [--seed N] [--out FILE] [--keep] [--trace DIR]\n"
                 "       [--modes] [--check-settings] [--cp-blocks N]\n", KILL_COMMIT(w));
    if (w->sbrp)
        fprintf(out, "       [--persistency epoch|sbrp]\n");
    for (int i = 0; i < nparams(w); i++) {
        const struct wl_param *p = &w->params[i];
        fprintf(out, "  --%-18s %s ", p->flag, p->help);
        if (p->type == WL_FLOAT)
            fprintf(out, "(tiny %g, small %g, paper %g)\n", p->fscale[0], p->fscale[1],
                    p->fscale[2]);
        else if (p->type == WL_STR)
            fprintf(out, "(tiny %s, small %s, paper %s)\n", p->sscale[0], p->sscale[1],
                    p->sscale[2]);
        else
            fprintf(out, "(tiny %lld, small %lld, paper %lld)\n", p->scale[0], p->scale[1],
                    p->scale[2]);
    }
    if (w->ops)
        fprintf(out, "  --op NAME            the operation: %s (default %s)\n", ops, w->ops[0]);
    if (w->sbrp)
        fprintf(out, "  --persistency M      the kernels' persist operations in gpm and gpm-eadr: "
                     "epoch (gpm_persist,\n"
                     "                       the default) or sbrp (gpm/sbrp.cuh's oFence, dFence, "
                     "pRel, pAcq)\n");
    fprintf(out, "  --reps N             timed repetitions, median reported (default 3)\n"
                 "  --pm-dir DIR         directory of the PM files (default $GPM_PM_DIR or "
                 "/dev/shm/gpm-UID)\n"
                 "  --cpu-threads N|best CPU flush threads of the CAP and NDP engines (default "
                 "best: fastest of 1..32);\n"
                 "                       in cpu mode the worker threads (default: every core)\n"
                 "  --cp-blocks N        blocks of 256 threads of the checkpoint copy that "
                 "overlaps the next\n"
                 "                       steps, in gpm and gpm-eadr (default: paced, as few as "
                 "end it within\n"
                 "                       an interval of steps)\n"
                 "  --recover            resume (or restart) the crashed run kept in the PM "
                 "files, finish, verify\n"
                 "  --kill WHEN          SIGKILL this process in the first repetition (or the "
                 "recovery): WHEN\n"
                 "                       time:S (S seconds in), random (a moment within it), "
                 "progress:K (just\n"
                 "                       after its K-th unit of progress is durable: a batch, a "
                 "checkpoint's\n"
                 "                       steps, a level...) or after-progress:S[@K] (S seconds "
                 "after the first\n"
                 "                       unit, or just after unit K if that comes first)\n"
                 "  --progress-times     note when the first and the last unit of progress "
                 "came (progress_*_s)\n"
                 "  --seed N             input seed (default 1)\n"
                 "  --out FILE           append the result row to FILE (default: print it)\n"
                 "  --keep               keep the PM files after the run\n"
                 "  --trace DIR          record the work's PM stores and persist points in DIR "
                 "(gpm-check)\n"
                 "  --modes              list the modes, one a line: MODE, then needs_gpu, "
                 "kernels_write_pm\n"
                 "                       (stores --trace cannot see) and resumes (--recover "
                 "resumes durable\n"
                 "                       progress; 0: it restarts), each =1 or =0\n"
                 "  --check-settings     list the settings persistency checks cover beside the "
                 "default run,\n"
                 "                       one a line: NAME, then its flags\n");
    if (has_transactions(w))
        fprintf(out, "  --kill commit:N      SIGKILL this process just before the N-th "
                     "transaction of the first\n"
                     "                       repetition commits (its updates durable, its undo "
                     "records too)\n");
}

enum { OPT_MODE = 1000, OPT_OP, OPT_SCALE, OPT_REPS, OPT_PM_DIR, OPT_CPU_THREADS, OPT_RECOVER,
       OPT_KILL, OPT_SEED, OPT_OUT, OPT_KEEP, OPT_HELP, OPT_PROGRESS_TIMES, OPT_TRACE, OPT_MODES,
       OPT_CHECK_SETTINGS, OPT_CP_BLOCKS, OPT_PERSISTENCY, OPT_PARAM = 2000 };

/* --kill WHEN, parsed here once into K: kind, then its numbers. */
static int parse_kill(const struct wl_workload *w, const char *val, struct wl_kill *k)
{
    char s[64], *arg, *at;
    int bad = snprintf(s, sizeof s, "%s", val) >= (int)sizeof s;
    if ((arg = strchr(s, ':')))
        *arg++ = '\0';
    if ((at = strchr(arg ? arg : s, '@')))
        *at++ = '\0';
    memset(k, 0, sizeof *k);
    if (strcmp(s, "random") == 0 && !arg && !at)
        k->kind = WL_KILL_RANDOM;
    else if (strcmp(s, "time") == 0 && arg && !at) {
        k->kind = WL_KILL_TIME;
        bad |= gpm_arg_double("--kill", arg, 1e-6, 1e6, &k->seconds);
    } else if (strcmp(s, "progress") == 0 && arg && !at) {
        k->kind = WL_KILL_PROGRESS;
        bad |= gpm_arg_ll("--kill", arg, 1, 1ll << 50, &k->unit);
    } else if (strcmp(s, "after-progress") == 0 && arg) {
        k->kind = WL_KILL_AFTER_PROGRESS;
        bad |= gpm_arg_double("--kill", arg, 0, 1e6, &k->seconds) ||
               (at && gpm_arg_ll("--kill", at, 1, 1ll << 50, &k->unit));
    } else if (strcmp(s, "commit") == 0 && !has_transactions(w))
        return gpm_set_error("--kill: %s runs no transactions, so no commit:N: use "
                             KILL_FORMS, w->name);
    else if (strcmp(s, "commit") == 0 && arg && !at) {
        k->kind = WL_KILL_COMMIT;
        bad |= gpm_arg_ll("--kill", arg, 1, 1ll << 40, &k->commit);
    }
    if (bad || k->kind == WL_KILL_NONE)
        return gpm_set_error("--kill: expects " KILL_FORMS "%s (S seconds, K and N counts from "
                             "1), got '%s'", KILL_COMMIT(w), val);
    return 0;
}

static int parse_param(const struct wl_workload *w, int i, const char *val, struct wl_opts *o)
{
    const struct wl_param *p = &w->params[i];
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", p->flag);
    o->given[i] = 1;
    switch (p->type) {
    case WL_FLOAT: return gpm_arg_double(flag, val, p->fmin, p->fmax, &o->val[i].f);
    case WL_STR:
        if (!*val)
            return gpm_set_error("%s: empty: see %s --help", flag, w->name);
        o->val[i].s = val;
        return 0;
    default:
        if (gpm_arg_ll(flag, val, p->min, p->max, &o->val[i].i) != 0)
            return -1;
        if (p->pow2 && (o->val[i].i & (o->val[i].i - 1)))
            return gpm_set_error("%s: %lld is not a power of two: pass %lld, %lld, ... or %lld",
                                 flag, o->val[i].i, p->min, 2 * p->min, p->max);
        return 0;
    }
}

static int parse_one(const struct wl_workload *w, int c, const char *val, struct wl_opts *o,
                     int *have_mode)
{
    long long x;
    int k;
    switch (c) {
    case OPT_MODE: {
        char modes[256];
        k = wl_mode_by_name(val);
        modes_list(w, modes, sizeof modes);
        if (k < 0 || !wl_runs_mode(w, (enum wl_mode)k))
            return gpm_set_error("--mode: %s has no mode '%s': use %s", w->name, val, modes);
        o->mode = (enum wl_mode)k;
        *have_mode = 1;
        return 0;
    }
    case OPT_OP: {
        char ops[256];
        for (k = 0; w->ops && w->ops[k]; k++)
            if (strcmp(val, w->ops[k]) == 0) {
                o->op = k;
                return 0;
            }
        ops_list(w, ops, sizeof ops);
        return w->ops ? gpm_set_error("--op: %s has no operation '%s': use %s", w->name, val, ops)
                      : gpm_set_error("--op: %s has one operation: leave --op out", w->name);
    }
    case OPT_SCALE:
        if (gpm_arg_choice("--scale", val, scale_names, &k) != 0 || k == WL_CUSTOM)
            return gpm_set_error("--scale: unknown scale '%s': use tiny|small|paper (or the "
                                 "size flags)", val);
        o->scale = (enum wl_scale)k;
        return 0;
    case OPT_REPS: return gpm_arg_int("--reps", val, 1, 1000000, &o->reps);
    case OPT_PM_DIR:
        if (!*val)
            return gpm_set_error("--pm-dir: empty: pass an existing directory on PM (or "
                                 "/dev/shm)");
        o->pm_dir = val;
        return 0;
    case OPT_CPU_THREADS:
        o->cpu_threads_given = 1;
        if (strcmp(val, "best") == 0) {
            o->cpu_threads = 0;
            return 0;
        }
        if (gpm_arg_ll("--cpu-threads", val, 1, GPM_FLUSHER_MAX_THREADS, &x) != 0)
            return gpm_set_error("--cpu-threads: expects a thread count from 1 to %d or "
                                 "'best', got '%s'", GPM_FLUSHER_MAX_THREADS, val);
        o->cpu_threads = (int)x;
        return 0;
    case OPT_CP_BLOCKS:
        return gpm_arg_int("--cp-blocks", val, 1, 1 << 16, &o->cp_blocks);
    case OPT_PERSISTENCY: {
        static const char *const models[] = {"epoch", "sbrp", NULL};
        if (!w->sbrp)
            return gpm_set_error("--persistency: %s's kernels have no SBRP variant: drop the "
                                 "flag", w->name);
        return gpm_arg_choice("--persistency", val, models, &o->sbrp);
    }
    case OPT_KILL: return parse_kill(w, val, &o->kill);
    case OPT_TRACE:
        if (!*val)
            return gpm_set_error("--trace: empty: pass a directory for the trace");
        o->trace = val;
        return 0;
    case OPT_SEED:
        if (gpm_arg_ll("--seed", val, 0, 0x7fffffffffffffffll, &x) != 0)
            return -1;
        o->seed = (unsigned long long)x;
        return 0;
    case OPT_OUT:
        if (!*val)
            return gpm_set_error("--out: empty: pass a file name for the result rows");
        o->out = val;
        return 0;
    default: return parse_param(w, c - OPT_PARAM, val, o);
    }
}

int wl_parse_args(const struct wl_workload *w, int argc, char **argv, struct wl_opts *o,
                  FILE *help_out)
{
    static const struct { const char *name; int has_arg, val; } common[] = {
        {"mode", 1, OPT_MODE}, {"op", 1, OPT_OP}, {"scale", 1, OPT_SCALE}, {"reps", 1, OPT_REPS},
        {"pm-dir", 1, OPT_PM_DIR}, {"cpu-threads", 1, OPT_CPU_THREADS},
        {"recover", 0, OPT_RECOVER}, {"kill", 1, OPT_KILL},
        {"seed", 1, OPT_SEED}, {"out", 1, OPT_OUT}, {"keep", 0, OPT_KEEP},
        {"progress-times", 0, OPT_PROGRESS_TIMES}, {"trace", 1, OPT_TRACE},
        {"modes", 0, OPT_MODES}, {"check-settings", 0, OPT_CHECK_SETTINGS},
        {"help", 0, OPT_HELP}, {"cp-blocks", 1, OPT_CP_BLOCKS},
        {"persistency", 1, OPT_PERSISTENCY}};
    const int nc = (int)(sizeof common / sizeof common[0]);
    struct option opts[sizeof common / sizeof common[0] + WL_MAX_PARAMS + 1];
    int n = 0, c, have_mode = 0;
    char modes[256];

    memset(o, 0, sizeof *o);
    o->scale = WL_SMALL;
    o->reps = 3;
    o->seed = 1;
    for (int i = 0; i < nc; i++)
        opts[n++] = (struct option){common[i].name, common[i].has_arg ? required_argument
                                                                       : no_argument,
                                    NULL, common[i].val};
    for (int i = 0; i < nparams(w); i++)
        opts[n++] = (struct option){w->params[i].flag, required_argument, NULL, OPT_PARAM + i};
    opts[n] = (struct option){NULL, 0, NULL, 0};

    optind = 0; /* glibc: start over, so that the parser can run more than once */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == OPT_HELP) {
            usage(w, help_out);
            return 1;
        }
        if (c == OPT_MODES) {
            modes_table(w, help_out);
            return 1;
        }
        if (c == OPT_CHECK_SETTINGS) {
            for (int i = 0; w->check_also && w->check_also[i]; i++)
                fprintf(help_out, "%s\n", w->check_also[i]);
            return 1;
        }
        if (c == OPT_RECOVER)
            o->recover = 1;
        else if (c == OPT_KEEP)
            o->keep = 1;
        else if (c == OPT_PROGRESS_TIMES)
            o->progress_times = 1;
        else if (c == '?' || c == ':')
            return gpm_args_bad_flag(w->name, c, argv);
        else if (parse_one(w, c, optarg, o, &have_mode) != 0)
            return -1;
    }
    if (gpm_args_no_positional(w->name, argc, argv) != 0)
        return -1;
    modes_list(w, modes, sizeof modes);
    if (!have_mode)
        return gpm_set_error("--mode: required: pass --mode %s", modes);
    if (o->kill.kind == WL_KILL_COMMIT && o->recover)
        return gpm_set_error("--kill commit:N: not with --recover (crash the run, then recover "
                             "it)");
    for (int i = 0; i < nparams(w); i++)
        if (o->given[i] && w->params[i].sizes)
            o->custom = 1;
    return 0;
}

void wl_resolve_params(const struct wl_workload *w, const struct wl_opts *o,
                       struct wl_value *p)
{
    /* Flags override the values of the chosen scale. */
    int s = o->scale == WL_CUSTOM ? WL_SMALL : (int)o->scale;
    for (int i = 0; i < nparams(w); i++) {
        const struct wl_param *q = &w->params[i];
        if (o->given[i]) {
            p[i] = o->val[i];
            continue;
        }
        p[i].i = q->scale[s];
        p[i].f = q->fscale[s];
        p[i].s = q->sscale[s];
    }
}

void wl_params_string(const struct wl_ctx *c, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    /* The operation is part of what a run is: its identity and its row. */
    if (c->wl->ops)
        n += (size_t)snprintf(out, len, "op=%s", wl_op(c));
    for (int i = 0; i < nparams(c->wl); i++) {
        const struct wl_param *q = &c->wl->params[i];
        const char *sep = n ? "," : "";
        size_t room = n < len ? len - n : 0;
        if (q->type == WL_FLOAT)
            n += (size_t)snprintf(out + n, room, "%s%s=%.9g", sep, q->flag, c->p[i].f);
        else if (q->type == WL_STR)
            n += (size_t)snprintf(out + n, room, "%s%s=%s", sep, q->flag,
                                  c->p[i].s ? c->p[i].s : "");
        else
            n += (size_t)snprintf(out + n, room, "%s%s=%lld", sep, q->flag, c->p[i].i);
    }
}

static int typed_index(const struct wl_ctx *c, const char *flag, enum wl_ptype t)
{
    int i = wl_param_index(c->wl, flag);
    if (i < 0 || c->wl->params[i].type != t) {
        /* A typo in a workload's own code, not a user error. */
        fprintf(stderr, "%s: internal error: no %s parameter --%s\n", c->wl->name,
                t == WL_FLOAT ? "float" : t == WL_STR ? "string" : "integer", flag);
        abort();
    }
    return i;
}

long long wl_int(const struct wl_ctx *c, const char *flag)
{
    return c->p[typed_index(c, flag, WL_INT)].i;
}

double wl_float(const struct wl_ctx *c, const char *flag)
{
    return c->p[typed_index(c, flag, WL_FLOAT)].f;
}

const char *wl_str(const struct wl_ctx *c, const char *flag)
{
    return c->p[typed_index(c, flag, WL_STR)].s;
}

int wl_given(const struct wl_ctx *c, const char *flag)
{
    int i = wl_param_index(c->wl, flag);
    if (i < 0) {
        fprintf(stderr, "%s: internal error: no parameter --%s\n", c->wl->name, flag);
        abort();
    }
    return c->opt.given[i];
}

void wl_default_int(struct wl_ctx *c, const char *flag, long long v)
{
    int i = typed_index(c, flag, WL_INT);
    if (!c->opt.given[i])
        c->p[i].i = v;
}

void wl_default_float(struct wl_ctx *c, const char *flag, double v)
{
    int i = typed_index(c, flag, WL_FLOAT);
    if (!c->opt.given[i])
        c->p[i].f = v;
}
