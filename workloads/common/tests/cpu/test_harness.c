/* The harness, through a small fake workload that runs on the CPU: the
 * command line and its errors, the mode table, checks made before any work
 * (--out, the PM directory, the GPU), the PM objects' lifecycle (identity,
 * reset of checkpoints and logs, refusals that leave files untouched,
 * locks), and crash trials that are real SIGKILLs classified by what
 * recovery found. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/log.h"
#include "harness.h"
#include "gpm/run_id.h"
#include "tests/wl_test.h"

/* ---- the fake workload ----
 * CHUNKS chunks of 512 words in a region, each written, persisted, then
 * marked with the run's epoch (PS's pattern); after them a checkpoint of a
 * small host buffer and one log entry. --bug breaks it on purpose. */
#define WORDS 512
enum { FAKE_DATA, FAKE_STATE, FAKE_LOG };

static const struct wl_param fake_params[] = {
    {.flag = "chunks", .help = "chunks of 512 words", .sizes = 1, .scale = {64, 256, 1024},
     .min = 1, .max = 1 << 20},
    {.flag = "slow-us", .help = "sleep before each chunk", .scale = {0, 0, 0}, .min = 0,
     .max = 1000000},
    {.flag = "rate", .help = "a float", .type = WL_FLOAT, .fscale = {0.5, 0.25, 0.125},
     .fmin = 0, .fmax = 1},
    {.flag = "bug", .help = "none|redo-all|wrong|fail", .type = WL_STR,
     .sscale = {"none", "none", "none"}},
    {0},
};

static const struct wl_obj_decl fake_objects[] = {
    [FAKE_DATA] = {"data", WL_OBJ_REGION},
    [FAKE_STATE] = {"state", WL_OBJ_CHECKPOINT},
    [FAKE_LOG] = {"log", WL_OBJ_LOG},
    {NULL, WL_OBJ_REGION},
};

struct fake {
    uint64_t chunks, state[8];
    const char *bug;
};

static uint64_t word(uint64_t seed, uint64_t i) { return gpm_mix64(seed * 1000003u + i); }
static uint64_t *words(struct wl_ctx *c) { return wl_region(c, FAKE_DATA)->host; }
static uint32_t *marks(struct wl_ctx *c)
{
    struct fake *f = c->priv;
    return (uint32_t *)(words(c) + f->chunks * WORDS);
}

static int fake_layout(struct wl_ctx *c)
{
    uint64_t chunks = (uint64_t)wl_int(c, "chunks");
    if (strcmp(wl_str(c, "bug"), "none") && strcmp(wl_str(c, "bug"), "redo-all") &&
        strcmp(wl_str(c, "bug"), "wrong") && strcmp(wl_str(c, "bug"), "fail"))
        return gpm_set_error("--bug: unknown '%s'", wl_str(c, "bug"));
    wl_obj_region(c, FAKE_DATA, chunks * WORDS * 8 + chunks * 4);
    wl_obj_checkpoint(c, FAKE_STATE, sizeof(((struct fake *)0)->state), 1);
    wl_obj_log_conv(c, FAKE_LOG, 4 * 4096, 4);
    c->data_bytes = chunks * WORDS * 8;
    c->expected_s = 0.01;
    return 0;
}

static int fake_setup(struct wl_ctx *c)
{
    struct fake *f = c->priv;
    f->chunks = (uint64_t)wl_int(c, "chunks");
    f->bug = wl_str(c, "bug");
    /* The state is the checkpoint's record: saved and restored with it. */
    if (wl_cp_register_record(c, FAKE_STATE, f->state, sizeof f->state) != 0)
        return -1;
    if (wl_cp_register_record(c, FAKE_STATE, f->state, sizeof f->state) == 0)
        return gpm_set_error("fake: a second record was accepted");
    return 0;
}

static int compute(struct wl_ctx *c, int resume, uint64_t *done)
{
    struct fake *f = c->priv;
    uint64_t *w = words(c);
    uint32_t *m = marks(c);
    *done = 0;
    if (strcmp(f->bug, "fail") == 0)
        return gpm_set_error("fake: failing on purpose");
    for (uint64_t k = 0; k < f->chunks; k++) {
        /* Two ranges, one commit: the vectored path. */
        gpm_range v[2] = {{k * WORDS * 8, WORDS * 4, NULL},
                          {k * WORDS * 8 + WORDS * 4, WORDS * 4, NULL}};
        if (resume && m[k] == c->epoch)
            continue;
        if (wl_int(c, "slow-us"))
            usleep((useconds_t)wl_int(c, "slow-us"));
        for (uint64_t i = 0; i < WORDS; i++)
            w[k * WORDS + i] = word(wl_seed(c), k * WORDS + i);
        if (wl_commit(c, FAKE_DATA, v, 2) != 0 ||
            wl_pm_write(c, FAKE_DATA, f->chunks * WORDS * 8 + k * 4, &c->epoch, 4) != 0)
            return -1;
        (*done)++;
        wl_progress_add(c, 1); /* a chunk and its mark are durable: --kill progress:K */
    }
    f->state[0] = c->epoch;
    return wl_cp_checkpoint(c, FAKE_STATE) ||
                   gpmlog_host_insert(wl_log(c, FAKE_LOG), 0, &f->state[0], 8)
               ? -1
               : 0;
}

static int fake_run(struct wl_ctx *c)
{
    uint64_t done;
    return compute(c, 0, &done);
}

static int fake_recover(struct wl_ctx *c)
{
    struct fake *f = c->priv;
    uint64_t durable = 0, done;
    for (uint64_t k = 0; k < f->chunks; k++)
        durable += marks(c)[k] == c->epoch;
    c->progress.total = f->chunks;
    c->progress.durable = durable;
    if (compute(c, strcmp(f->bug, "redo-all") != 0, &done) != 0)
        return -1;
    c->progress.redone = done;
    return 0;
}

/* Every word and chunk mark checked; on a mismatch, the measure noted:
 * words wrong, chunks not marked. --bug wrong: one word taken as wrong. */
