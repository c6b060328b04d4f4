/* The command line every workload shares, parsed with getopt_long and the
 * suite's option helpers (gpm/args.h): each bad flag gets one line that
 * names it and says what to pass instead. */
#include <getopt.h>
#include <stddef.h>
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

static int param_index(const struct wl_workload *w, const char *flag)
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

const char *wl_op(const struct wl_ctx *c) { return c->wl->ops ? c->wl->ops[c->h->opt.op] : "run"; }

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

/* ---- the harness's flags ---- */

static int set_mode(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    char modes[256];
    int k = wl_mode_by_name(val);
    modes_list(w, modes, sizeof modes);
    if (k < 0 || !wl_runs_mode(w, (enum wl_mode)k))
        return gpm_set_error("--mode: %s has no mode '%s': use %s", w->name, val, modes);
    o->mode = (enum wl_mode)k;
    return 0;
}

static int set_op(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    char ops[256];
    for (int k = 0; w->ops && w->ops[k]; k++)
        if (strcmp(val, w->ops[k]) == 0) {
            o->op = k;
            return 0;
        }
    ops_list(w, ops, sizeof ops);
    return w->ops ? gpm_set_error("--op: %s has no operation '%s': use %s", w->name, val, ops)
                  : gpm_set_error("--op: %s has one operation: leave --op out", w->name);
}

static int set_scale(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    int k;
    (void)w;
    if (gpm_arg_choice("--scale", val, scale_names, &k) != 0 || k == WL_CUSTOM)
        return gpm_set_error("--scale: unknown scale '%s': use tiny|small|paper (or the "
                             "size flags)", val);
    o->scale = (enum wl_scale)k;
    return 0;
}

static int set_cpu_threads(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    long long x;
    (void)w;
    if (strcmp(val, "best") == 0) {
        o->cpu_threads = 0;
        return 0;
    }
    if (gpm_arg_ll("--cpu-threads", val, 1, GPM_FLUSHER_MAX_THREADS, &x) != 0)
        return gpm_set_error("--cpu-threads: expects a thread count from 1 to %d or 'best', "
                             "got '%s'", GPM_FLUSHER_MAX_THREADS, val);
    o->cpu_threads = (int)x;
    return 0;
}

static int set_persistency(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    static const char *const models[] = {"epoch", "sbrp", NULL};
    if (!w->sbrp)
        return gpm_set_error("--persistency: %s's kernels have no SBRP variant: drop the flag",
                             w->name);
    return gpm_arg_choice("--persistency", val, models, &o->sbrp);
}

