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
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpm/args.h"
#include "gpm/gpm.h"
#include "gpm/hd.h"
#include "gpm/persistency.h"
#include "gpm/platform.h"
#include "gpm/results.h"

#define PROG "gpm-check"
#define MAX_ARGS 96
#define NESTED_COUNTS 8 /* what check_recovery adds up */
#define IMAGES_PER_PROCESS 25 /* at least, where images share processes */

static const char usage_text[] =
    "usage: gpm-check [--images N] [--model strict|eadr|ndp|none|sbrp] [--seed N]\n"
    "                 [--jobs N] [--honour S] [--isolate] [--rerun] [--nested N] [--from DIR]\n"
    "                 [--dir DIR] [--keep]\n"
    "                 [--sites] [--out FILE]\n"
    "                 PROGRAM ARGS...\n"
    "  runs PROGRAM ARGS once, traced, then recovers every crash image the model\n"
    "  allows (at most --images, default 200) with PROGRAM ARGS --recover\n"
    "  --model     strict (default), eadr (the default for *-eadr modes), ndp (gpm-ndp's),\n"
    "              none (no persist honoured: any value written may be what PM holds),\n"
    "              sbrp (scoped buffered release persistency: GPU persists ordered only\n"
    "              by oFences and scoped pRel/pAcq pairs, durable by dFences)\n"
    "  --honour S  with --model none: the persists of files whose names end in S\n"
    "              count as under strict (a run's bookkeeping, e.g. .id)\n"
    "  --seed N    the random images' seed (default 1)\n"
    "  --jobs N    recovery processes at most (default: the cores; one per 25\n"
    "              images); each recovers images in turn, and any image not\n"
    "              recovered there is recovered again in a process of its own,\n"
    "              whose verdict stands\n"
    "  --isolate   every image in a process of its own (slower)\n"
    "  --rerun     trace a second run of PROGRAM ARGS, over the files a first, untraced\n"
    "              one left: the start is old output, not fresh files, so what a reset\n"
    "              must persist shows\n"
    "  --nested N  then N of the images whose recovery had most to do checked\n"
    "              again with --from: crashes during their recovery (default 0)\n"
    "  --from DIR  check the recovery of the crash image whose files DIR holds:\n"
    "              the traced run is PROGRAM ARGS --recover on a copy of them\n"
    "  --dir DIR   where the run and the images go (default: a new folder under\n"
    "              $GPM_PM_DIR or /dev/shm); --keep keeps it (a failing image is kept)\n"
    "  --sites     list the trace's persist points (site, kind, count) and stop\n"
    "  --out FILE  append a result row of the check (median_s: its wall time; params\n"
    "              run_s and run_work_s: the traced run's wall time and timed work)\n";

struct opts {
    int images, jobs, keep, sites, model_given, isolate, nested, rerun;
    gpm_model model;
    unsigned long long seed;
    const char *dir, *out, *from, *honour;
    char **argv; /* PROGRAM ARGS */
    int argc;
};

/* How an image's recovery ended: the order of the counts gpm-check prints. */
enum verdict { RECOVERED, WRONG_OUTPUT, CRASHED, REFUSED };
static const char *const verdicts[] = {"recovered", "wrong output", "crashed", "refused"};

struct image {
    uint64_t crash, arg, hash, pending;
    gpm_pick pick;
    const char *strategy;
    int status;   /* the recovery's exit status */
    int work;     /* what it found to do: 2 a transaction to undo, 1 work to resume, 0 none */
    enum verdict verdict;
    char why[512];
    double durable; /* the share of the work it found durable (durable=D/T), or -1 */
    /* A wrong output's measure, from its recovery's row (wl_note_wrong):
     * the share of its units wrong (wrong_units=B/T), or -1 where it says
     * none; its largest error (wrong_max_err), or -1; how that is measured
     * (wrong_err) and what a unit is (units); whether a marker was wrong
     * (wrong_marks=M/N with M > 0). */
    double wrong_share, wrong_err;
    char err_kind[8], units[32];
    int wrong_marks;
};

/* ---- running the program ---- */

/* PROGRAM ARGS EXTRA..., its output in LOG; the exit status, or 128 + the
 * signal that ended it. */
static int run_with(char *const *prefix, int nprefix, const struct opts *o, char *const *extra,
                    int nextra, const char *log, int wait)
{
    char *av[MAX_ARGS + 48];
    int n = 0, st;
    pid_t pid;
    for (int i = 0; i < nprefix; i++)
        av[n++] = prefix[i];
    for (int i = 0; i < o->argc && i < MAX_ARGS; i++)
        av[n++] = o->argv[i];
    for (int i = 0; i < nextra; i++)
        av[n++] = extra[i];
    av[n] = NULL;
    fflush(NULL);
    if ((pid = fork()) == 0) {
        if (!freopen("/dev/null", "r", stdin) || !freopen(log, "w", stdout) ||
            dup2(fileno(stdout), 2) < 0)
            _exit(120);
        execv(av[0], av);
        fprintf(stderr, "%s: cannot run (%s)\n", av[0], strerror(errno));
        _exit(121);
    }
    if (pid < 0)
        return -1;
    if (!wait)
        return pid;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run(const struct opts *o, char *const *extra, int nextra, const char *log, int wait)
{
    return run_with(NULL, 0, o, extra, nextra, log, wait);
}

static void last_line(const char *path, char *out, size_t len)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n' && strncmp(line, "gpu\t", 4) != 0 && !strchr(line, '\t'))
            snprintf(out, len, "%.*s", (int)strcspn(line, "\n"), line);
    if (f)
        fclose(f);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Column COL of the last row of ROWS (a TSV whose first line is its
 * header) into OUT: 0, or -1 where it has none. */
static int last_field(const char *rows, const char *col, char *out, size_t len)
{
    char line[16384], head[16384];
    int c = -1, k = 0, found = -1;
    FILE *f = fopen(rows, "r");
    if (!f || !fgets(head, sizeof head, f)) {
        if (f)
            fclose(f);
        return -1;
    }
    for (char *p = strtok(head, "\t\n"); p; p = strtok(NULL, "\t\n"), k++)
        if (strcmp(p, col) == 0)
            c = k;
    while (c >= 0 && fgets(line, sizeof line, f)) {
        k = 0;
        for (char *p = strtok(line, "\t\n"); p; p = strtok(NULL, "\t\n"), k++)
            if (k == c) {
                snprintf(out, len, "%s", p);
                found = 0;
            }
    }
    fclose(f);
    return found;
}

/* The median_s of the last row of ROWS (the run's timed work), or NAN. */
static double median_s(const char *rows)
{
    char v[64];
    return last_field(rows, "median_s", v, sizeof v) == 0 ? strtod(v, NULL) : NAN;
}

/* The verified column of the last row of ROWS: 1 ok, 0 fail, -1 none. */
static int verified(const char *rows)
{
    char v[16];
    return last_field(rows, "verified", v, sizeof v) == 0 ? strcmp(v, "ok") == 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes DIR and what is in it; a failure is said, not fatal. */
static void remove_tree(const char *dir)
{
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "%s: cannot remove %s (%s)\n", PROG, dir, strerror(errno));
}

/* ---- images ---- */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int write_image(const gpm_ptrace *t, uint8_t **img, const char *dir)
{
    char path[8400];
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return gpm_set_error("%s: cannot create it (%s)", dir, strerror(errno));
    for (uint32_t o = 0; o < t->nobj; o++) {
        FILE *f;
        if (!t->obj[o].path[0])
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, base_name(t->obj[o].path));
        if (!(f = fopen(path, "wb")) || fwrite(img[o], 1, t->obj[o].size, f) != t->obj[o].size) {
            if (f)
                fclose(f);
            return gpm_set_error("%s: cannot write the image (%s)", path, strerror(errno));
        }
        fclose(f);
    }
    return 0;
}

