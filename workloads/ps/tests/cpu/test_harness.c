/* The harness through PS: flags and their errors, scales, result rows, PM
 * file rules, the CAP-fs checkpoint slots, and a real SIGKILL crash of the
 * CPU counterpart followed by --recover. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../ps_layout.h"
#include "fscp.h"
#include "gpm/check.h"
#include "wl.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof(a[0])))

static FILE *devnull;

static int parse(int argc, char **argv, struct wl_opts *o)
{
    return wl_parse_args(&WORKLOAD, argc, argv, o, devnull);
}

/* The error for ARGV mentions NEEDLE. */
#define EXPECT_ERROR(needle, ...)                                                      \
    do {                                                                               \
        char *av[] = {"ps", __VA_ARGS__};                                              \
        struct wl_opts o;                                                              \
        CHECKF(parse(ARGC(av), av, &o) == -1, "accepted: %s", needle);                 \
        CHECK_MSG(gpm_last_error(), needle);                                           \
    } while (0)

static void defaults_and_values(void)
{
    struct wl_opts o;
    char *av[] = {"ps", "--mode", "cap-mm", "--reps", "5", "--cpu-threads", "8", "--seed=42",
                  "--crash-after", "0.5", "--out", "r.tsv", "--keep", "--recover", "--pm-dir",
                  "/dev/shm"};
    char *av2[] = {"ps", "--mode", "gpm-eadr", "--crash-after", "random", "--cpu-threads",
                   "best", "--scale", "paper"};
    CHECK_EQ_INT(parse(ARGC(av), av, &o), 0);
    CHECK(o.mode == WL_CAP_MM && o.reps == 5 && o.cpu_threads == 8 && o.seed == 42);
    CHECK(o.crash_after == 0.5 && !o.crash_random && o.keep && o.recover);
    CHECK(strcmp(o.out, "r.tsv") == 0 && strcmp(o.pm_dir, "/dev/shm") == 0);
    CHECK(o.scale == WL_SMALL && !o.custom);
    CHECK_EQ_INT(parse(ARGC(av2), av2, &o), 0);
    CHECK(o.mode == WL_GPM_EADR && o.crash_random && o.cpu_threads == 0 && o.scale == WL_PAPER);
    CHECK_EQ_INT(o.reps, 3);
    CHECK(o.crash_after >= 0);
}

static void every_mode_name(void)
{
    static const char *names[] = {"gpm", "gpm-ndp", "gpm-eadr", "cap-mm", "cap-fs", "cap-eadr",
                                  "cpu"};
    for (int m = 0; m < WL_NMODES; m++) {
        struct wl_opts o;
        char *av[] = {"ps", "--mode", (char *)names[m]};
        CHECK_EQ_INT(parse(3, av, &o), 0);
        CHECK_EQ_INT(o.mode, m);
        CHECK(strcmp(wl_mode_name((enum wl_mode)m), names[m]) == 0);
    }
}