static int fake_verify(struct wl_ctx *c)
{
    struct fake *f = c->priv;
    struct wl_wrong w = {.units = "words", .total = f->chunks * WORDS, .marks = f->chunks};
    uint64_t first = UINT64_MAX;
    for (uint64_t k = 0; k < f->chunks; k++) {
        w.marks_bad += marks(c)[k] != c->epoch;
        for (uint64_t i = 0; i < WORDS; i++)
            if (words(c)[k * WORDS + i] != word(wl_seed(c), k * WORDS + i)) {
                w.bad++;
                first = first < k * WORDS + i ? first : k * WORDS + i;
            }
    }
    if (strcmp(f->bug, "wrong") == 0) {
        w.bad = 1;
        gpm_set_error("fake: wrong on purpose");
    } else if (w.marks_bad) {
        gpm_set_error("fake: %llu chunks not done", (unsigned long long)w.marks_bad);
    } else if (w.bad) {
        gpm_set_error("fake: word %llu", (unsigned long long)first);
    } else {
        memset(f->state, 0, sizeof f->state);
        if (wl_cp_restore(c, FAKE_STATE) != 0 || f->state[0] != c->epoch)
            return gpm_set_error("fake: the checkpoint does not hold epoch %u", c->epoch), 1;
        return 0;
    }
    wl_note_wrong(c, &w);
    return 1;
}

const struct wl_workload WORKLOAD = {
    .name = "fake",
    .about = "the harness's test workload",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    .sbrp = 1, /* takes --persistency (its kernels: none) */
    .objects = fake_objects,
    .params = fake_params,
    .state_bytes = sizeof(struct fake),
    .layout = fake_layout,
    .setup = fake_setup,
    .run = fake_run,
    .recover = fake_recover,
    .verify = fake_verify,
};

/* ---- helpers ---- */

static FILE *devnull;
static char dir[4096], rows[4200], errlog[4200];

static int parse(int argc, char **argv, struct wl_opts *o)
{
    return wl_parse_args(&WORKLOAD, argc, argv, o, devnull);
}

/* The error for ARGV mentions NEEDLE. */
#define EXPECT_ERROR(needle, ...)                                                      \
    do {                                                                               \
        char *av[] = {"fake", __VA_ARGS__};                                            \
        struct wl_opts o;                                                              \
        CHECKF(parse(ARGC(av), av, &o) == -1, "accepted: %s", needle);                 \
        CHECK_MSG(gpm_last_error(), needle);                                           \
    } while (0)

static int run_main(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, errlog);
}
#define RUN_ARGS(...)                                                                  \
    ({                                                                                 \
        char *av_[] = {"fake", __VA_ARGS__};                                           \
        run_main(av_, ARGC(av_));                                                      \
    })

static char *read_text(const char *path)
{
    size_t len;
    char *t = (char *)check_read_file(path, &len);
    if (t)
        t[len] = '\0';
    return t;
}

/* The params column of the last row of ROWS, found by the header's name:
 * it is not the last column (rsd_pct and rep_s follow it). */
static void last_params(char *out, size_t len)
{
    char head[8192], line[8192], *h = head, *v = line;
    wl_test_line(rows, 0, head, sizeof head);
    wl_test_line(rows, 1, line, sizeof line);
    out[0] = '\0';
    while (h && v && !(strncmp(h, "params", 6) == 0 && (h[6] == '\t' || h[6] == '\0'))) {
        h = strchr(h, '\t');
        v = strchr(v, '\t');
        h = h ? h + 1 : NULL;
        v = v ? v + 1 : NULL;
    }
    if (h && v)
        snprintf(out, len, "%.*s", (int)strcspn(v, "\t"), v);
}