/* Under --model sbrp, the trace's persist order (set once, in main): an
 * image is then a set closed under it, not a choice per word. */
static gpm_sbrp *sbrp_order;

/* A mutant's trace: the durability with its removed persist points
 * restored, the original's (set once, in main; NULL where nothing was
 * removed). */
static uint64_t *unmutated;

/* The image at CRASH as the model builds it (gpm_image, gpm_sbrp_image,
 * and a mutant's gpm_image_spare). */
static uint64_t image_of(const gpm_ptrace *t, const uint64_t *dur, uint64_t crash, gpm_pick pick,
                         uint64_t *arg, uint8_t **img, uint64_t *pending)
{
    if (sbrp_order)
        return gpm_sbrp_image(t, sbrp_order, crash, pick, arg, img, pending);
    if (pick == GPM_SPARE && unmutated)
        return gpm_image_spare(t, dur, unmutated, crash, *arg, img, pending);
    return gpm_image(t, dur, crash, pick, arg, img, pending);
}

static int seen(uint64_t *hashes, int n, uint64_t h)
{
    for (int i = 0; i < n; i++)
        if (hashes[i] == h)
            return 1;
    return 0;
}

/* The candidates, in the order they are tried, until N unique images:
 * the end of the work with what is pending dropped and applied; each
 * persist point (an even sample where there are more than a quarter of N)
 * with what is pending dropped, then applied; every subset of the pending
 * words where there are few; random crash points and random subsets for
 * the rest. */
static int plan(const gpm_ptrace *t, const uint64_t *dur, const struct opts *o,
                const gpm_held *held, struct image *im, uint8_t **img, int *counts)
{
    uint64_t *persist = malloc((t->nev + 1) * sizeof *persist), np = 0, rng = o->seed;
    uint64_t *hashes = malloc((size_t)o->images * sizeof *hashes);
    uint64_t *canon = malloc((t->nev + 1) * sizeof *canon);
    uint8_t *decided = calloc(t->nev + 1, 1);
    int n = 0, tries = 0;
    if (!persist || !hashes || !canon || !decided) {
        free(persist);
        free(hashes);
        free(canon);
        free(decided);
        return gpm_set_error("out of memory");
    }
    for (uint64_t k = 0; k < t->nev; k++)
        if (gpm_ptrace_is_persist(t, k))
            persist[np++] = k + 1;
    /* Crash points C and C + 1 give the same images unless event C is a
     * store or makes one durable: CANON[C] is the first crash point of
     * C's class. Where an image there had nothing pending, every image
     * there is that one (DECIDED), and a random try there is not built
     * again: under eADR, say, most tries would be. */
    memset(canon, 0, (t->nev + 1) * sizeof *canon);
    for (uint64_t k = 0; k < t->nev; k++)
        if (dur[k] < t->nev)
            canon[dur[k] + 1] = 1; /* a mark, for now */
    for (uint64_t c = 1, first = 0; c <= t->nev; c++) {
        if (canon[c] || t->ev[c - 1].kind == GPM_TR_STORE)
            first = c;
        canon[c] = first;
    }
#define TRY(T, PICK, ARG, WHAT, K)                                                      \
    do {                                                                               \
        uint64_t a_ = (ARG), p_;                                                       \
        uint64_t h_ = image_of(t, dur, (T), (PICK), &a_, img, &p_);                   \
        tries++;                                                                       \
        if (p_ == 0)                                                                   \
            decided[canon[(T)]] = 1;                                                   \
        if (n < o->images && !seen(hashes, n, h_)) {                                   \
            im[n] = (struct image){(T), (ARG), h_, p_, (PICK), (WHAT), 0, 0,           \
                                   RECOVERED, "", -1, -1, -1, "", "", 0};              \
            hashes[n++] = h_;                                                          \
            counts[K]++;                                                               \
        }                                                                              \
    } while (0)
    TRY(t->nev, GPM_DROP, 0, "end", 0);
    TRY(t->nev, GPM_APPLY, 0, "end", 0);
    if (held) {
        /* A mutant: half the images, at most, where its removal holds
         * stores back, best points first: those dropped and the rest
         * applied (the other threads' progress that needed them), then
         * each held-back word dropped or not (a torn record), then all
         * dropped. A point whose images were all built already costs
         * none of the share. */
        int share = n + o->images / 2;
        for (uint64_t i = 0; i < held->nat && n < share && n < o->images; i++) {
            uint64_t at = held->at[i];
            TRY(at, GPM_SPARE, 0, "held back by the mutant", 4);
            TRY(at, GPM_SPARE, gpm_mix64(rng++) | 1, "held back by the mutant", 4);
            TRY(at, GPM_DROP, 0, "held back by the mutant", 4);
        }
    }
    {
        /* Half the images at most: the other half is for subsets. */
        uint64_t want = np < (uint64_t)o->images / 4 ? np : (uint64_t)o->images / 4;
        for (uint64_t i = 0; i < want && n < o->images; i++) {
            uint64_t at = persist[want == np ? i : i * np / want];
            TRY(at, GPM_DROP, 0, "persist point", 1);
            TRY(at, GPM_APPLY, 0, "persist point", 1);
        }
    }
    for (uint64_t i = 0; i < np && n < o->images * 3 / 4; i += np / 16 + 1) {
        uint64_t p = 0;
        image_of(t, dur, persist[i], GPM_DROP, &p, img, &p);
        if (p == 0 || p > 6)
            continue;
        for (uint64_t m = 1; m < (1ull << p) && n < o->images * 3 / 4; m++)
            TRY(persist[i], GPM_MASK, m, "exhaustive", 2);
    }
    while (n < o->images && tries < 20 * o->images) {
        uint64_t crash = gpm_mix64(rng++) % (t->nev + 1), arg = gpm_mix64(rng++);
        if (decided[canon[crash]])
            tries++;
        else
            TRY(crash, GPM_RANDOM, arg, "random", 3);
    }
#undef TRY
    free(persist);
    free(hashes);
    free(canon);
    free(decided);
    return n;
}

