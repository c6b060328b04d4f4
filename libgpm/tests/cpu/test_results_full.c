/* Result rows on a full disk: the append fails with one message naming the
 * file and the cause, and leaves the file as it found it: a file it created
 * is removed (not left empty), an existing file keeps its bytes (no half
 * row). A full disk is /dev/full, or a file-size limit (RLIMIT_FSIZE) that
 * the row would cross, set in a child. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/gpm.h"
#include "gpm/results.h"

static char dir[4096], path[4200];

static gpm_result row(void)
{
    gpm_result r;
    memset(&r, 0, sizeof r);
    r.workload = "w";
    r.op = "run";
    r.mode = "cpu";
    r.scale = "tiny";
    r.verified = "ok";
    r.params = "n=1";
    return r;
}

static gpm_platform platform(void)
{
    gpm_platform p;
    memset(&p, 0, sizeof p);
    return p;
}

/* gpm_result_append(path) in a child whose files may not grow past LIMIT
 * bytes: its return value (0 or -1 as 255), and its message in MSG. */
static int append_limited(rlim_t limit, char *msg, size_t len)
{
    int fds[2], st;
    pid_t pid;
    ssize_t n;
    if (pipe(fds) != 0)
        return -2;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        struct rlimit rl = {limit, limit};
        gpm_result r = row();
        gpm_platform p = platform();
        int rc;
        close(fds[0]);
        signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG */
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(99);
        rc = gpm_result_append(path, &p, &r);
        if (write(fds[1], gpm_last_error(), strlen(gpm_last_error())) < 0)
            _exit(98);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    n = read(fds[0], msg, len - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -2;
    return WEXITSTATUS(st);
}

static long long size_of(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

static void a_full_device_fails_with_the_cause(void)
{
    gpm_result r = row();
    gpm_platform p = platform();
    CHECK(gpm_result_append("/dev/full", &p, &r) == -1);
    CHECK_MSG(gpm_last_error(), "/dev/full: cannot write a result row (No space left on device)");
}

static void a_new_file_that_cannot_be_written_is_removed(void)
{
    char msg[1024];
    unlink(path);
    CHECK_EQ_INT(append_limited(0, msg, sizeof msg), 1);
    CHECK_MSG(msg, "cannot write a result row (File too large)");
    CHECK_MSG(msg, path);
    CHECK(size_of(path) == -1);
}

static void an_existing_file_keeps_its_bytes(void)
{
    char msg[1024];
    gpm_result r = row();
    gpm_platform p = platform();
    long long before;
    unlink(path);
    CHECK(gpm_result_append(path, &p, &r) == 0);
    before = size_of(path);
    CHECK(before > 0);
    /* Room for part of a row only: a half row must not stay. */
    CHECK_EQ_INT(append_limited((rlim_t)before + 10, msg, sizeof msg), 1);
    CHECK_MSG(msg, "the file is left as it was");
    CHECK(size_of(path) == before);
    /* And it still takes whole rows where there is room. */
    CHECK(gpm_result_append(path, &p, &r) == 0);
    CHECK(size_of(path) > before);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test-results-full-%d", t && *t ? t : "/tmp", (int)getpid());
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/rows.tsv", dir);
    RUN(a_full_device_fails_with_the_cause);
    RUN(a_new_file_that_cannot_be_written_is_removed);
    RUN(an_existing_file_keeps_its_bytes);
    unlink(path);
    rmdir(dir);
    CHECK_EXIT();
}