static int files_in_dir(void)
{
    char cmd[4300];
    FILE *p;
    int n = -1;
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -v rows.tsv | grep -v stderr | wc -l", dir);
    p = popen(cmd, "r");
    if (p && fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

static void clean_dir(void)
{
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/fake-* '%s'/ps-*", dir, dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot clean %s\n", dir);
}

static void path_of(char *out, size_t len, const char *tag, const char *suffix)
{
    snprintf(out, len, "%s/fake-%s.%s", dir, tag, suffix);
}

/* ---- the command line ---- */

static void defaults_and_values(void)
{
    struct wl_opts o;
    char *av[] = {"fake", "--mode", "cap-mm", "--reps", "5", "--cpu-threads", "8", "--seed=42",
                  "--kill", "time:0.5", "--out", "r.tsv", "--keep", "--recover", "--pm-dir",
                  "/dev/shm", "--rate", "0.75", "--bug", "wrong"};
    char *av2[] = {"fake", "--mode", "gpm-eadr", "--kill", "random", "--cpu-threads",
                   "best", "--scale", "paper"};
    char *av3[] = {"fake", "--mode", "cpu", "--kill", "after-progress:0.25@7"};
    struct wl_ctx c;
    struct wl_harness h;
    CHECK_EQ_INT(parse(ARGC(av), av, &o), 0);
    CHECK(o.mode == WL_CAP_MM && o.reps == 5 && o.cpu_threads == 8 && o.seed == 42);
    CHECK(o.kill.kind == WL_KILL_TIME && o.kill.seconds == 0.5 && o.keep && o.recover);
    CHECK(strcmp(o.out, "r.tsv") == 0 && strcmp(o.pm_dir, "/dev/shm") == 0);
    CHECK(o.scale == WL_SMALL && !o.custom); /* --rate and --bug are not sizes */
    wl_test_ctx(&c, &h);
    c.wl = &WORKLOAD;
    wl_resolve_params(&WORKLOAD, &o, c.p);
    CHECK(wl_float(&c, "rate") == 0.75 && strcmp(wl_str(&c, "bug"), "wrong") == 0);
    CHECK_EQ_INT(wl_int(&c, "chunks"), 256);
    CHECK(parse(ARGC(av3), av3, &o) == 0 && o.kill.kind == WL_KILL_AFTER_PROGRESS &&
          o.kill.seconds == 0.25 && o.kill.unit == 7);
    CHECK_EQ_INT(parse(ARGC(av2), av2, &o), 0);
    CHECK(o.mode == WL_GPM_EADR && o.kill.kind == WL_KILL_RANDOM && o.cpu_threads == 0 &&
          o.scale == WL_PAPER);
    CHECK_EQ_INT(o.reps, 3);
    wl_resolve_params(&WORKLOAD, &o, c.p);
    CHECK(wl_float(&c, "rate") == 0.125 && strcmp(wl_str(&c, "bug"), "none") == 0);
    CHECK_EQ_INT(wl_int(&c, "chunks"), 1024);
    {
        char s[256];
        wl_params_string(&c, s, sizeof s);
        CHECK(strcmp(s, "chunks=1024,slow-us=0,rate=0.125,bug=none") == 0);
    }
}

static void every_mode_name(void)
{
    static const char *names[] = {"gpm",      "gpm-ndp",   "gpm-eadr", "cap-mm",
                                  "cap-fs",   "cap-eadr",  "cap-delta", "cpu",
                                  "none",     "cap-gds"};
    for (int m = 0; m < WL_NMODES; m++) {
        struct wl_opts o;
        char *av[] = {"fake", "--mode", (char *)names[m]};
        CHECK(strcmp(wl_mode_name((enum wl_mode)m), names[m]) == 0);
        if (!(WORKLOAD.modes & WL_MODE_BIT(m))) { /* cap-delta: transactional workloads only */
            CHECK(parse(3, av, &o) != 0);
            CHECK_MSG(gpm_last_error(), "fake has no mode");
            continue;
        }
        CHECK_EQ_INT(parse(3, av, &o), 0);
        CHECK_EQ_INT(o.mode, m);
    }
}

static void bad_flags(void)
{
    EXPECT_ERROR("--mode: required", "--scale", "tiny");
    EXPECT_ERROR("--mode: fake has no mode 'fast'", "--mode", "fast");
    EXPECT_ERROR("use gpm|gpm-ndp|gpm-eadr|cap-mm|cap-fs|cap-eadr|cpu", "--mode", "x");
    EXPECT_ERROR("--scale: unknown scale 'huge'", "--mode", "gpm", "--scale", "huge");
    EXPECT_ERROR("--reps: expects an integer", "--mode", "gpm", "--reps", "many");
    EXPECT_ERROR("--reps: 0 is out of range", "--mode", "gpm", "--reps", "0");
    EXPECT_ERROR("--cpu-threads: expects a thread count", "--mode", "cap-mm", "--cpu-threads",
                 "lots");
    EXPECT_ERROR("--cpu-threads: expects a thread count from 1 to 64", "--mode", "cap-mm",
                 "--cpu-threads", "65");
    EXPECT_ERROR("--kill: expects time:S|random|progress:K|after-progress:S[@K] (S seconds, "
                 "K and N counts from 1), got 'time:-1'", "--mode", "gpm", "--kill", "time:-1");
    EXPECT_ERROR("got 'after-progress:1@0'", "--mode", "gpm", "--kill", "after-progress:1@0");
    EXPECT_ERROR("got 'random@2'", "--mode", "gpm", "--kill", "random@2");
    EXPECT_ERROR("--chunks: 0 is out of range", "--mode", "gpm", "--chunks", "0");
    EXPECT_ERROR("--chunks: expects an integer", "--mode", "gpm", "--chunks", "big");
    EXPECT_ERROR("--chunks: 9999999999999999G is out of range", "--mode", "gpm", "--chunks",
                 "9999999999999999G");
    EXPECT_ERROR("--rate: expects a number, got 'fast'", "--mode", "gpm", "--rate", "fast");
    EXPECT_ERROR("--rate: 2 is out of range", "--mode", "gpm", "--rate", "2");
    EXPECT_ERROR("--bug: empty", "--mode", "gpm", "--bug", "");
    EXPECT_ERROR("unknown flag --checkpoint-every", "--mode", "gpm", "--checkpoint-every", "2");
    EXPECT_ERROR("--reps: needs a value", "--mode", "gpm", "--reps");
    EXPECT_ERROR("--recover: takes no value", "--mode", "gpm", "--recover=yes");
    EXPECT_ERROR("unexpected argument 'tiny'", "--mode", "gpm", "tiny");
    EXPECT_ERROR("--out: empty", "--mode", "gpm", "--out", "");
    EXPECT_ERROR("--cp-blocks: 0 is out of range", "--mode", "gpm", "--cp-blocks", "0");
    EXPECT_ERROR("--persistency: unknown value 'release': use epoch|sbrp", "--mode", "gpm",
                 "--persistency", "release");
    EXPECT_ERROR("--seed: 9000000000G is out of range", "--mode", "gpm", "--seed", "9000000000G");
}

/* What `fake FLAG` prints where its usage goes, malloc'd; NULL unless
 * wl_parse_args returned 1 (printed, nothing to run). */
static char *printed_by(const char *flag)
{
    char *av[] = {"fake", (char *)flag};
    char path[4300], *text;
    FILE *f;
    struct wl_opts o;
    int rc;
    snprintf(path, sizeof path, "%s/printed.txt", dir);
    if (!(f = fopen(path, "w")))
        return NULL;
    rc = wl_parse_args(&WORKLOAD, 2, av, &o, f);
    fclose(f);
    text = rc == 1 ? read_text(path) : NULL;
    unlink(path);
    return text;
}

static void help_goes_to_stdout_and_exits_zero(void)
{
    char *text = printed_by("--help");
    CHECK(text && strstr(text, "usage: fake --mode gpm|gpm-ndp|gpm-eadr|cap-mm|cap-fs|"
                               "cap-eadr|cpu") && strstr(text, "--rate X") &&
          strstr(text, "--bug S") && strstr(text, "(tiny 0.5, small 0.25, paper 0.125)"));
    free(text);
    CHECK_EQ_INT(RUN_ARGS("--help"), 0);
}

/* --modes lists each mode with the columns that scripts choose modes by:
 * the fake marks its progress, so it resumes where the mode table says the
 * marks are durable. */
static void modes_flag_lists_the_mode_table(void)
{
    char *text = printed_by("--modes");
    char gds[128];
    snprintf(gds, sizeof gds, "cap-gds\tneeds_gpu=1\tkernels_write_pm=0\tresumes=%d\tavailable=%d\n",
             wl_resumable(&WORKLOAD, WL_CAP_FS), gpm_gds_usable(gpm_pm_dir(), NULL, 0));
    CHECK(text && strstr(text, "gpm\tneeds_gpu=1\tkernels_write_pm=1\tresumes=1\tavailable=1\n") &&
          strstr(text, "gpm-ndp\tneeds_gpu=1\tkernels_write_pm=1\tresumes=0\tavailable=1\n") &&
          strstr(text, "cap-mm\tneeds_gpu=1\tkernels_write_pm=0\tresumes=0\tavailable=1\n") &&
          strstr(text, "cpu\tneeds_gpu=0\tkernels_write_pm=0\tresumes=1\tavailable=1\n") &&
          strstr(text, "none\tneeds_gpu=1\tkernels_write_pm=0\tresumes=0\tavailable=1\n") &&
          strstr(text, gds));
    free(text);
}

/* cap-gds where libcufile does not load: one line that names it and the
 * fix, before any file is made. */
static void cap_gds_without_libcufile_says_how_to_get_it(void)
{
    if (gpm_gds_available(NULL, 0))
        SKIP("libcufile loads here");
    char *msg;
    clean_dir();
    CHECK_EQ_INT(RUN_ARGS("--mode", "cap-gds", "--scale", "tiny"), 1);
    msg = read_text(errlog);
    CHECK(msg && strstr(msg, "--mode cap-gds: libcufile.so.0 (GPUDirect Storage) was not found") &&
          strstr(msg, "LD_LIBRARY_PATH") && !strchr(strchr(msg, '\n') + 1, '\n'));
    free(msg);
}

/* ---- the mode table ---- */

static void mode_table_says_what_each_mode_does(void)
{
    const struct wl_mode_info *g = wl_mode(WL_GPM), *n = wl_mode(WL_GPM_NDP),
                              *e = wl_mode(WL_GPM_EADR), *mm = wl_mode(WL_CAP_MM),
                              *fs = wl_mode(WL_CAP_FS), *ce = wl_mode(WL_CAP_EADR),
                              *cpu = wl_mode(WL_CPU);
    /* GPM: kernels write PM, fence, DDIO bracketed, durable as they go. */
    CHECK(g->kernels_write_pm && g->fences && g->ddio_bracket && !g->flusher &&
          g->commit == &wl_commit_kernels && g->durable_progress && g->cp_how == GPMCP_GPM);
    /* GPM-NDP: the same stores, no fences; the CPU flushes afterwards. */
    CHECK(n->kernels_write_pm && !n->fences && !n->ddio_bracket && n->flusher &&
          n->commit == &wl_commit_flush && !n->durable_progress && n->cp_how == GPMCP_GPM_NDP);
    /* GPM-eADR: fences kept, DDIO left alone. */
    CHECK(e->kernels_write_pm && e->fences && !e->ddio_bracket && e->durable_progress &&
          e->cp_how == GPMCP_GPM_EADR);
    /* CAP: kernels write device memory; an engine moves it to PM. */
    CHECK(!mm->kernels_write_pm && !mm->fences && mm->flusher && mm->commit == &wl_commit_cap_mm &&
          !mm->durable_progress && !mm->map_host_only);
    CHECK(!fs->kernels_write_pm && !fs->flusher && fs->commit == &wl_commit_cap_fs &&
          fs->map_host_only && fs->cp_how == GPMCP_CAP_FS);
    CHECK(!ce->kernels_write_pm && ce->flusher && ce->commit == &wl_commit_cap_eadr &&
          ce->cp_how == GPMCP_CAP_EADR);
    /* The CPU counterpart needs no GPU and its progress is durable; it
     * flushes what it wrote, as gpm-ndp's CPU does. */
    CHECK(!cpu->needs_gpu && cpu->durable_progress && cpu->map_host_only &&
          cpu->commit == n->commit);
    /* None: device memory only, nothing durable, nothing resumes. */
    {
        const struct wl_mode_info *v = wl_mode(WL_NONE);
        CHECK(!v->kernels_write_pm && !v->fences && !v->ddio_bracket && !v->flusher &&
              v->commit == &wl_commit_volatile && v->commit->nothing_durable &&
              !v->durable_progress && v->needs_gpu &&
              v->tx == &wl_tx_volatile && !v->tx->atomic && v->tx->log == WL_OBJ_NONE &&
              v->tx->end);
        CHECK(!wl_resumable(&WORKLOAD, WL_NONE) && wl_resumable(&WORKLOAD, WL_CPU));
    }
    /* CAP-gds: CAP-fs with cuFile moving the device's bytes. */
    {
        const struct wl_mode_info *gds = wl_mode(WL_CAP_GDS);
        CHECK(!gds->kernels_write_pm && !gds->flusher && gds->commit == &wl_commit_cap_gds &&
              gds->commit->files && gds->commit->file_flags == GPM_CAP_GDS &&
              gds->commit->usable && fs->commit->files && !fs->commit->file_flags &&
              gds->map_host_only && gds->cp_how == GPMCP_CAP_FS && gds->tx == fs->tx &&
              wl_resumable(&WORKLOAD, WL_CAP_GDS) == wl_resumable(&WORKLOAD, WL_CAP_FS));
    }
    /* How each makes a transaction's batch failure-atomic, and what log that
     * takes: undo records fenced in-kernel, flushed by the CPU, none (the
     * paper's CAP: not atomic), redo records through the CPU (cap-delta). */
    CHECK(g->tx == &wl_tx_undo_fenced && e->tx == &wl_tx_undo_fenced &&
          n->tx == &wl_tx_undo_flushed && mm->tx == &wl_tx_cap_chunks &&
          fs->tx == &wl_tx_cap_chunks && ce->tx == &wl_tx_cap_chunks &&
          wl_mode(WL_CAP_DELTA)->tx == &wl_tx_redo_cpu && cpu->tx == &wl_tx_undo_cpu);
    CHECK(g->tx->atomic && n->tx->atomic && !mm->tx->atomic && wl_tx_redo_cpu.atomic &&
          cpu->tx->atomic);
    /* What each commit engine does: CAP copies from device memory (the CPU
     * fences instead of flushing in cap-eadr); the others persist what was
     * stored in the mapping. */
    CHECK(mm->commit->copies && ce->commit->copies && ce->commit->fence_only &&
          fs->commit->copies && !mm->commit->fence_only && !n->commit->copies &&
          !g->commit->copies && !cpu->commit->copies && !g->commit->commit &&
          !g->commit->nothing_durable && !n->commit->nothing_durable);
    /* A batch is a transaction in the GPU modes whose kernels do not
     * persist, but none. */
    for (int m = 0; m < WL_NMODES; m++) {
        const struct wl_mode_info *i = wl_mode((enum wl_mode)m);
        CHECK(wl_batches_in_tx(i) == (i->needs_gpu && !i->fences && m != WL_NONE));
    }
    CHECK(g->tx->log == WL_OBJ_LOG && mm->tx->log == WL_OBJ_NONE &&
          wl_tx_redo_cpu.log == WL_OBJ_REDO && cpu->tx->log == WL_OBJ_LOG);
    /* Each built-in mode is like itself: registered ones name one. */
    for (int m = 0; m < WL_NMODES; m++)
        CHECK_EQ_INT(wl_mode((enum wl_mode)m)->like, m);
    for (int m = 0; m < WL_NMODES; m++)
        CHECK(m == WL_CPU || wl_mode((enum wl_mode)m)->needs_gpu);
}

/* A workload whose marker modes and transaction modes keep their progress
 * in different places (GPHash) resumes each only in its own kind: a
 * cap-delta run is not recovered by gpm, which would find no progress in
 * the header, and is told to recover with cap-delta. */
static void markers_and_transactions_resume_only_their_own(void)
{
    struct wl_workload w = WORKLOAD;
    w.progress_by = WL_BY_MARKERS_OR_TX;
    CHECK(wl_resumes(&w, WL_GPM, WL_GPM_EADR) && wl_resumes(&w, WL_CPU, WL_GPM));
    CHECK(wl_resumes(&w, WL_CAP_DELTA, WL_GPM_NDP) && wl_resumes(&w, WL_CAP_DELTA, WL_CAP_DELTA));
    CHECK(!wl_resumes(&w, WL_CAP_DELTA, WL_GPM) && !wl_resumes(&w, WL_GPM, WL_CAP_DELTA));
    CHECK(!wl_resumes(&w, WL_GPM_NDP, WL_CPU) && !wl_resumes(&w, WL_NONE, WL_GPM));
    w.progress_by = WL_BY_TRANSACTIONS;
    CHECK(wl_resumes(&w, WL_CAP_DELTA, WL_GPM) && !wl_resumes(&w, WL_CAP_MM, WL_GPM));
}

/* ---- checks before any work ---- */

static void bad_out_is_found_before_any_work(void)
{
    char foreign[4300], *before, *after;
    clean_dir();
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--out",
                          "/nonexistent/x.tsv"), 2);
    CHECK_EQ_INT(files_in_dir(), 0); /* nothing was created, nothing measured */
    before = read_text(errlog);
    CHECK(before && strstr(before, "fake: --out: /nonexistent/x.tsv: cannot create the results "
                                   "file: directory /nonexistent does not exist"));
    free(before);
    snprintf(foreign, sizeof foreign, "%s/foreign.tsv", dir);
    CHECK(check_write_file(foreign, "a\tb\n1\t2\n") == 0);
    before = read_text(foreign);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--out",
                          foreign), 2);
    after = read_text(foreign);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    unlink(foreign);
    CHECK_EQ_INT(files_in_dir(), 0);
}