static void bad_flags(void)
{
    EXPECT_ERROR("--mode: required", "--scale", "tiny");
    EXPECT_ERROR("--mode: ps has no mode 'fast'", "--mode", "fast");
    EXPECT_ERROR("use gpm|gpm-ndp|gpm-eadr|cap-mm|cap-fs|cap-eadr|cpu", "--mode", "x");
    EXPECT_ERROR("--scale: unknown scale 'huge'", "--mode", "gpm", "--scale", "huge");
    EXPECT_ERROR("--reps: expects an integer", "--mode", "gpm", "--reps", "many");
    EXPECT_ERROR("--reps: 0 is out of range", "--mode", "gpm", "--reps", "0");
    EXPECT_ERROR("--cpu-threads: expects a thread count", "--mode", "cap-mm", "--cpu-threads",
                 "lots");
    EXPECT_ERROR("--crash-after: expects seconds > 0 or 'random'", "--mode", "gpm",
                 "--crash-after", "-1");
    EXPECT_ERROR("--n: 0 is out of range", "--mode", "gpm", "--n", "0");
    EXPECT_ERROR("--block: expects an integer", "--mode", "gpm", "--block", "big");
    EXPECT_ERROR("unknown flag --checkpoint-every", "--mode", "gpm", "--checkpoint-every", "2");
    EXPECT_ERROR("--reps: needs a value", "--mode", "gpm", "--reps");
    EXPECT_ERROR("--recover: takes no value", "--mode", "gpm", "--recover=yes");
    EXPECT_ERROR("unexpected argument 'tiny'", "--mode", "gpm", "tiny");
    EXPECT_ERROR("--out: empty", "--mode", "gpm", "--out", "");
    EXPECT_ERROR("--n: 9999999999999999G is out of range", "--mode", "gpm", "--n",
                 "9999999999999999G");
    EXPECT_ERROR("--n: -1K is out of range", "--mode", "gpm", "--n", "-1K");
    EXPECT_ERROR("--seed: 9000000000G is out of range", "--mode", "gpm", "--seed", "9000000000G");
    EXPECT_ERROR("--cpu-threads: expects a thread count from 1 to 64", "--mode", "cap-mm",
                 "--cpu-threads", "65");
}

static void modes_a_workload_lacks(void)
{
    struct wl_workload w = WORKLOAD;
    struct wl_opts o;
    char *av[] = {"x", "--mode", "cpu"};
    w.modes = WL_MODES_GPU;
    CHECK_EQ_INT(wl_parse_args(&w, 3, av, &o, devnull), -1);
    CHECK_MSG(gpm_last_error(), "no mode 'cpu'");
}

static void scale_sizes(void)
{
    static const long long n[3] = {16ll << 16, 256ll << 20, 1ll << 30};
    static const char *scales[3] = {"tiny", "small", "paper"};
    for (int s = 0; s < 3; s++) {
        struct wl_opts o;
        long long p[WL_MAX_PARAMS];
        char *av[] = {"ps", "--mode", "gpm", "--scale", (char *)scales[s]};
        CHECK_EQ_INT(parse(5, av, &o), 0);
        wl_resolve_params(&WORKLOAD, &o, p);
        CHECK_EQ_INT(p[0], n[s]);
        CHECK_EQ_INT(p[1], 4096);
        CHECK(strcmp(wl_scale_name(o.scale), scales[s]) == 0);
    }
    {
        struct wl_opts o;
        long long p[WL_MAX_PARAMS];
        char *av[] = {"ps", "--mode", "gpm", "--scale", "tiny", "--n", "4M"};
        CHECK_EQ_INT(parse(7, av, &o), 0);
        wl_resolve_params(&WORKLOAD, &o, p);
        CHECK(o.custom && p[0] == (4ll << 20) && p[1] == 4096);
    }
}

/* Runs the program's whole life in a child; returns its exit status, or
 * 128 + signal. */
static int run_main(char **argv, int argc)
{
    pid_t pid;
    int st;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(99);
        _exit(wl_main(&WORKLOAD, argc, argv));
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char dir[4096], rows[4200];

static int count_lines(const char *path, const char *needle)
{
    char line[8192];
    int k = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strstr(line, needle))
            k++;
    fclose(f);
    return k;
}

static void rows_and_exit_status(void)
{
    char *ok[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--reps", "2", "--pm-dir", dir,
                  "--out", rows};
    char *bad[] = {"ps", "--mode", "cpu", "--reps", "zero"};
    char path[4200];
    unlink(rows);
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    CHECK_EQ_INT(count_lines(rows, "workload\top\tmode"), 1); /* header once */
    CHECK_EQ_INT(count_lines(rows, "\tps\trun\tcpu\ttiny\t4194304\t0\t2\t"), 2);
    CHECK_EQ_INT(count_lines(rows, "\tok\tn=1048576,block=4096,seed=1,cpu_threads=0"), 2);
    CHECK_EQ_INT(run_main(bad, ARGC(bad)), 2);
    snprintf(path, sizeof path, "%s/ps-tiny.pm", dir);
    CHECK(access(path, F_OK) != 0); /* scratch removed after a verified run */
}