/* The value PROGRAM's ARGS give FLAG (the last, as PROGRAM takes it), or
 * DEFAULT. */
static const char *arg_of(const struct opts *o, const char *flag, const char *dflt)
{
    const char *v = dflt;
    for (int i = 1; i + 1 < o->argc; i++)
        if (!strcmp(o->argv[i], flag))
            v = o->argv[i + 1];
    return v;
}

static const char *mode_of(const struct opts *o)
{
    return arg_of(o, "--mode", "?");
}

/* ---- recovering the images ---- */

static void image_dir(const char *work, int k, char *dir, size_t len)
{
    snprintf(dir, len, "%s/img-%d", work, k);
}

/* IM into folder DIR as the model built it (IMG: scratch of the objects'
 * sizes): anything a recovery left there is gone. */
static int put_image(const char *dir, const gpm_ptrace *t, const uint64_t *dur,
                     const struct image *im, uint8_t **img)
{
    if (access(dir, F_OK) == 0)
        remove_tree(dir);
    image_of(t, dur, im->crash, im->pick, &(uint64_t){im->arg}, img, NULL);
    return write_image(t, img, dir);
}

/* The verdict on an image from its recovery's exit status and rows. */
static void judge(struct image *im, int status, const char *dir)
{
    char rows[4400];
    int ok;
    snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
    ok = verified(rows);
    im->status = status;
    im->verdict = status == 0 && ok == 1   ? RECOVERED
                  : status == 1 && ok == 0 ? WRONG_OUTPUT
                  : status >= 128          ? CRASHED
                                           : REFUSED;
}

/* Recovers the images WHICH[0..COUNT-1], each in a process of its own,
 * --jobs at once. */
static void recover_alone(const struct opts *o, const char *work, const int *which, int count,
                          struct image *im)
{
    for (int i = 0; i < count;) {
        pid_t pid[256];
        int batch = 0;
        for (; i < count && batch < o->jobs && batch < 256; i++, batch++) {
            char dir[4300], rows[4400], out[4400];
            char *rec[] = {"--recover", "--pm-dir", dir, "--out", rows};
            image_dir(work, which[i], dir, sizeof dir);
            snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
            snprintf(out, sizeof out, "%s/recover.log", dir);
            unlink(rows); /* a row from an earlier try must not stand for this one */
            pid[batch] = run(o, rec, 5, out, 0);
        }
        for (int b = 0; b < batch; b++) {
            int k = which[i - batch + b], st = 0;
            char dir[4300];
            image_dir(work, k, dir, sizeof dir);
            if (pid[b] < 0 || waitpid(pid[b], &st, 0) != pid[b])
                st = 127 << 8;
            judge(&im[k], WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), dir);
        }
    }
}

/* The exit status that a recovery of GPM_RECOVER_EACH left in DIR/status,
 * or -1 where it left none (it ended the process, or never ran). */
static int status_left(const char *dir)
{
    char path[4400];
    int st = -1;
    FILE *f;
    snprintf(path, sizeof path, "%s/status", dir);
    if ((f = fopen(path, "r"))) {
        if (fscanf(f, "%d", &st) != 1)
            st = -1;
        fclose(f);
    }
    return st;
}

/* Recovers the images FIRST..FIRST+COUNT-1, already written: processes
 * share their list, each recovering the next image that none has claimed
 * (GPM_RECOVER_EACH, workloads/common/recover_each.c), and so open the GPU
 * once per process instead of once per image. Only a "recovered" from
 * there counts: every other image, and any that a process did not reach,
 * is written again and recovered in a process of its own, whose verdict
 * stands. --isolate: every image in a process of its own. */
static int recover_round(const struct opts *o, const char *work, const gpm_ptrace *t,
                         const uint64_t *dur, uint8_t **img, int first, int count,
                         struct image *im, int *alone)
{
    /* A process pays for opening the GPU, and many at once pay more: on an
     * H100, 16 processes took 3.3 s to recover 27 images and 4 s for 100,
     * the processes' cost, not the images'. */
    int workers = (count + IMAGES_PER_PROCESS - 1) / IMAGES_PER_PROCESS, *again, nagain = 0;
    pid_t pid[256];
    char *rec[] = {"--recover"};
    if (workers > o->jobs)
        workers = o->jobs;
    if (workers > 256)
        workers = 256;
    if (!(again = malloc((size_t)count * sizeof *again)))
        return gpm_set_error("out of memory");
    if (!o->isolate) {
        char list[4300], dir[4300];
        FILE *f;
        snprintf(list, sizeof list, "%s/images", work);
        if (!(f = fopen(list, "w"))) {
            free(again);
            return gpm_set_error("cannot write %s (%s)", list, strerror(errno));
        }
        for (int k = first; k < first + count; k++) {
            image_dir(work, k, dir, sizeof dir);
            fprintf(f, "%s\n", dir);
        }
        if (fclose(f) != 0) {
            free(again);
            return gpm_set_error("cannot write %s", list);
        }
        setenv("GPM_RECOVER_EACH", list, 1);
    }
    for (int w = 0; !o->isolate && w < workers; w++) {
        char log[4300];
        snprintf(log, sizeof log, "%s/recover-each-%d.log", work, w);
        pid[w] = run(o, rec, 1, log, 0);
    }
    unsetenv("GPM_RECOVER_EACH");
    for (int w = 0; !o->isolate && w < workers; w++)
        if (pid[w] > 0)
            waitpid(pid[w], NULL, 0);
    for (int k = first; k < first + count; k++) {
        char dir[4300];
        int st;
        image_dir(work, k, dir, sizeof dir);
        if (!o->isolate && (st = status_left(dir)) >= 0) {
            judge(&im[k], st, dir);
            if (im[k].verdict == RECOVERED)
                continue;
        }
        if (!o->isolate && put_image(dir, t, dur, &im[k], img) != 0) {
            free(again);
            return -1;
        }
        again[nagain++] = k;
    }
    recover_alone(o, work, again, nagain, im);
    *alone += nagain;
    free(again);
    return 0;
}