/* --kill WHEN, parsed here once into its kind and numbers. */
static int set_kill(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    struct wl_kill *k = &o->kill;
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

static int set_seed(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    long long x;
    (void)w;
    if (gpm_arg_ll("--seed", val, 0, 0x7fffffffffffffffll, &x) != 0)
        return -1;
    o->seed = (unsigned long long)x;
    return 0;
}

/* --log-room RECORDS@BATCH, for tests: from batch BATCH on, a batch's
 * undo log holds RECORDS records, so that it fills up on demand. */
static int set_log_room(const struct wl_workload *w, const char *val, struct wl_opts *o)
{
    char tail;
    if (!has_transactions(w))
        return gpm_set_error("--log-room: %s runs no transactions: drop the flag", w->name);
    if (sscanf(val, "%llu@%llu%c", &o->log_room, &o->log_room_from, &tail) != 2 ||
        o->log_room == 0)
        return gpm_set_error("--log-room: expects RECORDS@BATCH (RECORDS from 1), got '%s'",
                             val);
    return 0;
}

static void list_usage(const struct wl_workload *w, FILE *out);

static void list_settings(const struct wl_workload *w, FILE *out)
{
    for (int i = 0; w->check_also && w->check_also[i]; i++)
        fprintf(out, "%s\n", w->check_also[i]);
}

/* The checks of what a flag asks against the mode, once it is known. */

/* --cpu-threads means flush threads, or the CPU counterpart's threads. */
static int check_cpu_threads(const struct wl_ctx *c)
{
    if (c->h->opt.cpu_threads > 0 && !c->m->flusher && c->m->needs_gpu)
        return gpm_set_error("--cpu-threads: mode %s uses no CPU threads (%s): drop the flag",
                             c->m->name, c->m->commit->about);
    return 0;
}

/* --cp-blocks sizes the checkpoint copy that overlaps the steps. */
static int check_cp_blocks(const struct wl_ctx *c)
{
    if (c->h->opt.cp_blocks && !wl_cp_overlaps(c))
        return gpm_set_error("--cp-blocks: mode %s does not overlap its checkpoints with the "
                             "steps: drop the flag, or use gpm or gpm-eadr", c->m->name);
    return 0;
}

/* SBRP's operations are the kernels' own persists: only where they fence. */
static int check_persistency(const struct wl_ctx *c)
{
    if (c->h->opt.sbrp && !c->m->fences)
        return gpm_set_error("--persistency sbrp: mode %s does not persist in-kernel: use gpm "
                             "or gpm-eadr", c->m->name);
    return 0;
}

static int durable_for(const struct wl_ctx *c, int given, const char *flag)
{
    if (!given || !c->m->commit->nothing_durable)
        return 0;
    return gpm_set_error("%s: mode %s makes nothing durable: pass a persistent mode (gpm, "
                         "cap-mm, ...) or drop the flag", flag, c->m->name);
}

/* One row a flag: its name; its argument's word in the usage (NULL: it
 * takes none); its help, each '\n' a line indented under the first (NULL:
 * a flag for tests, not listed); the field of struct wl_opts it sets, by
 * kind (a custom kind: SET parses it; a list: LIST prints it, and the
 * program stops); where only some workloads offer it, which; and the check
 * of what it asks against the mode. The usage, the parser and the checks
 * are made from this table. */
enum flag_kind { FLAG_ON, FLAG_INT, FLAG_PATH, FLAG_SET, FLAG_LIST };
struct flag {
    const char *name, *arg, *help;
    enum flag_kind kind;
    size_t field;     /* FLAG_ON, FLAG_INT, FLAG_PATH: offsetof(struct wl_opts, ...) */
    int max;          /* FLAG_INT: from 1 to MAX */
    const char *fix;  /* FLAG_PATH: what to pass instead of an empty value */
    int (*set)(const struct wl_workload *w, const char *val, struct wl_opts *o);
    void (*list)(const struct wl_workload *w, FILE *out);
    int (*offered)(const struct wl_workload *w);
    int (*check)(const struct wl_ctx *c);
};

static int has_ops(const struct wl_workload *w) { return w->ops != NULL; }
static int has_sbrp(const struct wl_workload *w) { return w->sbrp; }

#define OPT(f) offsetof(struct wl_opts, f)
static const struct flag flags[] = {
    {"mode", "M", "how the output is made durable (required)", .kind = FLAG_SET, .set = set_mode},
    {"op", "NAME", "the operation (default: the first)", .kind = FLAG_SET, .set = set_op,
     .offered = has_ops},
    {"scale", "tiny|small|paper", "the sizes' preset (default small)", .kind = FLAG_SET,
     .set = set_scale},
    {"reps", "N", "timed repetitions, median reported (default 3)", .kind = FLAG_INT,
     .field = OPT(reps), .max = 1000000},
    {"pm-dir", "DIR", "directory of the PM files (default $GPM_PM_DIR or /dev/shm/gpm-UID)",
     .kind = FLAG_PATH, .field = OPT(pm_dir),
     .fix = "pass an existing directory on PM (or /dev/shm)"},
    {"cpu-threads", "N|best",
     "CPU flush threads of the CAP and NDP engines (default best: fastest of 1..32);\n"
     "in cpu mode the worker threads (default: every core)",
     .kind = FLAG_SET, .set = set_cpu_threads, .check = check_cpu_threads},
    {"cp-blocks", "N",
     "blocks of 256 threads of the checkpoint copy that overlaps the next\n"
     "steps, in gpm and gpm-eadr (default: paced, as few as end it within\n"
     "an interval of steps)",
     .kind = FLAG_INT, .field = OPT(cp_blocks), .max = 1 << 16, .check = check_cp_blocks},
    {"persistency", "epoch|sbrp",
     "the kernels' persist operations in gpm and gpm-eadr: epoch (gpm_persist,\n"
     "the default) or sbrp (gpm/sbrp.cuh's oFence, dFence, pRel, pAcq)",
     .kind = FLAG_SET, .set = set_persistency, .offered = has_sbrp, .check = check_persistency},
    {"recover", NULL, "resume (or restart) the crashed run kept in the PM files, finish, verify",
     .kind = FLAG_ON, .field = OPT(recover)},
    {"kill", "WHEN",
     "SIGKILL this process in the first repetition (or the recovery): WHEN\n"
     "time:S (S seconds in), random (a moment within it), progress:K (just\n"
     "after its K-th unit of progress is durable: a batch, a checkpoint's\n"
     "steps, a level...) or after-progress:S[@K] (S seconds after the first\n"
     "unit, or just after unit K if that comes first)",
     .kind = FLAG_SET, .set = set_kill},
    {"progress-times", NULL, "note when the first and the last unit of progress came "
     "(progress_*_s)", .kind = FLAG_ON, .field = OPT(progress_times)},
    {"seed", "N", "input seed (default 1)", .kind = FLAG_SET, .set = set_seed},
    {"out", "FILE", "append the result row to FILE (default: print it)", .kind = FLAG_PATH,
     .field = OPT(out), .fix = "pass a file name for the result rows"},
    {"keep", NULL, "keep the PM files after the run", .kind = FLAG_ON, .field = OPT(keep)},
    {"trace", "DIR", "record the work's PM stores and persist points in DIR (gpm-check)",
     .kind = FLAG_PATH, .field = OPT(trace), .fix = "pass a directory for the trace"},
    {"modes", NULL,
     "list the modes, one a line: MODE, then needs_gpu, kernels_write_pm\n"
     "(stores --trace cannot see) and resumes (--recover resumes durable\n"
     "progress; 0: it restarts), each =1 or =0",
     .kind = FLAG_LIST, .list = modes_table},
    {"check-settings", NULL,
     "list the settings persistency checks cover beside the default run,\n"
     "one a line: NAME, then its flags",
     .kind = FLAG_LIST, .list = list_settings},
    {"help", NULL, "this text", .kind = FLAG_LIST, .list = list_usage},
    /* For tests, not listed: */
    {"log-room", "RECORDS@BATCH", NULL, .kind = FLAG_SET, .set = set_log_room},
};
#define NFLAGS ((int)(sizeof flags / sizeof flags[0]))

/* Sets what row F stands for from VAL. */
static int set_flag(const struct wl_workload *w, const struct flag *f, const char *val,
                    struct wl_opts *o)
{
    char name[64];
    void *field = (char *)o + f->field;
    snprintf(name, sizeof name, "--%s", f->name);
    switch (f->kind) {
    case FLAG_ON: *(int *)field = 1; return 0;
    case FLAG_INT: return gpm_arg_int(name, val, 1, f->max, (int *)field);
    case FLAG_PATH:
        if (!*val)
            return gpm_set_error("%s: empty: %s", name, f->fix);
        *(const char **)field = val;
        return 0;
    default: return f->set(w, val, o);
    }
}

static int offered(const struct wl_workload *w, const struct flag *f)
{
    return !f->offered || f->offered(w);
}

/* Appends " [WORD]" to the synopsis, on a new line where this one is full. */
static void synopsis_word(FILE *out, int *col, const char *word)
{
    int n = (int)strlen(word) + 3;
    if (*col + n > 90) {
        fprintf(out, "\n      ");
        *col = 6;
    }
    fprintf(out, " [%s]", word);
    *col += n;
}

/* "  --LABEL   HELP", HELP's further lines indented under its first; a
 * label too long for its column gets a line of its own. */
static void help_lines(FILE *out, const char *label, const char *help)
{
    const char *nl;
    if (strlen(label) > 18)
        fprintf(out, "  --%s\n%23s", label, "");
    else
        fprintf(out, "  --%-18s ", label);
    while ((nl = strchr(help, '\n'))) {
        fprintf(out, "%.*s\n%23s", (int)(nl - help), help, "");
        help = nl + 1;
    }
    fprintf(out, "%s\n", help);
}

static void list_usage(const struct wl_workload *w, FILE *out)
{
    char buf[256], word[320];
    int col = 1000; /* the first line is full: what follows starts the next */
    fprintf(out, "%s: %s\n", w->name, w->about ? w->about : "");
    /* The first line holds the modes, the operations and the scale, which
     * scripts read. */
    modes_list(w, buf, sizeof buf);
    fprintf(out, "usage: %s --mode %s", w->name, buf);
    ops_list(w, buf, sizeof buf);
    if (w->ops)
        fprintf(out, " [--op %s]", buf);
    fprintf(out, " [--scale tiny|small|paper]");
    for (int k = 0; k < nparams(w); k++) {
        snprintf(word, sizeof word, "--%s %s", w->params[k].flag, type_word(w->params[k].type));
        synopsis_word(out, &col, word);
    }
    for (int i = 0; i < NFLAGS; i++) {
        const struct flag *f = &flags[i];
        if (!offered(w, f) || !f->help || f->kind == FLAG_LIST || f->set == set_mode ||
            f->set == set_op || f->set == set_scale) /* those are on the first line */
            continue;
        if (f->set == set_kill) /* its forms depend on the workload */
            snprintf(buf, sizeof buf, KILL_FORMS "%s", KILL_COMMIT(w));
        snprintf(word, sizeof word, "--%s%s%s", f->name, f->arg ? " " : "",
                 f->set == set_kill ? buf : f->arg ? f->arg : "");
        synopsis_word(out, &col, word);
    }
    fprintf(out, "\n");
    for (int i = 0; i < nparams(w); i++) {
        const struct wl_param *p = &w->params[i];
        if (p->type == WL_FLOAT)
            snprintf(buf, sizeof buf, "%s (tiny %g, small %g, paper %g)", p->help, p->fscale[0],
                     p->fscale[1], p->fscale[2]);
        else if (p->type == WL_STR)
            snprintf(buf, sizeof buf, "%s (tiny %s, small %s, paper %s)", p->help, p->sscale[0],
                     p->sscale[1], p->sscale[2]);
        else
            snprintf(buf, sizeof buf, "%s (tiny %lld, small %lld, paper %lld)", p->help,
                     p->scale[0], p->scale[1], p->scale[2]);
        snprintf(word, sizeof word, "%s %s", p->flag, type_word(p->type));
        help_lines(out, word, buf);
    }
    for (int i = 0; i < NFLAGS; i++) {
        const struct flag *f = &flags[i];
        if (!offered(w, f) || !f->help)
            continue;
        snprintf(word, sizeof word, "%s%s%s", f->name, f->arg ? " " : "", f->arg ? f->arg : "");
        help_lines(out, word, f->help);
        if (f->set == set_kill && has_transactions(w))
            help_lines(out, "kill commit:N", "SIGKILL this process just before the N-th "
                       "transaction of the first\nrepetition commits (its updates durable, its "
                       "undo records too)");
    }
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

/* getopt_long's value for harness flag I and for the workload's parameter I. */
#define OPT_FLAG 1000
#define OPT_PARAM 2000

int wl_parse_args(const struct wl_workload *w, int argc, char **argv, struct wl_opts *o,
                  FILE *help_out)
{
    struct option opts[NFLAGS + WL_MAX_PARAMS + 1];
    int n = 0, c;
    char modes[256];

    memset(o, 0, sizeof *o);
    o->mode = (enum wl_mode)-1; /* none yet */
    o->scale = WL_SMALL;
    o->reps = 3;
    o->seed = 1;
    /* Every flag, offered or not: one not offered is refused with its fix. */
    for (int i = 0; i < NFLAGS; i++)
        opts[n++] = (struct option){flags[i].name, flags[i].arg ? required_argument : no_argument,
                                    NULL, OPT_FLAG + i};
    for (int i = 0; i < nparams(w); i++)
        opts[n++] = (struct option){w->params[i].flag, required_argument, NULL, OPT_PARAM + i};
    opts[n] = (struct option){NULL, 0, NULL, 0};

    optind = 0; /* glibc: start over, so that the parser can run more than once */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        const struct flag *f = c >= OPT_FLAG && c < OPT_FLAG + NFLAGS ? &flags[c - OPT_FLAG]
                                                                      : NULL;
        if (c == '?' || c == ':')
            return gpm_args_bad_flag(w->name, c, argv);
        if (f && f->kind == FLAG_LIST) {
            f->list(w, help_out);
            return 1;
        }
        if (f ? set_flag(w, f, optarg, o) != 0 : parse_param(w, c - OPT_PARAM, optarg, o) != 0)
            return -1;
    }
    if (gpm_args_no_positional(w->name, argc, argv) != 0)
        return -1;
    modes_list(w, modes, sizeof modes);
    if ((int)o->mode < 0)
        return gpm_set_error("--mode: required: pass --mode %s", modes);
    if (o->kill.kind == WL_KILL_COMMIT && o->recover)
        return gpm_set_error("--kill commit:N: not with --recover (crash the run, then recover "
                             "it)");
    for (int i = 0; i < nparams(w); i++)
        if (o->given[i] && w->params[i].sizes)
            o->custom = 1;
    return 0;
}

int wl_check_flags(const struct wl_ctx *c)
{
    const struct wl_opts *o = &c->h->opt;
    for (int i = 0; i < NFLAGS; i++)
        if (flags[i].check && flags[i].check(c) != 0)
            return -1;
    /* Mode none keeps nothing durable: nothing to crash, recover or trace. */
    if (durable_for(c, o->recover, "--recover") ||
        durable_for(c, o->kill.kind != WL_KILL_NONE, "--kill") ||
        durable_for(c, o->trace != NULL, "--trace"))
        return -1;
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

/* The index of parameter FLAG of type T (-1: any type). */
static int typed_index(const struct wl_ctx *c, const char *flag, int t)
{
    int i = param_index(c->wl, flag);
    if (i < 0 || (t >= 0 && (int)c->wl->params[i].type != t)) {
        /* A typo in a workload's own code, not a user error. */
        fprintf(stderr, "%s: internal error: no %sparameter --%s\n", c->wl->name,
                t < 0 ? "" : t == WL_FLOAT ? "float " : t == WL_STR ? "string " : "integer ", flag);
        abort();
    }
    return i;
}

unsigned long long wl_seed(const struct wl_ctx *c) { return c->h->opt.seed; }
int wl_op_index(const struct wl_ctx *c) { return c->h->opt.op; }
int wl_sbrp(const struct wl_ctx *c) { return c->h->opt.sbrp; }
int wl_cpu_threads(const struct wl_ctx *c) { return c->h->opt.cpu_threads; }
int wl_crash_asked(const struct wl_ctx *c)
{
    return c->h->opt.recover || c->h->opt.kill.kind != WL_KILL_NONE;
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
    return c->h->opt.given[typed_index(c, flag, -1)];
}

void wl_default_int(struct wl_ctx *c, const char *flag, long long v)
{
    int i = typed_index(c, flag, WL_INT);
    if (!c->h->opt.given[i])
        c->p[i].i = v;
}

void wl_default_float(struct wl_ctx *c, const char *flag, double v)
{
    int i = typed_index(c, flag, WL_FLOAT);
    if (!c->h->opt.given[i])
        c->p[i].f = v;
}
