/* Crash trials for checkpointing.
 *
 * Run mode: three device buffers in two groups are updated by a kernel in a
 * loop (iteration i gives every buffer the contents f(i)) and both groups
 * are checkpointed after every update; after each checkpoint returns, its
 * iteration is written to NAME.progress. A watchdog thread SIGKILLs the
 * process at a random moment while kernels and checkpoints run.
 *
 * --recover: reopens the checkpoint, registers the same buffers, restores
 * each group and checks that it holds exactly f(k), k being the group's
 * recorded sequence number, and that k is the last reported checkpoint or
 * the one in flight when the process died (which may have flipped before
 * its report). Exit 0: recovered; 1: not.
 *
 *   gpm-crash-cp --file NAME [--size BYTES] [--mode gpm|gpm-ndp|gpm-eadr|
 *                cap-mm|cap-eadr] [--kill-after-us MIN:MAX] [--seed S] [--iters N]
 *   gpm-crash-cp --recover --file NAME
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

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
 * checkpoint returned. Plain pwrites: the page cache outlives SIGKILL. */
enum { P_SIZE, P_DONE0, P_DONE1, P_WORDS };

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

static int parse_mode(const char *s, gpmcp_mode *m)
{
    static const char *names[] = {"gpm", "gpm-ndp", "gpm-eadr", "cap-mm", "cap-eadr"};
    static const gpmcp_mode modes[] = {GPMCP_GPM, GPMCP_GPM_NDP, GPMCP_GPM_EADR, GPMCP_CAP_MM,
                                       GPMCP_CAP_EADR};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *m = modes[i];
            return 0;
        }
    return -1;
}

static void alloc_buffers(const uint64_t bytes[NBUF], uint32_t *dev[NBUF])
{
    for (int b = 0; b < NBUF; b++)
        check_cuda(cudaMalloc((void **)&dev[b], bytes[b]), "cudaMalloc");
}

static int run(const char *name, uint64_t size, gpmcp_mode mode, watchdog *wd, uint64_t iters)
{
    uint64_t bytes[NBUF], prog[P_WORDS] = {size, 0, 0};
    int group[NBUF];
    uint32_t *dev[NBUF];
    char ppath[4200];
    gpm_flusher *fl = NULL;

    split(size, bytes, group);
    alloc_buffers(bytes, dev);
    gpmcp *cp = gpmcp_create(name, bytes[0] + bytes[1] + bytes[2], 2, 2);
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
    if (mode == GPMCP_GPM_NDP || mode == GPMCP_CAP_MM || mode == GPMCP_CAP_EADR) {
        fl = gpm_flusher_create(8);
        if (!fl)
            die_gpm("flusher");
    }
    gpmcp_how how = {mode, fl, NULL};

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
    uint64_t prog[P_WORDS] = {0, 0, 0}, bytes[NBUF];
    int group[NBUF], ok = 1;
    uint32_t *dev[NBUF];
    char ppath[4200];

    progress_path(ppath, sizeof ppath, name);
    int pfd = open(ppath, O_RDONLY);
    if (pfd < 0 || pread(pfd, prog, sizeof prog, 0) != (ssize_t)sizeof prog)
        die("cannot read the progress file: was the run started?");
    close(pfd);
    split(prog[P_SIZE], bytes, group);

    gpmcp *cp = gpmcp_open(name);
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

static void usage(void)
{
    fprintf(stderr,
            "usage: gpm-crash-cp --file NAME [--size BYTES] [--mode gpm|gpm-ndp|gpm-eadr|"
            "cap-mm|cap-eadr]\n"
            "                    [--kill-after-us MIN:MAX] [--seed S] [--iters N]\n"
            "       gpm-crash-cp --recover --file NAME\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *name = NULL;
    uint64_t size = 48ull << 20, iters = 0;
    int do_recover = 0, have_kill = 0;
    gpmcp_mode mode = GPMCP_GPM;
    watchdog wd = {1000, 200000, 1};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--recover")) {
            do_recover = 1;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--file"))
            name = v;
        else if (!strcmp(a, "--size"))
            size = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--seed"))
            wd.seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--iters"))
            iters = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--mode")) {
            if (parse_mode(v, &mode) != 0)
                usage();
        } else if (!strcmp(a, "--kill-after-us")) {
            unsigned long long lo, hi;
            if (sscanf(v, "%llu:%llu", &lo, &hi) != 2 || hi < lo)
                usage();
            wd.min_us = lo, wd.max_us = hi, have_kill = 1;
        } else
            usage();
    }
    if (!name)
        usage();
    if (do_recover)
        return recover(name);
    if (size < 4096)
        die("--size must be at least 4096 bytes");
    /* Without --iters the loop only ends by the watchdog's SIGKILL. */
    return run(name, size, mode, (have_kill || iters == 0) ? &wd : NULL, iters);
}