/* Images written at once: --jobs processes' worth, within 2 GiB (each is
 * a copy of every PM file), and never fewer than --jobs. */
static int round_size(const struct opts *o, const gpm_ptrace *t)
{
    uint64_t bytes = 1, n;
    for (uint32_t k = 0; k < t->nobj; k++)
        bytes += t->obj[k].size;
    n = ((uint64_t)2 << 30) / bytes;
    if (n > (uint64_t)o->jobs * IMAGES_PER_PROCESS)
        n = (uint64_t)o->jobs * IMAGES_PER_PROCESS;
    return n < (uint64_t)o->jobs ? o->jobs : (int)n;
}

/* ---- checks of a recovery (--from, --nested) ---- */

/* Every file of SRC into DST: a crash image, for a traced recovery. */
static int copy_files(const char *src, const char *dst)
{
    char from[8400], to[8400], buf[1 << 16];
    struct dirent *e;
    DIR *d = opendir(src);
    int rc = 0;
    if (!d)
        return gpm_set_error("--from %s: cannot read it (%s): pass a folder of PM files", src,
                             strerror(errno));
    while (rc == 0 && (e = readdir(d))) {
        struct stat st;
        FILE *in, *out = NULL;
        size_t n;
        snprintf(from, sizeof from, "%s/%s", src, e->d_name);
        if (stat(from, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
        if (!(in = fopen(from, "rb")) || !(out = fopen(to, "wb")))
            rc = gpm_set_error("--from: cannot copy %s to %s (%s)", from, to, strerror(errno));
        while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
            if (fwrite(buf, 1, n, out) != n)
                rc = gpm_set_error("--from: cannot write %s (%s)", to, strerror(errno));
        if (in)
            fclose(in);
        if (out && fclose(out) != 0 && rc == 0)
            rc = gpm_set_error("--from: cannot write %s", to);
    }
    closedir(d);
    return rc;
}

/* The value of KEY in a row's PARAMS (k=v,...), or NULL. */
static const char *param_at(const char *params, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = params; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, key, n) && p[n] == '=')
            return p + n + 1;
    return NULL;
}

/* The whole number KEY of a row's PARAMS (k=v,...), or -1. */
static long long param_of(const char *params, const char *key)
{
    const char *v = param_at(params, key);
    return v ? strtoll(v, NULL, 10) : -1;
}

/* What the recovery in DIR found, from its row's notes: IM->work, 2 a
 * transaction to undo, 1 work to resume from a crash mid-way, 0 none;
 * IM->durable, the share of the work it found durable (-1: not said); and
 * where its output was wrong, how wrong (wrong_units and the rest of
 * wl_note_wrong's notes). */
static void recovery_found(const char *dir, struct image *im)
{
    char rows[4400], params[8192];
    const char *d;
    unsigned long long done, total;
    im->work = 0;
    im->durable = im->wrong_share = im->wrong_err = -1;
    im->err_kind[0] = im->units[0] = '\0';
    im->wrong_marks = 0;
    snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
    if (last_field(rows, "params", params, sizeof params) != 0)
        return;
    im->work = strstr(params, "tx_was_active=1") ? 2 : strstr(params, "trial=mid-work") ? 1 : 0;
    if ((d = strstr(params, "durable=")) && sscanf(d, "durable=%llu/%llu", &done, &total) == 2 &&
        total > 0)
        im->durable = (double)done / (double)total;
    if ((d = param_at(params, "wrong_units")) && sscanf(d, "%llu/%llu", &done, &total) == 2 &&
        total > 0)
        im->wrong_share = (double)done / (double)total;
    if ((d = param_at(params, "units")))
        sscanf(d, "%31[^,]", im->units);
    if ((d = param_at(params, "wrong_max_err")))
        im->wrong_err = strtod(d, NULL);
    if ((d = param_at(params, "wrong_err")))
        sscanf(d, "%7[^,]", im->err_kind);
    if ((d = param_at(params, "wrong_marks")) && sscanf(d, "%llu/%llu", &done, &total) == 2)
        im->wrong_marks = done > 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median share of the work the recovered images' recoveries found
 * durable, or -1 where none said. */
static double median_durable(const struct image *im, int n)
{
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v), m = -1;
    int k = 0;
    for (int i = 0; v && i < n; i++)
        if (im[i].verdict == RECOVERED && im[i].durable >= 0)
            v[k++] = im[i].durable;
    if (k) {
        qsort(v, (size_t)k, sizeof *v, by_value);
        m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    }
    free(v);
    return m;
}

/* How wrong the wrong outputs were, over the images whose recoveries
 * measured it: how many (*MEASURED), the median and the largest share of
 * their units wrong (-1 where none), the largest error (-1 where none
 * said), how it is measured and what a unit is (those of the image with
 * the largest error, or the first measured), and how many had a wrong
 * marker (*MARKED, of every wrong output). */
struct wrong_measure {
    int measured, marked;
    double median, max, err;
    const char *err_kind, *units;
};

static struct wrong_measure wrong_measure(const struct image *im, int n)
{
    struct wrong_measure m = {0, 0, -1, -1, -1, "", ""};
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int i = 0; v && i < n; i++) {
        if (im[i].verdict != WRONG_OUTPUT)
            continue;
        m.marked += im[i].wrong_marks;
        if (im[i].wrong_share < 0)
            continue;
        if (!m.measured++)
            m.units = im[i].units;
        v[m.measured - 1] = im[i].wrong_share;
        if (im[i].wrong_err > m.err) {
            m.err = im[i].wrong_err;
            m.err_kind = im[i].err_kind;
        }
    }
    if (m.measured) {
        int k = m.measured;
        qsort(v, (size_t)k, sizeof *v, by_value);
        m.median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        m.max = v[k - 1];
    }
    free(v);
    return m;
}

/* --nested: the images whose recoveries to crash, WANT at most, into
 * PICK: those whose recovery had most to do first (an undo, then a resume,
 * then nothing), each level's spread over its crash points. */
static int pick_nested(const struct image *im, int n, int want, int *pick)
{
    int *level = malloc((size_t)(n ? n : 1) * sizeof *level), got = 0;
    if (!level)
        return 0;
    for (int w = 2; w >= 0 && got < want; w--) {
        int m = 0, need = want - got;
        for (int k = 0; k < n; k++)
            if (im[k].work == w && im[k].verdict == RECOVERED)
                level[m++] = k;
        for (int j = 0; j < m && j < need; j++)
            pick[got++] = level[m <= need ? j : (int)((long long)m * j / need)];
    }
    free(level);
    return got;
}