static void pm_file_rules(void)
{
    char *rec[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--recover"};
    char *run[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1"};
    char *nodir[] = {"ps", "--mode", "cpu", "--pm-dir", "/nonexistent/pm"};
    char path[4200];
    struct stat st;
    FILE *f;
    snprintf(path, sizeof path, "%s/ps-tiny.pm", dir);
    unlink(path);
    /* Nothing to recover: an error, and no file appears. */
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
    CHECK(access(path, F_OK) != 0);
    CHECK_EQ_INT(run_main(nodir, ARGC(nodir)), 2);
    /* A file of another size is neither used nor touched. */
    f = fopen(path, "w");
    CHECK(f);
    fputs("not a PS file", f);
    fclose(f);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 1);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
    CHECK(stat(path, &st) == 0 && st.st_size == 13);
    unlink(path);
    /* The right size but not a PS header: recovery refuses it untouched. */
    f = fopen(path, "w");
    CHECK(f);
    fputs("not a PS file", f);
    CHECK(ftruncate(fileno(f), (off_t)ps_file_bytes(16 << 16, 4096)) == 0);
    fclose(f);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
    CHECK(stat(path, &st) == 0 && (size_t)st.st_size == ps_file_bytes(16 << 16, 4096));
    f = fopen(path, "r");
    CHECK(f);
    {
        char head[14] = {0};
        CHECK(fread(head, 1, 13, f) == 13 && strcmp(head, "not a PS file") == 0);
        for (int ch; (ch = fgetc(f)) != EOF;)
            CHECKF(ch == 0, "recovery wrote into a file it refused");
    }
    fclose(f);
    unlink(path);
}

/* A file whose header is gone (torn, or zeroed) but whose done markers are
 * of an earlier run: a normal run must not take those blocks as done. */
static void fresh_run_ignores_stale_markers(void)
{
    char *run[] = {"ps", "--mode", "cpu", "--scale", "tiny", "--pm-dir", dir, "--reps", "1"};
    const uint64_t n = 16 << 16, nb = ps_nblocks(n, 4096);
    char path[4200];
    uint32_t *done = malloc(nb * 4);
    FILE *f;
    CHECK(done);
    for (uint64_t b = 0; b < nb; b++)
        done[b] = 1 + (uint32_t)(b % 3);
    snprintf(path, sizeof path, "%s/ps-tiny.pm", dir);
    f = fopen(path, "w");
    CHECK(f);
    CHECK(ftruncate(fileno(f), (off_t)ps_file_bytes(n, 4096)) == 0);
    CHECK(fseek(f, (long)ps_done_off(n), SEEK_SET) == 0 && fwrite(done, 4, nb, f) == nb);
    fclose(f);
    CHECK_EQ_INT(run_main(run, ARGC(run)), 0);
    free(done);
    unlink(path);
}

/* A real crash: SIGKILL from the watchdog mid-run, then --recover resumes
 * the blocks that were not done and verifies against the reference. */
static void crash_then_recover(void)
{
    char *crash[] = {"ps", "--mode", "cpu", "--n", "64M", "--block", "256", "--pm-dir", dir,
                     "--reps", "1", "--crash-after", "0.05"};
    char *rec[] = {"ps", "--mode", "cpu", "--n", "64M", "--block", "256", "--pm-dir", dir,
                   "--recover", "--out", rows};
    char path[4200];
    int killed = 0;
    snprintf(path, sizeof path, "%s/ps-custom.pm", dir);
    unlink(rows);
    for (int trial = 0; trial < 3; trial++) {
        int rc = run_main(crash, ARGC(crash));
        CHECKF(rc == 128 + SIGKILL || rc == 0, "crash run ended with %d", rc);
        killed += rc == 128 + SIGKILL;
        CHECK(access(path, F_OK) == 0); /* the PM file outlives the process */
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    }
    CHECK_EQ_INT(count_lines(rows, "\tps\trecover\tcpu\tcustom\t"), 3);
    CHECK_EQ_INT(count_lines(rows, "\tok\t"), 3);
    CHECK(access(path, F_OK) != 0);
    if (!killed)
        SKIP("every run finished before the watchdog (machine too fast for 0.05 s)");
}

static void fscp_slots(void)
{
    size_t size[2] = {1000, 64};
    struct wl_fscp_slot s;
    memset(&s, 0, sizeof s);
    s.magic = WL_FSCP_MAGIC;
    s.seq = 4;
    s.nbuf = 2;
    s.copy_bytes = wl_fscp_copy_bytes(size, 2);
    s.size[0] = 1000;
    s.size[1] = 64;
    s.checksum = wl_fscp_sum(&s);
    CHECK_EQ_INT(s.copy_bytes, 1024 + 128);
    CHECK(wl_fscp_slot_valid(&s, size, 2));
    size[1] = 65;
    CHECK(!wl_fscp_slot_valid(&s, size, 2)); /* registered sizes changed */
    size[1] = 64;
    s.seq = 5; /* torn: sequence written, checksum not */
    CHECK(!wl_fscp_slot_valid(&s, size, 2));
    CHECK_EQ_INT(wl_fscp_consistent(1, 4, 1, 5), 1);
    CHECK_EQ_INT(wl_fscp_consistent(1, 6, 1, 5), 0);
    CHECK_EQ_INT(wl_fscp_consistent(1, 6, 0, 7), 0); /* the newer slot is torn */
    CHECK_EQ_INT(wl_fscp_consistent(0, 0, 0, 0), -1);
    CHECK_EQ_INT(wl_fscp_consistent(1, 0, 0, 0), -1); /* sealed but empty */
    CHECK(wl_fscp_copy_off(1152, 1) == 2 * WL_FSCP_SLOT + 1152);
}

static void float_closeness(void)
{
    static const float got[3] = {1.0f, 2.5f, 0.0f};
    static const double want[3] = {1.0, 2.5, 0.0};
    CHECK(wl_close(1.0, 1.0, 0, 0) && wl_close(-1.0, -1.1, 0, 0.1) && !wl_close(-1.0, -1.2, 0, 0.1));
    CHECK(wl_close(100.5, 100.0, 0.5, 0) && !wl_close(100.6, 100.0, 0.5, 0));
    CHECK(!wl_close(NAN, 1.0, 1e9, 1e9) && !wl_close(1.0, NAN, 1e9, 1e9));
    CHECK_EQ_INT(wl_check_close_f32("x", got, want, 3, 0, 0), 0);
    {
        double off[3] = {1.0, 2.0, 0.0};
        CHECK_EQ_INT(wl_check_close_f32("sums", got, off, 3, 0.1, 0), 1);
        CHECK_MSG(gpm_last_error(), "sums: element 1 is 2.5");
    }
}

int main(void)
{
    const char *pm = getenv("GPM_PM_DIR");
    devnull = fopen("/dev/null", "w");
    snprintf(dir, sizeof dir, "%s/harness-%d", pm && *pm ? pm : "/dev/shm", (int)getpid());
    mkdir(dir, 0700);
    snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
    RUN(defaults_and_values);
    RUN(every_mode_name);
    RUN(bad_flags);
    RUN(modes_a_workload_lacks);
    RUN(scale_sizes);
    RUN(rows_and_exit_status);
    RUN(pm_file_rules);
    RUN(fresh_run_ignores_stale_markers);
    RUN(crash_then_recover);
    RUN(fscp_slots);
    RUN(float_closeness);
    unlink(rows);
    rmdir(dir);
    CHECK_EXIT();
}