static void pm_directory_checked_first(void)
{
    char file[4300], *msg;
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--pm-dir", "/nonexistent/pm"), 2);
    msg = read_text(errlog);
    CHECK(msg && strstr(msg, "--pm-dir: /nonexistent/pm does not exist"));
    free(msg);
    snprintf(file, sizeof file, "%s/a-file", dir);
    CHECK(check_write_file(file, "") == 0);
    setenv("GPM_PM_DIR", file, 1);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny"), 2);
    setenv("GPM_PM_DIR", dir, 1);
    unlink(file);
    msg = read_text(errlog);
    CHECK(msg && strstr(msg, "GPM_PM_DIR: ") && strstr(msg, "is not a directory"));
    free(msg);
}

static void no_gpu_said_once_before_any_file(void)
{
    char *msg;
    int n = 0;
    clean_dir();
    if (system("nvidia-smi -L >/dev/null 2>&1") == 0)
        SKIP("a GPU is visible");
    CHECK_EQ_INT(RUN_ARGS("--mode", "gpm", "--scale", "tiny", "--pm-dir", dir), 1);
    CHECK_EQ_INT(files_in_dir(), 0);
    msg = read_text(errlog);
    CHECK(msg && strstr(msg, "no NVIDIA driver or GPU visible") && strstr(msg, "--mode cpu"));
    for (char *p = msg; *p; p++)
        n += *p == '\n';
    CHECK_EQ_INT(n, 1);
    free(msg);
}