/* The first failure a nested check's LOG describes, indented. */
static void show_first_failure(const char *log)
{
    char line[1024];
    int shown = -1;
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f) && shown < 9) {
        if (shown < 0 && strncmp(line, "gpm-check: FAILED image ", 24) == 0)
            shown = 0;
        else if (shown >= 0 && line[0] != ' ')
            break;
        if (shown >= 0 && shown++ >= 0)
            printf("    %s", line);
    }
    if (f)
        fclose(f);
}

/* --nested: image K checked again with --from, its images' verdicts added
 * to TOTAL (images, recovered, wrong output, crashed, refused, and of a
 * mutant, the removed persist points, the stores they held back and the
 * images there); 0 when every one recovered. */
static int check_recovery(const struct opts *o, const char *work, const gpm_ptrace *t,
                          const uint64_t *dur, const struct image *im, int k, uint8_t **img,
                          long long total[NESTED_COUNTS])
{
    char dir[4300], from[4400], check[4400], rows[4400], log[4400], images[32], seed[32];
    char jobs[32], params[2048];
    char *self[] = {"/proc/self/exe", "--from", from, "--images", images, "--model",
                    (char *)gpm_model_name(o->model), "--seed", seed, "--jobs", jobs,
                    "--dir", check, "--out", rows, "--honour", (char *)o->honour};
    static const char *const keys[NESTED_COUNTS] = {"images", "recovered", "wrong", "crashed",
                                                    "refused", "removed", "held_stores",
                                                    "held_images"};
    long long v[NESTED_COUNTS];
    int rc;
    snprintf(dir, sizeof dir, "%s/nested-%d", work, k);
    snprintf(from, sizeof from, "%s/image", dir);
    snprintf(check, sizeof check, "%s/check", dir);
    snprintf(rows, sizeof rows, "%s/row.tsv", dir);
    snprintf(log, sizeof log, "%s.log", dir);
    /* A quarter of the images for each, and no fewer than 10. */
    snprintf(images, sizeof images, "%d", o->images / 4 > 10 ? o->images / 4 : 10);
    snprintf(seed, sizeof seed, "%llu", o->seed);
    snprintf(jobs, sizeof jobs, "%d", o->jobs);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return gpm_set_error("cannot create %s (%s)", dir, strerror(errno));
    if (put_image(from, t, dur, &im[k], img) != 0)
        return -1;
    rc = run_with(self, (int)(sizeof self / sizeof self[0]) - (o->honour ? 0 : 2), o, NULL, 0,
                  log, 1);
    if (last_field(rows, "params", params, sizeof params) != 0) {
        last_line(log, params, sizeof params);
        printf("gpm-check: the check of image %d's recovery could not run (exit %d): %s (its "
               "folder and log stay in %s)\n", k, rc, params, dir);
        total[0]++;
        return 1;
    }
    for (int i = 0; i < NESTED_COUNTS; i++) {
        v[i] = param_of(params, keys[i]);
        total[i] += v[i] = v[i] > 0 ? v[i] : 0;
    }
    printf("gpm-check: image %d's recovery, crashed: %lld images, %lld recovered, %lld wrong "
           "output, %lld recovery crashed, %lld refused%s\n", k, v[0], v[1], v[2], v[3], v[4],
           strstr(params, "complete=no") ? "; trace incomplete" : "");
    if (rc != 0) {
        show_first_failure(log);
        printf("gpm-check: its failing images, and the recovery's trace, stay in %s (log %s)\n",
               check, log);
        return 1;
    }
    if (!o->keep) { /* --keep: the image, for a --from of one's own */
        remove_tree(dir);
        unlink(log);
    }
    return 0;
}

/* ---- the check ---- */

static int parse(int argc, char **argv, struct opts *o)
{
    static const struct option opts[] = {
        {"images", 1, NULL, 'i'}, {"model", 1, NULL, 'm'}, {"seed", 1, NULL, 's'},
        {"jobs", 1, NULL, 'j'},   {"dir", 1, NULL, 'd'},   {"keep", 0, NULL, 'k'},
        {"sites", 0, NULL, 'l'},  {"out", 1, NULL, 'o'},   {"help", 0, NULL, 'h'},
        {"isolate", 0, NULL, 'I'}, {"nested", 1, NULL, 'N'}, {"from", 1, NULL, 'F'},
        {"honour", 1, NULL, 'H'}, {"rerun", 0, NULL, 'R'}, {NULL, 0, NULL, 0}};
    long long x;
    int c;
    memset(o, 0, sizeof *o);
    o->images = 200;
    o->seed = 1;
    o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    opterr = 0;
    /* "+": options stop at PROGRAM, whose own flags follow it. */
    while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (gpm_arg_ll("--images", optarg, 1, 100000, &x) != 0)
                return -1;
            o->images = (int)x;
            break;
        case 'm':
            if (gpm_model_parse(optarg, &o->model) != 0)
                return -1;
            o->model_given = 1;
            break;
        case 's':
            if (gpm_arg_ll("--seed", optarg, 0, 0x7fffffffffffffffll, &x) != 0)
                return -1;
            o->seed = (unsigned long long)x;
            break;
        case 'j':
            if (gpm_arg_ll("--jobs", optarg, 1, 1024, &x) != 0)
                return -1;
            o->jobs = (int)x;
            break;
        case 'd': o->dir = optarg; break;
        case 'k': o->keep = 1; break;
        case 'l': o->sites = 1; break;
        case 'I': o->isolate = 1; break;
        case 'N':
            if (gpm_arg_ll("--nested", optarg, 0, 100, &x) != 0)
                return -1;
            o->nested = (int)x;
            break;
        case 'F': o->from = optarg; break;
        case 'H': o->honour = optarg; break;
        case 'R': o->rerun = 1; break;
        case 'o': o->out = optarg; break;
        case 'h': fputs(usage_text, stdout); return 1;
        default: return gpm_args_bad_flag(PROG, c, argv);
        }
    }
    if (optind >= argc)
        return gpm_set_error("no PROGRAM: pass the program to check and its flags (see "
                             "gpm-check --help)");
    o->argv = argv + optind;
    o->argc = argc - optind;
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
    if (!o->model_given)
        o->model = strstr(mode_of(o), "eadr")       ? GPM_MODEL_EADR
                   : !strcmp(mode_of(o), "gpm-ndp") ? GPM_MODEL_NDP
                                                    : GPM_MODEL_STRICT;
    if (o->rerun && o->from)
        return gpm_set_error("--rerun with --from: a recovery runs over its crash image "
                             "already: leave one out");
    if (o->honour && (o->model != GPM_MODEL_NONE || !*o->honour))
        return gpm_set_error("--honour %s: only with --model none, and with the end of the "
                             "files' names whose persists count (e.g. --honour .id)", o->honour);
    return 0;
}

