/* Crash trials for checkpointing.
 *
 * Run mode: three device buffers in two groups are updated by a kernel in a
 * loop (iteration i gives every buffer the contents f(i)) and both groups
 * are checkpointed after every update; after each checkpoint returns, its
 * iteration is written to NAME.progress. A watchdog thread SIGKILLs the
 * process at a random moment while kernels and checkpoints run. In mode
 * cap-fs the file is opened with GPMCP_FILE_IO and checkpointed the CAP-fs
 * way (pwrite + fsync into the same file format).
 *
 * --recover: reopens the checkpoint (in mode cap-fs with GPMCP_FILE_IO, so
 * the restore preads), registers the same buffers, restores each group and
 * checks that it holds exactly f(k), k being the group's recorded sequence
 * number, and that k is the last reported checkpoint or the one in flight
 * when the process died (which may have flipped before its report). Exit 0:
 * recovered; 1: not; 2: bad usage or setup. Options: gpm-crash-cp --help. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpm/args.h"
#include "gpm/cap.h"
#include "gpm/cp.h"
#include "gpm/crash.h"

#define NBUF 3

/* Contents of word J of buffer B after iteration I. */
__host__ __device__ static uint32_t f_word(uint64_t i, uint32_t b, uint64_t j)
{
    uint32_t x = (uint32_t)(i * 2654435761u) ^ (b << 28) ^ (uint32_t)j ^ (uint32_t)(j >> 32);
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return x;
}

__global__ void update_kernel(uint32_t *buf, uint64_t words, uint64_t iter, uint32_t b)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < words;
         j += (uint64_t)gridDim.x * blockDim.x)
        buf[j] = f_word(iter, b, j);
}

/* NAME.progress: the run's size, then per group the last iteration whose
 * checkpoint returned, then the mode (its index in MODE_NAMES). Plain
 * pwrites: the page cache outlives SIGKILL. */
enum { P_SIZE, P_DONE0, P_DONE1, P_MODE, P_WORDS };

static const char *const MODE_NAMES[] = {"gpm",      "gpm-ndp",  "gpm-eadr", "cap-mm",
                                         "cap-eadr", "cap-fs",   NULL};
static const gpmcp_mode MODES[] = {GPMCP_GPM,    GPMCP_GPM_NDP,  GPMCP_GPM_EADR,
                                   GPMCP_CAP_MM, GPMCP_CAP_EADR, GPMCP_CAP_FS};
#define NMODES ((int)(sizeof MODES / sizeof *MODES))

static void die(const char *what)
{
    fprintf(stderr, "gpm-crash-cp: %s\n", what);
    exit(2);
}

static void die_gpm(const char *what)
{
    fprintf(stderr, "gpm-crash-cp: %s: %s\n", what, gpm_last_error());
    exit(2);
}

static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "gpm-crash-cp: %s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

/* Buffer sizes from the total: uneven and not multiples of 128, so the
 * padding between elements is exercised. Group 0 holds buffers 0 and 1. */
static void split(uint64_t size, uint64_t bytes[NBUF], int group[NBUF])
{
    bytes[0] = (size / 2) & ~3ull;
    bytes[1] = ((size / 4) & ~3ull) + 36;
    bytes[2] = (size - bytes[0] - bytes[1]) & ~3ull;
    group[0] = 0, group[1] = 0, group[2] = 1;
}

static void progress_path(char *out, size_t len, const char *name)
{
    char full[4096];
    if (gpm_resolve_path(name, full, sizeof full) != 0)
        die_gpm("file name");
    if ((size_t)snprintf(out, len, "%s.progress", full) >= len)
        die("file name too long");
}

typedef struct watchdog {
    uint64_t min_us, max_us, seed;
} watchdog;

/* The way a mode opens its file: CAP-fs by pwrite, the others mapped. */
static int open_flags(int mode)
{
    return MODES[mode] == GPMCP_CAP_FS ? GPMCP_FILE_IO : 0;
}

static void alloc_buffers(const uint64_t bytes[NBUF], uint32_t *dev[NBUF])
{
    for (int b = 0; b < NBUF; b++)
        check_cuda(cudaMalloc((void **)&dev[b], bytes[b]), "cudaMalloc");
}