static void cpu_threads_honoured_or_refused(void)
{
    char p[1024], *msg;
    clean_dir();
    unlink(rows);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                          "--cpu-threads", "1", "--out", rows), 0);
    last_params(p, sizeof p);
    CHECK_MSG(p, "cpu_threads=1");
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfake\trun\tcpu\ttiny\t262144\t1\t1\t"), 1);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                          "--out", rows), 0);
    last_params(p, sizeof p);
    CHECK_MSG(p, "cpu_threads=all:");
    CHECK_EQ_INT(RUN_ARGS("--mode", "gpm", "--cpu-threads", "4"), 2);
    msg = read_text(errlog);
    CHECK(msg && strstr(msg, "--cpu-threads: mode gpm uses no CPU threads"));
    free(msg);
    /* The overlapping checkpoint copy's blocks: gpm and gpm-eadr only. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cap-mm", "--cp-blocks", "16"), 2);
    msg = read_text(errlog);
    CHECK(msg && strstr(msg, "--cp-blocks: mode cap-mm does not overlap its checkpoints"));
    free(msg);
    /* SBRP's operations are the kernels' persists: gpm and gpm-eadr only. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cap-mm", "--persistency", "sbrp"), 2);
    msg = read_text(errlog);
    CHECK(msg && strstr(msg, "--persistency sbrp: mode cap-mm does not persist in-kernel"));
    free(msg);
}

/* Mode none keeps nothing durable: a crash, a recovery or a trace of it is
 * refused before any work, naming the flag. */
static void mode_none_refuses_what_needs_durability(void)
{
    static char *flags[][2] = {{"--recover", NULL},
                               {"--kill", "progress:2"},
                               {"--trace", "/tmp"}};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        char want[128], *msg;
        clean_dir();
        if (flags[k][1])
            CHECK_EQ_INT(RUN_ARGS("--mode", "none", flags[k][0], flags[k][1]), 2);
        else
            CHECK_EQ_INT(RUN_ARGS("--mode", "none", flags[k][0]), 2);
        snprintf(want, sizeof want, "%s: mode none makes nothing durable", flags[k][0]);
        msg = read_text(errlog);
        CHECK(msg && strstr(msg, want));
        free(msg);
        CHECK_EQ_INT(files_in_dir(), 0);
    }
}

/* ---- rows, files and their lifecycle ---- */

static void rows_exit_status_and_cleanup(void)
{
    clean_dir();
    unlink(rows);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--reps", "2", "--pm-dir", dir,
                          "--out", rows), 0);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--reps", "2", "--pm-dir", dir,
                          "--out", rows), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "workload\top\tmode"), 1); /* header once */
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfake\trun\tcpu\ttiny\t262144\t"), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tchunks=64,slow-us=0,rate=0.5,bug=none,seed=1,"), 2);
    /* Bytes made durable: both ranges of each chunk (wl_commit), the 4-byte
     * markers (wl_pm_write), the checkpoint and its flip word. */
    CHECK_EQ_INT(wl_test_count_lines(rows, "\t262472\t"), 2);
    /* Where the rest of the process's time went. */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",open_s="), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",calibrate_s="), 2);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",verify_s="), 2);
    CHECK_EQ_INT(files_in_dir(), 0); /* scratch removed after a verified run */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--reps", "zero"), 2);
}

