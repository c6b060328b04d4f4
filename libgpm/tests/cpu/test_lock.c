/* Exclusive PM files: a second taker is refused with the holder named, and
 * a killed holder leaves no stale lock. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/gpm.h"

static char path[4096];

static void second_taker_is_refused_naming_the_holder(void)
{
    int p[2], fd = -1, fd2 = -1;
    char ready, want[64];
    pid_t pid;
    CHECK(pipe(p) == 0);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int cfd;
        if (gpm_lock_file(path, &cfd) != 0)
            _exit(3);
        if (write(p[1], "x", 1) != 1)
            _exit(4);
        pause(); /* holds the lock until killed */
        _exit(0);
    }
    CHECK(read(p[0], &ready, 1) == 1);
    CHECK_EQ_INT(gpm_lock_file(path, &fd), -1);
    snprintf(want, sizeof want, "in use by process %d (test_lock)", (int)pid);
    CHECK_MSG(gpm_last_error(), want);
    CHECK_EQ_INT(fd, -1);
    /* The holder dies as a crash trial's process does: the lock goes with it. */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    CHECK_EQ_INT(gpm_lock_file(path, &fd), 0);
    /* Another descriptor of this very process is a second taker too. */
    CHECK_EQ_INT(gpm_lock_file(path, &fd2), -1);
    CHECK_MSG(gpm_last_error(), "in use by process");
    gpm_unlock_file(fd);
    CHECK_EQ_INT(gpm_lock_file(path, &fd2), 0);
    gpm_unlock_file(fd2);
    close(p[0]);
    close(p[1]);
}

static void missing_file_is_an_error(void)
{
    int fd;
    CHECK_EQ_INT(gpm_lock_file("/nonexistent/gpm-lock-test", &fd), -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent/gpm-lock-test: cannot open to lock it");
}

int main(void)
{
    FILE *f;
    snprintf(path, sizeof path, "%s/lock-%d", gpm_pm_dir(), (int)getpid());
    f = fopen(path, "w");
    if (!f) {
        printf("not ok - setup: cannot create %s\n", path);
        return 1;
    }
    fclose(f);
    RUN(second_taker_is_refused_naming_the_holder);
    RUN(missing_file_is_an_error);
    unlink(path);
    CHECK_EXIT();
}
