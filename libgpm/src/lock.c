/* Exclusive use of a PM file, as PMDK pools have it: two runs writing one
 * file would corrupt each other silently. flock() locks are released by the
 * kernel when the holder dies (a crash trial's SIGKILL included), so a
 * stale lock never needs clearing by hand. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gpm/gpm.h"

/* The pid holding a FLOCK on (DEV, INO) according to /proc/locks, or 0. */
static int lock_holder(dev_t dev, ino_t ino)
{
    char line[256];
    int pid = 0;
    FILE *f = fopen("/proc/locks", "r");
    if (!f)
        return 0;
    while (!pid && fgets(line, sizeof line, f)) {
        char kind[16];
        unsigned maj, min;
        unsigned long long i;
        int p;
        /* "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters ("->")
         * do not match the pattern. */
        if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", kind, &p, &maj, &min, &i) == 5 &&
            strcmp(kind, "FLOCK") == 0 && maj == major(dev) && min == minor(dev) &&
            i == (unsigned long long)ino)
            pid = p;
    }
    fclose(f);
    return pid;
}

int gpm_lock_file(const char *path, int *fd_out)
{
    struct stat st;
    char comm[64] = "";
    int fd, pid;
    *fd_out = -1;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gpm_set_error("%s: cannot open to lock it (%s)", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
        *fd_out = fd;
        return 0;
    }
    if (errno != EWOULDBLOCK) {
        int e = errno;
        close(fd);
        return gpm_set_error("%s: cannot lock (%s)", path, strerror(e));
    }
    pid = fstat(fd, &st) == 0 ? lock_holder(st.st_dev, st.st_ino) : 0;
    close(fd);
    if (pid > 0) {
        char p[64];
        FILE *f;
        snprintf(p, sizeof p, "/proc/%d/comm", pid);
        if ((f = fopen(p, "r"))) {
            if (fgets(comm, sizeof comm, f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        return gpm_set_error("%s: in use by process %d (%s): wait for it to finish, or use "
                             "another PM directory", path, pid, comm[0] ? comm : "?");
    }
    return gpm_set_error("%s: in use by another process: wait for it to finish, or use "
                         "another PM directory", path);
}

void gpm_unlock_file(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor releases the flock */
}