static void files_named_by_scale_or_params(void)
{
    char id[4300], data[4300], cmd[4400];
    clean_dir();
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--keep"), 0);
    path_of(id, sizeof id, "tiny", "id");
    path_of(data, sizeof data, "tiny", "data");
    CHECK(access(id, F_OK) == 0 && access(data, F_OK) == 0);
    clean_dir();
    /* Other size flags, other files: custom runs never share them. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--chunks", "10", "--pm-dir", dir, "--keep"), 0);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--chunks", "11", "--pm-dir", dir, "--keep"), 0);
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | grep -c '^fake-custom-.*\\.data$') = 2", dir);
    CHECK(system(cmd) == 0);
    clean_dir();
}

static const char *const fake_ops[] = {"insert", "update", NULL};

/* A workload with several operations: --op picks one (the first by
 * default), --help lists them, the row's op column and params name it, and
 * a recovery must be of the same operation. */
static void operations_are_chosen_named_and_part_of_the_run(void)
{
    struct wl_workload w = WORKLOAD;
    struct wl_opts o;
    char p[1024], help[2048] = "", *msg;
    char *dflt[] = {"fake", "--mode", "cpu"}, *bad[] = {"fake", "--mode", "cpu", "--op", "delete"},
         *hlp[] = {"fake", "--help"};
    char *upd[] = {"fake", "--mode", "cpu", "--op", "update", "--scale", "tiny", "--pm-dir", dir,
                   "--reps", "1", "--out", rows, "--keep"};
    char *rec[] = {"fake", "--mode", "cpu", "--op", "insert", "--scale", "tiny", "--pm-dir", dir,
                   "--recover"};
    FILE *h = tmpfile();
    w.ops = fake_ops;
    CHECK_EQ_INT(wl_parse_args(&w, ARGC(dflt), dflt, &o, devnull), 0);
    CHECK_EQ_INT(o.op, 0);
    CHECK_EQ_INT(wl_parse_args(&w, ARGC(bad), bad, &o, devnull), -1);
    CHECK_MSG(gpm_last_error(), "--op: fake has no operation 'delete': use insert|update");
    EXPECT_ERROR("--op: fake has one operation: leave --op out", "--mode", "cpu", "--op", "x");
    /* The fake keeps a plain log, not a transaction's: it runs none. */
    EXPECT_ERROR("--kill: fake runs no transactions, so no commit:N: use time:S|random|",
                 "--mode", "cpu", "--kill", "commit:1");
    CHECK(h && wl_parse_args(&w, ARGC(hlp), hlp, &o, h) == 1);
    if (h) {
        rewind(h);
        help[fread(help, 1, sizeof help - 1, h)] = '\0';
        fclose(h);
    }
    CHECK_MSG(help, "usage: fake --mode gpm|gpm-ndp|gpm-eadr|cap-mm|cap-fs|cap-eadr|cpu|none|cap-gds "
                    "[--op insert|update] [--scale");
    CHECK(!strstr(help, "commit:N")); /* scripts find transactional workloads by it */
    clean_dir();
    unlink(rows);
    CHECK_EQ_INT(wl_test_run(&w, upd, ARGC(upd), errlog), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfake\tupdate\tcpu\ttiny\t"), 1);
    last_params(p, sizeof p);
    CHECKF(strncmp(p, "op=update,chunks=", 17) == 0, "%s", p);
    CHECK(wl_test_run(&w, rec, ARGC(rec), errlog) != 0);
    msg = read_text(errlog);
    CHECKF(msg && strstr(msg, "op=update"), "%s", msg ? msg : "(no message)");
    free(msg);
    clean_dir();
}

static void failed_run_removes_only_what_it_created(void)
{
    char data[4300];
    path_of(data, sizeof data, "tiny", "data");
    clean_dir();
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--bug", "fail"),
                 1);
    CHECK_EQ_INT(files_in_dir(), 0);
    /* Files an earlier run left are not this run's to remove. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--keep"), 0);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--bug", "fail"),
                 1);
    CHECK(access(data, F_OK) == 0);
    /* A wrong answer keeps the files for inspection, and says so; its row
     * says how wrong (the fake takes one word of 64 chunks' as wrong). */
    unlink(rows);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--bug", "wrong",
                          "--out", rows),
                 1);
    CHECK(access(data, F_OK) == 0);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "stay in"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",wrong_units=1/32768,units=words,wrong_marks=0/64"),
                 1);
    unlink(rows);
    clean_dir();
}

static void recover_refuses_and_leaves_files_untouched(void)
{
    char id[4300], data[4300];
    unsigned char *before, *after;
    size_t n1, n2;
    struct gpm_run_id slot[2];
    FILE *f;
    int cur;
    path_of(id, sizeof id, "tiny", "id");
    path_of(data, sizeof data, "tiny", "data");
    clean_dir();
    /* Nothing to recover: an error, and no file appears. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover"), 1);
    CHECK_EQ_INT(files_in_dir(), 0);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "does not exist: nothing to recover"), 1);
    /* A run killed mid-work, then recovery attempts that do not match. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "2000", "--kill", "progress:10"), 128 + SIGKILL);
    before = check_read_file(data, &n1);
    CHECK(before);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                          "--seed", "2"), 1);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "written with chunks=64,slow-us=2000,rate=0.5,bug=none and "
                                     "seed 1: pass the same flags"), 1);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover"), 1);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "pass the same flags"), 1); /* slow-us differs */
    /* A run of a mode whose progress is not durable is not resumed by another. */
    f = fopen(id, "r+");
    CHECK(f && fread(slot, sizeof slot, 1, f) == 1);
    cur = gpm_run_id_current(slot);
    CHECK(cur >= 0);
    slot[cur].mode = WL_CAP_MM;
    slot[cur].checksum = gpm_run_id_sum(&slot[cur]);
    CHECK(fseek(f, 0, SEEK_SET) == 0 && fwrite(slot, sizeof slot, 1, f) == 1);
    fclose(f);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                          "--slow-us", "2000"), 1);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "written by a cap-mm run, whose progress is not durable "
                                     "until it ends: recover it with --mode cap-mm"), 1);
    /* A torn identity (both slots bad) is refused. */
    slot[0].checksum ^= 1;
    slot[1].checksum ^= 1;
    f = fopen(id, "r+");
    CHECK(f && fwrite(slot, sizeof slot, 1, f) == 1);
    fclose(f);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                          "--slow-us", "2000"), 1);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "holds no valid run identity"), 1);
    after = check_read_file(data, &n2);
    CHECK(after && n1 == n2 && memcmp(before, after, n1) == 0);
    free(before);
    free(after);
    /* A file of another size is neither used nor touched. */
    clean_dir();
    CHECK(check_write_file(data, "not a fake file") == 0);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir), 1);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "has 15 bytes, expected"), 1);
    before = check_read_file(data, &n1);
    CHECK(before && n1 == 15 && memcmp(before, "not a fake file", 15) == 0);
    free(before);
    clean_dir();
}