static const char *site_kind(uint64_t kinds)
{
    static const char *sbrp[] = {"ofence", "dfence", "prel", "pacq"};
    for (int k = GPM_TR_OFENCE; k <= GPM_TR_PACQ; k++)
        if (kinds >> k & 1)
            return sbrp[k - GPM_TR_OFENCE];
    if (kinds >> GPM_TR_FENCE & 1)
        return "fence";
    if (kinds >> GPM_TR_FSYNC & 1)
        return "fsync";
    if (kinds >> GPM_TR_PERSIST & 1)
        return "persist";
    if (kinds >> GPM_TR_DRAIN & 1)
        return kinds >> GPM_TR_FLUSH & 1 ? "flush+drain" : "drain";
    return "flush";
}

/* How many persist points (flushes included) the trace has at site S, and
 * of which kinds: not those GPM_MUTATE removed or narrowed. */
static uint64_t site_points(const gpm_ptrace *t, uint32_t s, uint64_t *kinds)
{
    uint64_t n = 0;
    *kinds = 0;
    for (uint64_t k = 0; k < t->nev; k++)
        /* Not the END record either: it names no site (0, the first one's). */
        if (t->ev[k].kind != GPM_TR_STORE && t->ev[k].kind != GPM_TR_END &&
            t->ev[k].kind != GPM_TR_REMOVED && t->ev[k].site == s &&
            !((t->ev[k].kind == GPM_TR_PREL || t->ev[k].kind == GPM_TR_PACQ) &&
              (t->ev[k].aux & GPM_SCOPE_NARROWED))) {
            n++;
            *kinds |= 1ull << t->ev[k].kind;
        }
    return n;
}

static void list_sites(const gpm_ptrace *t)
{
    uint64_t n, kinds;
    for (uint32_t s = 0; s < t->nsites; s++)
        if ((n = site_points(t, s, &kinds)) != 0)
            printf("%s\t%s\t%llu\n", t->site[s] ? t->site[s] : "?", site_kind(kinds),
                   (unsigned long long)n);
}

/* The persist points left at the site GPM_MUTATE removes: 0 where the
 * mutant took. Counted at the site, not against the original's total, which
 * a racing kernel (BFS's frontier) changes from run to run. */
static unsigned long long mutant_left(const gpm_ptrace *t)
{
    unsigned long long n = 0;
    uint64_t kinds;
    for (uint32_t s = 0; s < t->nsites; s++)
        if (t->site[s] && gpm_mutated(t->site[s]))
            n += site_points(t, s, &kinds);
    return n;
}

/* What a failing image dropped: the objects and offsets of its pending
 * stores, and the last persist point before its crash. */
static void describe(const gpm_ptrace *t, const uint64_t *dur, const struct image *im)
{
    uint64_t shown = 0, last = GPM_NEVER;
    for (uint64_t k = 0; k < im->crash && k < t->nev; k++)
        if (gpm_ptrace_is_persist(t, k))
            last = k;
    printf("  crash point: event %llu of %llu (%s), after %s%s; %llu words pending\n",
           (unsigned long long)im->crash, (unsigned long long)t->nev, im->strategy,
           last == GPM_NEVER ? "no persist point" : "the persist point at ",
           last == GPM_NEVER ? "" : gpm_ptrace_site(t, last), (unsigned long long)im->pending);
    for (uint64_t k = 0; k < im->crash && k < t->nev && shown < 4; k++)
        if (t->ev[k].kind == GPM_TR_STORE && dur[k] >= im->crash) {
            printf("  pending: %s bytes %llu..%llu (%s store%s%s)\n",
                   base_name(t->obj[t->ev[k].obj].path), (unsigned long long)t->ev[k].off,
                   (unsigned long long)(t->ev[k].off + t->ev[k].len - 1),
                   t->ev[k].aux == GPM_TR_GPU ? "GPU" : t->ev[k].aux == GPM_TR_WRITE ? "write()"
                   : t->ev[k].aux == GPM_TR_DMA                                      ? "DMA"
                                                                                     : "CPU",
                   t->ev[k].aux ? " at " : "", t->ev[k].aux ? gpm_ptrace_site(t, k) : "");
            shown++;
        }
    printf("  recovery: %s%s%s\n", verdicts[im->verdict], im->why[0] ? ": " : "", im->why);
}

static void row(const struct opts *o, const char *params, int ok, double wall_s)
{
    gpm_platform plat;
    gpm_result res;
    memset(&res, 0, sizeof res);
    res.workload = base_name(o->argv[0]);
    res.op = "check";
    res.mode = mode_of(o);
    res.scale = arg_of(o, "--scale", "small"); /* the workloads' default */
    res.reps = 1;
    res.median_s = res.min_s = res.max_s = wall_s;
    res.rsd_pct = NAN;
    res.verified = ok ? "ok" : "fail";
    res.params = params;
    gpm_platform_collect(&plat);
    if (gpm_result_append(o->out, &plat, &res) != 0)
        fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
}

