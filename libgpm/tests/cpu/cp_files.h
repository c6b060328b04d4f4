/* Helpers of the checkpoint-file tests (test_cp_file.c, test_cp_fs.c):
 * buffers with a recognisable pattern, fresh file names, and a hash of a
 * whole file read with read() to prove that a refusal wrote nothing. */
#ifndef CP_FILES_H
#define CP_FILES_H

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/cp.h"
#include "gpm/cp_layout.h"
#include "gpm/gpm.h"

static void fill(void *p, size_t n, uint32_t tag)
{
    uint32_t *w = p;
    for (size_t i = 0; i < n / 4; i++)
        w[i] = tag * 2654435761u ^ (uint32_t)i;
}

static int holds(const void *p, size_t n, uint32_t tag)
{
    const uint32_t *w = p;
    for (size_t i = 0; i < n / 4; i++)
        if (w[i] != (tag * 2654435761u ^ (uint32_t)i))
            return 0;
    return 1;
}

/* FULL (4096 bytes) gets NAME's path; no file is left there. */
static void fresh(const char *name, char *full)
{
    gpm_resolve_path(name, full, 4096);
    unlink(full);
}

static uint64_t file_hash(const char *path)
{
    size_t len = 0;
    unsigned char *b = check_read_file(path, &len);
    uint64_t h = b ? gpmcp_hash(GPMCP_HASH_SEED, b, len) : 0;
    free(b);
    return h;
}

/* Real crashes: TRIALS times, a child checkpoints BUF (BYTES, a pattern
 * per checkpoint) into NAME in a loop, opened with FLAGS and saved HOW
 * (NULL: the default way), reporting each completed checkpoint in NAME's
 * .progress file, and is killed with SIGKILL at a random moment. The file
 * must then hold exactly one of the last two completed checkpoints, whole,
 * and at least half the kills must land after a checkpoint. Fails the
 * calling case through the CHECK macros. */
static void sigkill_trials(const char *name, uint32_t *buf, size_t bytes, int trials, int flags,
                           const gpmcp_how *how)
{
    char path[4096], prog[4200];
    int mid = 0;
    fresh(name, path);
    snprintf(prog, sizeof prog, "%s.progress", path);
    for (int t = 0; t < trials; t++) {
        unlink(path);
        int pfd = open(prog, O_CREAT | O_TRUNC | O_RDWR, 0600);
        CHECK(pfd >= 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            gpmcp *cp = gpmcp_create_flags(name, bytes, 1, 1, flags);
            if (!cp || gpmcp_register(cp, buf, bytes, 0) != 0)
                _exit(2);
            for (uint64_t i = 1;; i++) {
                fill(buf, bytes, (uint32_t)i);
                if (gpmcp_checkpoint_how(cp, 0, how) != 0)
                    _exit(3);
                if (pwrite(pfd, &i, sizeof i, 0) != sizeof i)
                    _exit(4);
            }
        }
        struct timespec ts = {0, (long)(20000000 + check_rand() % 60000000)};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECKF(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child ended with status %d", st);
        uint64_t done = 0;
        (void)!pread(pfd, &done, sizeof done, 0);
        close(pfd);

        gpmcp *cp = gpmcp_open_flags(name, flags);
        if (!cp) { /* killed while creating: no checkpoint was reported */
            CHECKF(done == 0, "%s", gpm_last_error());
            continue;
        }
        CHECK(gpmcp_register(cp, buf, bytes, 0) == 0);
        long long seq = gpmcp_seq(cp, 0);
        CHECKF(seq == (long long)done || seq == (long long)done + 1,
               "trial %d: seq %lld, last reported %llu", t, seq, (unsigned long long)done);
        if (seq > 0) {
            memset(buf, 0, bytes);
            CHECK(gpmcp_restore(cp, 0) == 0);
            CHECKF(holds(buf, bytes, (uint32_t)seq), "trial %d: seq %lld is torn", t, seq);
            mid++;
        }
        gpmcp_close(cp);
    }
    unlink(prog);
    CHECKF(mid >= trials / 2, "only %d of %d kills landed after a checkpoint", mid, trials);
}

#endif