/* A new run inherits no checkpoint and no log entry of an earlier one. */
static void new_run_resets_checkpoint_and_log(void)
{
    char cp[4300], lg[4300];
    gpmcp *k;
    gpmlog log;
    path_of(cp, sizeof cp, "tiny", "state");
    path_of(lg, sizeof lg, "tiny", "log");
    clean_dir();
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                          "--keep"), 0);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                          "--keep"), 0);
    CHECK_EQ_INT(gpmlog_open(&log, lg, GPM_HOST_ONLY), 0);
    CHECK_EQ_INT(gpmlog_tail(&log, 0), 8); /* this run's entry alone */
    gpmlog_close(&log);
    /* Killed before its checkpoint: the earlier run's must not be there. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "2000", "--kill", "progress:10"), 128 + SIGKILL);
    k = gpmcp_open_flags(cp, GPM_HOST_ONLY);
    CHECK(k);
    CHECK_EQ_INT(gpmcp_seq(k, 0), 0);
    gpmcp_close(k);
    CHECK_EQ_INT(gpmlog_open(&log, lg, GPM_HOST_ONLY), 0);
    CHECK_EQ_INT(gpmlog_tail(&log, 0), 0);
    gpmlog_close(&log);
    clean_dir();
}

static void second_run_on_the_same_files_is_refused(void)
{
    pid_t pid;
    char id[4300], *msg;
    int st;
    path_of(id, sizeof id, "tiny", "id");
    clean_dir();
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        char *av[] = {"fake", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir,
                      "--slow-us", "20000", "--reps", "1"};
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(99);
        _exit(wl_main(&WORKLOAD, ARGC(av), av));
    }
    for (int i = 0; i < 200 && access(id, F_OK) != 0; i++)
        usleep(10000);
    usleep(100000); /* the identity is locked right after it is created */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--seed", "2"),
                 1);
    msg = read_text(errlog);
    {
        char want[64];
        snprintf(want, sizeof want, "in use by process %d", (int)pid);
        CHECK(msg && strstr(msg, want));
    }
    free(msg);
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    clean_dir();
}

/* ---- crash trials ---- */

static void killed_mid_work_resumes_from_durable_progress(void)
{
    char p[1024];
    unsigned long long d = 0, t = 0, r = 0;
    clean_dir();
    unlink(rows);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "2000", "--kill", "progress:10"), 128 + SIGKILL);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "2000", "--recover", "--out", rows), 0);
    last_params(p, sizeof p);
    CHECK_MSG(p, "trial=mid-work,durable=");
    CHECK(sscanf(strstr(p, "durable="), "durable=%llu/%llu,redone=%llu", &d, &t, &r) == 3);
    CHECKF(d > 0 && d < t && t == 64 && r == t - d, "%s", p);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfake\trecover\tcpu\ttiny\t"), 1);
    CHECK_EQ_INT(files_in_dir(), 0); /* a verified recovery cleans up */
}

static void recovery_that_redoes_durable_work_fails(void)
{
    clean_dir();
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "2000", "--kill", "progress:10", "--bug", "redo-all"),
                 128 + SIGKILL);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "2000", "--recover", "--bug", "redo-all"), 1);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "did not reuse exactly the durable progress"), 1);
    clean_dir();
}

/* The watchdog is disarmed when the work returns: a run that finished first
 * exits normally, and its recovery says so. */
static void finished_first_is_not_a_crash(void)
{
    char p[1024];
    clean_dir();
    unlink(rows);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--kill",
                          "time:0.3"), 0);
    CHECK_EQ_INT(wl_test_count_lines(errlog, "finished before the watchdog fired"), 1);
    usleep(400000); /* past the deadline: had it stayed armed, verification would be killed */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover",
                          "--out", rows), 0);
    last_params(p, sizeof p);
    CHECK_MSG(p, "trial=finished-first");
    clean_dir();
}

static void killed_before_progress_is_told_apart(void)
{
    char p[1024];
    clean_dir();
    unlink(rows);
    /* The kill lands in the sleep before the first chunk: nothing durable. */
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "500000", "--kill", "time:0.0001", "--chunks", "2"), 128 + SIGKILL);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--slow-us",
                          "500000", "--recover", "--chunks", "2", "--out", rows), 0);
    last_params(p, sizeof p);
    CHECK_MSG(p, "trial=before-progress,durable=0/2,redone=2");
    clean_dir();
}

static void data_dir_from_the_environment(void)
{
    char want[4200];
    const char *d;
    snprintf(want, sizeof want, "%s/data/deeper", dir);
    setenv("GPM_DATA_DIR", want, 1);
    d = wl_data_dir();
    CHECK(d && strcmp(d, want) == 0 && access(want, W_OK) == 0);
    setenv("GPM_DATA_DIR", "/proc/gpm-cannot-make-this", 1);
    CHECK(wl_data_dir() == NULL);
    CHECK_MSG(gpm_last_error(), "set GPM_DATA_DIR to a writable directory");
    unsetenv("GPM_DATA_DIR");
    rmdir(want);
    snprintf(want, sizeof want, "%s/data", dir);
    rmdir(want);
}

/* The PCIe throughput of Figure 12: sampled (or said unavailable, and why)
 * in GPU modes, never in the CPU mode. */
static void pcie_throughput_is_noted_in_gpu_modes(void)
{
    struct wl_ctx c;
    struct wl_harness h;
    char p[1024];
    wl_test_ctx(&c, &h);
    c.m = wl_mode(WL_GPM);
    wl_pcie_stop(&c, wl_pcie_start(&c));
    CHECKF(strstr(c.h->note, "pcie_tx_gbps=") ||
               (strstr(c.h->note, "pcie_tx=unavailable") && wl_pcie_why()[0]),
           "note '%s', why '%s'", c.h->note, wl_pcie_why());
    free(c.h->note);
    wl_test_ctx(&c, &h);
    c.m = wl_mode(WL_CPU);
    wl_pcie_stop(&c, wl_pcie_start(&c));
    CHECK(c.h->note == NULL); /* nothing noted */
    clean_dir();
    unlink(rows);
    CHECK_EQ_INT(RUN_ARGS("--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1",
                          "--out", rows), 0);
    last_params(p, sizeof p);
    CHECKF(!strstr(p, "pcie_tx"), "%s", p);
}

static void float_closeness(void)
{
    static const float got[3] = {1.0f, 2.5f, 0.0f};
    static const double want[3] = {1.0, 2.5, 0.0};
    double nan = 0.0 / 0.0;
    CHECK(wl_close(1.0, 1.0, 0, 0) && wl_close(-1.0, -1.1, 0, 0.1) && !wl_close(-1.0, -1.2, 0, 0.1));
    CHECK(wl_close(100.5, 100.0, 0.5, 0) && !wl_close(100.6, 100.0, 0.5, 0));
    CHECK(!wl_close(nan, 1.0, 1e9, 1e9) && !wl_close(1.0, nan, 1e9, 1e9));
    CHECK_EQ_INT(wl_check_close_f32("x", got, want, 3, 0, 0, NULL), 0);
    {
        double off[3] = {1.0, 2.0, 0.0};
        CHECK_EQ_INT(wl_check_close_f32("sums", got, off, 3, 0.1, 0, NULL), 1);
        CHECK_MSG(gpm_last_error(), "sums: element 1 is 2.5");
    }
}