static int run(const char *name, uint64_t size, int mode, watchdog *wd, uint64_t iters)
{
    uint64_t bytes[NBUF], prog[P_WORDS] = {size, 0, 0, (uint64_t)mode};
    int group[NBUF];
    uint32_t *dev[NBUF];
    char ppath[4200];
    gpm_flusher *fl = NULL;

    split(size, bytes, group);
    alloc_buffers(bytes, dev);
    gpmcp *cp = gpmcp_create_flags(name, bytes[0] + bytes[1] + bytes[2], 2, 2,
                                   open_flags(mode));
    if (!cp)
        die_gpm("create");
    /* Only once the checkpoint file is new and ours: an existing trial's
     * progress is never truncated. */
    progress_path(ppath, sizeof ppath, name);
    int pfd = open(ppath, O_CREAT | O_TRUNC | O_RDWR, 0600);
    if (pfd < 0 || pwrite(pfd, prog, sizeof prog, 0) != (ssize_t)sizeof prog)
        die("cannot write the progress file");
    for (int b = 0; b < NBUF; b++)
        if (gpmcp_register(cp, dev[b], bytes[b], group[b]) != 0)
            die_gpm("register");
    if (MODES[mode] == GPMCP_GPM_NDP || MODES[mode] == GPMCP_CAP_MM ||
        MODES[mode] == GPMCP_CAP_EADR) {
        fl = gpm_flusher_create(8);
        if (!fl)
            die_gpm("flusher");
    }
    gpmcp_how how = {MODES[mode], fl, NULL, 0};

    if (wd && gpm_crash_arm_us(gpm_crash_pick_us(wd->seed, wd->min_us, wd->max_us)) != 0)
        die_gpm("watchdog");
    for (uint64_t i = 1; iters == 0 || i <= iters; i++) {
        for (int b = 0; b < NBUF; b++)
            update_kernel<<<1024, 256>>>(dev[b], bytes[b] / 4, i, (uint32_t)b);
        check_cuda(cudaDeviceSynchronize(), "update kernel");
        for (int g = 0; g < 2; g++) {
            if (gpmcp_checkpoint_how(cp, g, &how) != 0)
                die_gpm("checkpoint");
            prog[P_DONE0 + g] = i;
            if (pwrite(pfd, &prog[P_DONE0 + g], 8, (off_t)(8 * (P_DONE0 + g))) != 8)
                die("cannot write the progress file");
        }
    }
    printf("completed %llu iterations\n", (unsigned long long)iters);
    gpm_flusher_destroy(fl);
    gpmcp_close(cp);
    close(pfd);
    return 0;
}