int main(int argc, char **argv)
{
    struct opts o;
    char work[4096], rundir[4200], tracedir[4200], log[4300], report[4400], params[2048];
    char *traced[] = {"--reps", "1", "--keep", "--pm-dir", rundir, "--trace", tracedir,
                      "--out", log, "--recover"};
    gpm_ptrace t;
    uint64_t *dur = NULL;
    uint8_t **img;
    struct image *im;
    int rc = parse(argc, argv, &o), n = -1, counts[5] = {0}, fails = 0, complete, per_round;
    gpm_held held = {0, 0, 0, NULL, 0, 0};
    int alone = 0; /* images recovered again in a process of their own */
    long long nested[NESTED_COUNTS] = {0}; /* --nested: check_recovery's counts */
    int nchecked = 0;          /* --nested: the recoveries checked */
    int by[4] = {0}; /* recovered, wrong output, recovery crashed, refused */
    double t0 = now_s(), t_run, run_s, wall_s, t_plan, t_write = 0, t_recover = 0;
    const char *op, *mutant;
    char left[256] = "", more[512] = "";
    double found;
    if (rc == 1)
        return 0;
    if (rc != 0)
        return gpm_args_fail(PROG);
    if (o.dir) {
        snprintf(work, sizeof work, "%s", o.dir);
        if (mkdir(work, 0700) != 0 && errno != EEXIST) {
            fprintf(stderr, "%s: --dir %s: cannot create it (%s)\n", PROG, work, strerror(errno));
            return 2;
        }
    } else {
        const char *pm = getenv("GPM_PM_DIR");
        snprintf(work, sizeof work, "%s/gpm-check.XXXXXX", pm && *pm ? pm : "/dev/shm");
        if (!mkdtemp(work)) {
            fprintf(stderr, "%s: cannot make a folder in %s (%s): set GPM_PM_DIR or --dir\n",
                    PROG, pm && *pm ? pm : "/dev/shm", strerror(errno));
            return 1;
        }
    }
    snprintf(rundir, sizeof rundir, "%s/run", work);
    snprintf(tracedir, sizeof tracedir, "%s/trace", work);
    mkdir(rundir, 0700);
    mkdir(tracedir, 0700);

    /* 1. The traced run: of the work, or (--from) of a crash image's
     * recovery. */
    snprintf(log, sizeof log, "%s/rows.tsv", rundir);
    snprintf(report, sizeof report, "%s/run.log", work);
    traced[8] = log;
    if (o.from && copy_files(o.from, rundir) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
        return 2;
    }
    if (o.rerun) {
        /* The same command first, untraced: its files are the start. (Not
         * another seed's: a workload's files may be sized by its data, and
         * a run refuses files of other sizes.) */
        char first[4400], *plain[] = {"--reps", "1", "--keep", "--pm-dir", rundir, "--out", first};
        snprintf(first, sizeof first, "%s/first-rows.tsv", work);
        rc = run(&o, plain, 7, report, 1);
        if (rc != 0) {
            char why[1024];
            last_line(report, why, sizeof why);
            fprintf(stderr, "%s: --rerun: the first, untraced run of %s exited %d: %s\n", PROG,
                    o.argv[0], rc, why);
            return rc == 2 ? 2 : 1;
        }
    }
    t_run = now_s();
    rc = run(&o, traced, o.from ? 10 : 9, report, 1);
    run_s = now_s() - t_run;
    if (rc != 0) {
        char why[1024];
        last_line(report, why, sizeof why);
        if (rc == 2) { /* PROGRAM refused its flags: nothing ran worth keeping */
            fprintf(stderr, "%s: %s\n", PROG, why);
            if (!o.keep && !o.dir)
                remove_tree(work);
            return 2;
        }
        fprintf(stderr, "%s: the traced run of %s exited %d: %s (its log and files stay in %s)\n",
                PROG, o.argv[0], rc, why, work);
        return 1;
    }
    if (gpm_ptrace_load(&t, tracedir) != 0) {
        fprintf(stderr, "%s: %s (the run stays in %s)\n", PROG, gpm_last_error(), work);
        return 1;
    }
    if (o.sites) {
        list_sites(&t);
        gpm_ptrace_free(&t);
        if (!o.keep)
            remove_tree(work);
        return 0;
    }

    /* 2. Completeness, 3. durability. */
    for (uint32_t k = 0; o.honour && k < t.nobj; k++) {
        size_t n = strlen(t.obj[k].path), m = strlen(o.honour);
        t.obj[k].honoured = n >= m && strcmp(t.obj[k].path + n - m, o.honour) == 0;
        if (t.obj[k].honoured)
            printf("gpm-check: model none honours the persists of %s (--honour)\n",
                   base_name(t.obj[k].path));
    }
    complete = gpm_replay_check(&t, report, sizeof report);
    if (complete < 0 || gpm_durability(&t, o.model, &dur) != 0 ||
        (o.model == GPM_MODEL_SBRP && gpm_sbrp_order(&t, &sbrp_order) != 0)) {
        fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
        return 1;
    }
    /* A mutant: the original's durability beside it, and what differs. */
    if (o.model != GPM_MODEL_SBRP && gpm_ptrace_has_removed(&t)) {
        if (gpm_durability_unmutated(&t, o.model, &unmutated) != 0 ||
            gpm_held_back(&t, dur, unmutated, &held) != 0) {
            fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
            return 1;
        }
    }
    {
        uint64_t stores = 0, points = 0;
        for (uint64_t k = 0; k < t.nev; k++) {
            stores += t.ev[k].kind == GPM_TR_STORE;
            points += (uint64_t)gpm_ptrace_is_persist(&t, k);
        }
        printf("gpm-check: %s, model %s: a trace of %llu events, %llu stores, %llu persist "
               "points\n", mode_of(&o), gpm_model_name(o.model), (unsigned long long)t.nev,
               (unsigned long long)stores, (unsigned long long)points);
    }
    if (unmutated && held.stores == 0)
        printf("gpm-check: the mutant's %llu removed persist points hold no store back "
               "(a later persist makes each durable at the same point, or the trace saw none: "
               "a CPU store of the bytes already there is not seen), so every crash image of "
               "the mutant is one of the original's\n", (unsigned long long)held.removed);
    else if (unmutated)
        printf("gpm-check: the mutant's %llu removed persist points hold %llu stores back, "
               "over %llu crash points the original has not\n",
               (unsigned long long)held.removed, (unsigned long long)held.stores,
               (unsigned long long)held.points);
    if (complete) {
        printf("gpm-check: INCOMPLETE: %s\n", report);
        fails++;
    } else {
        printf("gpm-check: complete: the trace replayed onto the start images gives every file "
               "the run left, byte for byte\n");
    }

    /* 4. Images, 5. recoveries. */
    img = calloc(t.nobj ? t.nobj : 1, sizeof *img);
    im = calloc((size_t)o.images, sizeof *im);
    for (uint32_t k = 0; img && k < t.nobj; k++)
        img[k] = malloc(t.obj[k].size ? t.obj[k].size : 1);
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
    t_plan = now_s();
    if (!img || !im || (n = plan(&t, dur, &o, unmutated ? &held : NULL, im, img, counts)) < 0) {
        fprintf(stderr, "%s: %s\n", PROG, n < 0 ? gpm_last_error() : "out of memory");
        return 1;
    }
    {
        char by_mutant[64] = "";
        if (unmutated)
            snprintf(by_mutant, sizeof by_mutant, "held back by the mutant %d, ", counts[4]);
        printf("gpm-check: %d images (end %d, %spersist points %d, exhaustive %d, random %d), "
               "distinct by hash\n", n, counts[0], by_mutant, counts[1], counts[2], counts[3]);
    }
    t_plan = now_s() - t_plan;
    per_round = round_size(&o, &t);
    for (int i = 0, round; i < n; i += round) {
        double t1 = now_s(), t2;
        round = n - i < per_round ? n - i : per_round;
        for (int k = i; k < i + round; k++) {
            char dir[4300];
            image_dir(work, k, dir, sizeof dir);
            if (put_image(dir, &t, dur, &im[k], img) != 0) {
                fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
                return 1;
            }
        }
        t2 = now_s();
        t_write += t2 - t1;
        if (recover_round(&o, work, &t, dur, img, i, round, im, &alone) != 0) {
            fprintf(stderr, "%s: %s\n", PROG, gpm_last_error());
            return 1;
        }
        t_recover += now_s() - t2;
        for (int k = i; k < i + round; k++) {
            char dir[4300], out[4400];
            image_dir(work, k, dir, sizeof dir);
            by[im[k].verdict]++;
            recovery_found(dir, &im[k]); /* before its folder may go */
            if (im[k].verdict != RECOVERED) {
                snprintf(out, sizeof out, "%s/recover.log", dir);
                last_line(out, im[k].why, sizeof im[k].why);
                if (fails++ < 10) {
                    printf("gpm-check: FAILED image %d:\n", k);
                    describe(&t, dur, &im[k]);
                } else if (!o.keep) {
                    remove_tree(dir); /* the ten described are kept: enough to look at */
                }
            } else if (!o.keep) {
                remove_tree(dir);
            }
        }
    }
    printf("gpm-check: %d images tested: %d recovered, %d wrong output, %d recovery crashed, "
           "%d refused%s\n", n, by[0], by[1], by[2], by[3], complete ? "; trace incomplete" : "");
    if ((found = median_durable(im, n)) >= 0) {
        printf("gpm-check: the recoveries that passed found a median %.1f%% of the work durable\n",
               100 * found);
        snprintf(more, sizeof more, ",durable_median=%.4g", found);
    }
    if (by[WRONG_OUTPUT]) {
        struct wrong_measure wm = wrong_measure(im, n);
        char err[96] = "";
        if (wm.err >= 0)
            snprintf(err, sizeof err, ", the largest error %.3g (%s)", wm.err, wm.err_kind);
        if (wm.measured)
            printf("gpm-check: the wrong outputs: %d of %d measured, a median %.1f%% of their "
                   "%s wrong, at most %.1f%%%s; %d with a wrong marker\n", wm.measured,
                   by[WRONG_OUTPUT], 100 * wm.median, wm.units, 100 * wm.max, err, wm.marked);
        else
            printf("gpm-check: the wrong outputs: none measured (their rows say no wrong_units); "
                   "%d with a wrong marker\n", wm.marked);
        snprintf(more + strlen(more), sizeof more - strlen(more),
                 ",wrong_measured=%d,wrong_marks_images=%d", wm.measured, wm.marked);
        if (wm.measured)
            snprintf(more + strlen(more), sizeof more - strlen(more),
                     ",wrong_share_median=%.4g,wrong_share_max=%.4g,units=%s", wm.median, wm.max,
                     wm.units[0] ? wm.units : "?");
        if (wm.err >= 0)
            snprintf(more + strlen(more), sizeof more - strlen(more),
                     ",wrong_max_err=%.3g,wrong_err=%s", wm.err, wm.err_kind[0] ? wm.err_kind : "?");
    }
    if (o.honour)
        snprintf(more + strlen(more), sizeof more - strlen(more), ",honour=%s", o.honour);
    if (o.rerun)
        snprintf(more + strlen(more), sizeof more - strlen(more), ",start=old");
    /* --nested: crashes during the recoveries that had most to do. */
    if (o.nested) {
        int *pick = malloc((size_t)o.nested * sizeof *pick);
        nchecked = pick ? pick_nested(im, n, o.nested, pick) : 0;
        for (int j = 0; j < nchecked; j++)
            if (check_recovery(&o, work, &t, dur, im, pick[j], img, nested) != 0)
                fails++;
        free(pick);
        printf("gpm-check: %d recoveries checked for crashes: %lld images, %lld recovered, %lld "
               "wrong output, %lld recovery crashed, %lld refused\n", nchecked, nested[0],
               nested[1], nested[2], nested[3], nested[4]);
    }
    if (o.isolate)
        printf("gpm-check: each image was recovered in a process of its own (--isolate)\n");
    else
        printf("gpm-check: %d images were recovered again, each in a process of its own: not "
               "recovered, or not reached, in a process that recovered several\n", alone);
    wall_s = now_s() - t0;
    printf("gpm-check: %.2f s in all (%.1f images/s): the traced run %.2f s, choosing the "
           "images %.2f s, writing them %.2f s, recovering them %.2f s\n", wall_s, n / wall_s,
           run_s, t_plan, t_write, t_recover);
    /* A workload of several operations: which one (op=, as a crash campaign's row). */
    op = arg_of(&o, "--op", NULL);
    mutant = getenv("GPM_MUTATE");
    if (mutant && *mutant)
        snprintf(left, sizeof left, ",mutant_left=%llu,removed=%llu,held_stores=%llu,"
                 "held_points=%llu,held_images=%d,nested_removed=%lld,nested_held_stores=%lld,"
                 "nested_held_images=%lld", mutant_left(&t), (unsigned long long)held.removed,
                 (unsigned long long)held.stores, (unsigned long long)held.points, counts[4],
                 nested[5], nested[6], nested[7]);
    snprintf(params, sizeof params, "%s%s%s"
             "model=%s,images=%d,end=%d,persist_points=%d,exhaustive=%d,random=%d,recovered=%d,"
             "wrong=%d,crashed=%d,refused=%d,complete=%s,seed=%llu,alone=%d,choose_s=%.3g,"
             "write_s=%.3g,recover_s=%.3g,run_s=%.4g,run_work_s=%.4g,nested=%d,"
             "nested_images=%lld,nested_recovered=%lld%s%s%s%s%s",
             op ? "op=" : "", op ? op : "", op ? "," : "", gpm_model_name(o.model), n, counts[0],
             counts[1], counts[2], counts[3], by[0], by[1], by[2], by[3], complete ? "no" : "yes",
             o.seed, o.isolate ? n : alone, t_plan, t_write, t_recover, run_s, median_s(log),
             nchecked, nested[0], nested[1], more, o.from ? ",from=image" : "",
             mutant ? ",mutant=" : "", mutant ? mutant : "", left);
    if (o.out)
        row(&o, params, fails == 0, wall_s);
    if (fails == 0 && !o.keep) {
        remove_tree(work);
    } else {
        printf("gpm-check: the run, its trace and the %s stay in %s\n",
               o.keep ? "images" : "first ten failing images", work);
    }
    for (uint32_t k = 0; k < t.nobj; k++)
        free(img[k]);
    free(img);
    free(im);
    free(dur);
    free(unmutated);
    free(held.at);
    gpm_sbrp_free(sbrp_order);
    gpm_ptrace_free(&t);
    return fails ? 1 : 0;
}