/* The checks count every mismatch, not only the first they name: the
 * error measure a verify notes (wrong_units, wrong_max_err). */
static void checks_count_every_mismatch(void)
{
    enum { N = 10000 };
    static uint32_t a[N], b[N];
    static float f[N];
    static double d[N];
    struct wl_wrong w = {.units = "elements"};
    double nan = 0.0 / 0.0;
    for (int i = 0; i < N; i++) {
        a[i] = b[i] = (uint32_t)i;
        d[i] = 1.0 + i;
        f[i] = (float)d[i];
    }
    CHECK_EQ_INT(wl_check_u32("x", a, b, N, &w), 0);
    CHECK(w.bad == 0 && w.total == N && w.err == NULL);
    b[7000] = 1, b[4321] = 2, b[9999] = 3;
    CHECK_EQ_INT(wl_check_u32("costs", a, b, N, &w), 1);
    CHECK_MSG(gpm_last_error(), "costs: element 4321 is 4321, expected 2");
    CHECK(w.bad == 3 && w.total == 2 * N); /* added to what was there */

    /* Absolute: the largest |got - want|, outside the tolerance or not. */
    memset(&w, 0, sizeof w);
    d[10] += 0.25; /* within 0.5 */
    d[20] -= 3.0;
    d[30] += 1.5;
    CHECK_EQ_INT(wl_check_close_f32("t", f, d, N, 0.5, 0, &w), 1);
    CHECK_MSG(gpm_last_error(), "t: element 20 is 21, expected 18");
    CHECKF(w.bad == 2 && w.total == N && w.max_err == 3.0 && !strcmp(w.err, "abs"),
           "bad %llu, max_err %g", (unsigned long long)w.bad, w.max_err);
    /* Relative where the tolerance is: 3 off 18 is 1/6, 1.5 off 32.5 within 0.1. */
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(wl_check_close_f32("t", f, d, N, 0, 0.1, &w), 1);
    CHECKF(w.bad == 1 && w.max_err == 3.0 / 18 && !strcmp(w.err, "rel"), "bad %llu, max_err %g",
           (unsigned long long)w.bad, w.max_err);
    /* A NaN is wrong, and no error is larger. */
    f[40] = (float)nan;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(wl_check_close_f32("t", f, d, N, 0.5, 0, &w), 1);
    CHECK(w.bad == 3 && isinf(w.max_err));
}

/* wl_note_wrong's format: the units, the largest error where measured, the
 * markers where read; nothing noted of what was not measured. */
static void wrong_measure_is_noted_in_one_format(void)
{
    struct wl_ctx c;
    struct wl_harness h;
    struct wl_wrong w = {.units = "nodes", .bad = 12, .total = 1024};
    wl_test_ctx(&c, &h);
    wl_note_wrong(&c, &w);
    CHECKF(c.h->note && !strcmp(c.h->note, "wrong_units=12/1024,units=nodes"), "%s", c.h->note);
    free(c.h->note);
    wl_test_ctx(&c, &h);
    w.err = "abs";
    w.max_err = 0.125;
    w.marks_bad = 3;
    w.marks = 16;
    wl_note_wrong(&c, &w);
    CHECKF(c.h->note && !strcmp(c.h->note, "wrong_units=12/1024,units=nodes,wrong_max_err=0.125,"
                                     "wrong_err=abs,wrong_marks=3/16"), "%s", c.h->note);
    free(c.h->note);
    /* Only a marker read: the output was not compared. */
    wl_test_ctx(&c, &h);
    memset(&w, 0, sizeof w);
    w.marks_bad = w.marks = 1;
    wl_note_wrong(&c, &w);
    CHECKF(c.h->note && !strcmp(c.h->note, "wrong_marks=1/1"), "%s", c.h->note);
    free(c.h->note);
}

static void first_difference_of_records(void)
{
    uint64_t a[1000], b[1000];
    for (int i = 0; i < 1000; i++)
        a[i] = b[i] = (uint64_t)i * 7;
    CHECK_EQ_INT((int)wl_first_difference(a, b, 1000, sizeof a[0]), 1000);
    b[900] ^= 1;
    b[371] ^= 1ull << 63;
    CHECK_EQ_INT((int)wl_first_difference(a, b, 1000, sizeof a[0]), 371);
    CHECK_EQ_INT((int)wl_first_difference(a, b, 250, 4 * sizeof a[0]), 92); /* 371 / 4 */
    CHECK_EQ_INT((int)wl_first_difference(a, b, 0, sizeof a[0]), 0);
}

int main(void)
{
    devnull = fopen("/dev/null", "w");
    wl_test_scratch("harness", dir, rows, errlog);
    setenv("GPM_PM_DIR", dir, 1);
    RUN(defaults_and_values);
    RUN(every_mode_name);
    RUN(bad_flags);
    RUN(help_goes_to_stdout_and_exits_zero);
    RUN(modes_flag_lists_the_mode_table);
    RUN(cap_gds_without_libcufile_says_how_to_get_it);
    RUN(mode_table_says_what_each_mode_does);
    RUN(markers_and_transactions_resume_only_their_own);
    RUN(bad_out_is_found_before_any_work);
    RUN(pm_directory_checked_first);
    RUN(no_gpu_said_once_before_any_file);
    RUN(cpu_threads_honoured_or_refused);
    RUN(mode_none_refuses_what_needs_durability);
    RUN(rows_exit_status_and_cleanup);
    RUN(files_named_by_scale_or_params);
    RUN(failed_run_removes_only_what_it_created);
    RUN(recover_refuses_and_leaves_files_untouched);
    RUN(new_run_resets_checkpoint_and_log);
    RUN(second_run_on_the_same_files_is_refused);
    RUN(killed_mid_work_resumes_from_durable_progress);
    RUN(recovery_that_redoes_durable_work_fails);
    RUN(finished_first_is_not_a_crash);
    RUN(killed_before_progress_is_told_apart);
    RUN(operations_are_chosen_named_and_part_of_the_run);
    RUN(pcie_throughput_is_noted_in_gpu_modes);
    RUN(float_closeness);
    RUN(checks_count_every_mismatch);
    RUN(wrong_measure_is_noted_in_one_format);
    RUN(first_difference_of_records);
    RUN(data_dir_from_the_environment);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