static int recover(const char *name)
{
    uint64_t prog[P_WORDS] = {0, 0, 0, 0}, bytes[NBUF];
    int group[NBUF], ok = 1;
    uint32_t *dev[NBUF];
    char ppath[4200];

    progress_path(ppath, sizeof ppath, name);
    int pfd = open(ppath, O_RDONLY);
    if (pfd < 0 || pread(pfd, prog, sizeof prog, 0) != (ssize_t)sizeof prog)
        die("cannot read the progress file: was the run started?");
    close(pfd);
    if (prog[P_MODE] >= (uint64_t)NMODES)
        die("the progress file names no known mode: was it written by this program?");
    split(prog[P_SIZE], bytes, group);

    gpmcp *cp = gpmcp_open_flags(name, open_flags((int)prog[P_MODE]));
    if (!cp) {
        /* Killed before the file was complete: acceptable only if no
         * checkpoint had been reported. */
        if (prog[P_DONE0] == 0 && prog[P_DONE1] == 0) {
            printf("recovered: killed before the first checkpoint (%s)\n", gpm_last_error());
            return 0;
        }
        printf("NOT recovered: %s\n", gpm_last_error());
        return 1;
    }
    alloc_buffers(bytes, dev);
    for (int b = 0; b < NBUF; b++)
        if (gpmcp_register(cp, dev[b], bytes[b], group[b]) != 0)
            die_gpm("register");
    printf("recovered:");
    for (int g = 0; g < 2; g++) {
        long long seq = gpmcp_seq(cp, g);
        uint64_t done = prog[P_DONE0 + g];
        if (seq < 0 || ((uint64_t)seq != done && (uint64_t)seq != done + 1)) {
            printf(" group %d seq %lld but %llu was the last reported (%s);", g, seq,
                   (unsigned long long)done, seq < 0 ? gpm_last_error() : "not one of the last two");
            ok = 0;
            continue;
        }
        if (seq == 0) {
            printf(" group %d no checkpoint yet;", g);
            continue;
        }
        if (gpmcp_restore(cp, g) != 0) {
            printf(" group %d restore failed: %s;", g, gpm_last_error());
            ok = 0;
            continue;
        }
        uint64_t bad = 0;
        for (int b = 0; b < NBUF; b++) {
            if (group[b] != g)
                continue;
            uint32_t *h = (uint32_t *)malloc(bytes[b]);
            if (!h)
                die("out of memory");
            check_cuda(cudaMemcpy(h, dev[b], bytes[b], cudaMemcpyDeviceToHost), "cudaMemcpy");
            for (uint64_t j = 0; j < bytes[b] / 4; j++)
                bad += h[j] != f_word((uint64_t)seq, (uint32_t)b, j);
            free(h);
        }
        printf(" group %d seq %lld (last reported %llu%s)%s;", g, seq, (unsigned long long)done,
               (uint64_t)seq == done + 1 ? ", the in-flight one had flipped" : "",
               bad ? "" : " intact");
        if (bad) {
            printf(" %llu words differ from checkpoint %lld (torn);", (unsigned long long)bad,
                   seq);
            ok = 0;
        }
    }
    printf("\n");
    if (!ok)
        printf("NOT recovered\n");
    gpmcp_close(cp);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const char *const synopsis =
        "--file NAME [options]\n"
        "       gpm-crash-cp --recover --file NAME\n"
        "Checkpoints two groups of device buffers in a loop until a watchdog SIGKILLs the\n"
        "process (or N iterations end); --recover then checks what the file restores.";
    const char *prog = "gpm-crash-cp", *name = NULL;
    long long size, seed, iters, kill[2];
    int do_recover = 0, mode, rc;
    struct gpm_flag flags[] = {
        GPM_FLAG_STR("--file", &name, NULL, "NAME",
                     "checkpoint file (relative names go under GPM_PM_DIR)"),
        GPM_FLAG_LL("--size", &size, 4096, 1ll << 40, "48M", "BYTES",
                    "bytes of all buffers, K/M/G allowed"),
        GPM_FLAG_CHOICE("--mode", &mode, MODE_NAMES, "gpm", NULL, "how checkpoints are written"),
        GPM_FLAG_RANGE("--kill-after-us", kill, 0, LLONG_MAX, "1000:200000", "MIN:MAX",
                       "SIGKILL after a random time in [MIN, MAX] microseconds (armed unless "
                       "--iters ends the run)"),
        GPM_FLAG_LL("--seed", &seed, 0, LLONG_MAX, "1", "S", "seed of the kill time"),
        GPM_FLAG_LL("--iters", &iters, 0, LLONG_MAX, "0", "N",
                    "stop after N iterations (0: until killed)"),
        GPM_FLAG_SET("--recover", &do_recover, "check the file left by a run"),
        GPM_FLAGS_END};

    if ((rc = gpm_args_parse(prog, synopsis, flags, argc, argv)) != 0)
        return rc > 0 ? 0 : gpm_args_fail(prog);
    if (!name || !*name) {
        gpm_set_error("--file: missing: pass the checkpoint file's name (see %s --help)", prog);
        return gpm_args_fail(prog);
    }
    watchdog wd = {(uint64_t)kill[0], (uint64_t)kill[1], (uint64_t)seed};
    if (do_recover)
        return recover(name);
    /* Without --iters the loop only ends by the watchdog's SIGKILL. */
    return run(name, (uint64_t)size, mode,
               (gpm_args_seen(flags, "--kill-after-us") || iters == 0) ? &wd : NULL,
               (uint64_t)iters);
}
