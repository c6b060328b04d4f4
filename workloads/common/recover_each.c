/* GPM_RECOVER_EACH=LIST, set by gpm-check: recover the crash images whose
 * folders LIST names (one per line), one after another in this process,
 * each with the command line given plus --pm-dir FOLDER --out
 * FOLDER/rows.tsv. Several processes may share LIST: each takes the next
 * folder that none has claimed (FOLDER/claimed, made exclusively), so the
 * one that started first, or whose images recover fastest, does more.
 * Each one's output goes to FOLDER/recover.log, and its exit status, once
 * it has one, to FOLDER/status. Opening the GPU (and loading cuDNN) once
 * for many images instead of once each is what lets a check recover a
 * hundred images in seconds. It is a variable, not a flag, as libgpm's
 * GPM_MUTATE and GPM_TRACE_RING are: gpm-check sets it around whatever
 * command recovers, and a program that does not know it recovers one
 * image, as it would anyway, where a flag it did not know would stop it.
 *
 * What one recovery leaves must not help the next one pass: memory is
 * poisoned when malloc hands it out and when it is freed (M_PERTURB), and
 * device memory when wl_dev_alloc hands it out, so a recovery that reads
 * what it never wrote reads garbage, as it would in a fresh process. A
 * folder with no status is one whose recovery ended the process: gpm-check
 * runs it, and every image not recovered here, again in a process of its
 * own, whose verdict is the one it reports. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MAX_ARGS 256

/* FOLDER/status: the exit status, in place at once or not at all. */
static int write_status(const char *dir, int status)
{
    char tmp[4200], path[4200];
    FILE *f;
    snprintf(tmp, sizeof tmp, "%s/status.tmp", dir);
    snprintf(path, sizeof path, "%s/status", dir);
    if (!(f = fopen(tmp, "w")))
        return -1;
    fprintf(f, "%d\n", status);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

/* 1 where this process claimed FOLDER, 0 where another did, -1 error. */
static int claim(const char *dir)
{
    char path[4200];
    int fd;
    snprintf(path, sizeof path, "%s/claimed", dir);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0) {
        close(fd);
        return 1;
    }
    return errno == EEXIST ? 0 : -1;
}

/* Standard output and error into FOLDER/recover.log. */
static int redirect(const char *dir)
{
    char path[4200];
    int fd;
    snprintf(path, sizeof path, "%s/recover.log", dir);
    fflush(NULL);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return -1;
    if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static int recover_each(const struct wl_workload *w, const char *list, int argc, char **argv)
{
    char dir[4096], rows[4200], *av[MAX_ARGS + 5];
    int err = dup(2), bad = 0;
    FILE *f = fopen(list, "r");

    if (!f || argc > MAX_ARGS) {
        dprintf(err, "%s: GPM_RECOVER_EACH: %s: %s\n", w->name, list,
                f ? "too many arguments" : "cannot open the list of image folders");
        if (f)
            fclose(f);
        close(err);
        return 2;
    }
    mallopt(M_PERTURB, 0xa5);
    wl_dev_poison(0xa5);
    memcpy(av, argv, (size_t)argc * sizeof *av);
    while (fgets(dir, sizeof dir, f)) {
        int status, got;
        dir[strcspn(dir, "\n")] = '\0';
        if (!dir[0] || (got = claim(dir)) == 0)
            continue;
        if (got < 0) {
            dprintf(err, "%s: GPM_RECOVER_EACH: cannot claim %s (%s)\n", w->name, dir,
                    strerror(errno));
            bad = 1;
            break;
        }
        snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
        av[argc] = "--pm-dir";
        av[argc + 1] = dir;
        av[argc + 2] = "--out";
        av[argc + 3] = rows;
        av[argc + 4] = NULL;
        if (redirect(dir) != 0) {
            dprintf(err, "%s: GPM_RECOVER_EACH: cannot write %s/recover.log\n", w->name, dir);
            bad = 1;
            break;
        }
        status = wl_run(w, argc + 4, av);
        fflush(NULL);
        if (write_status(dir, status) != 0) {
            dprintf(err, "%s: GPM_RECOVER_EACH: cannot write %s/status\n", w->name, dir);
            bad = 1;
            break;
        }
    }
    fclose(f);
    close(err);
    return bad ? 2 : 0;
}

/* The whole program: a recovery of each image where gpm-check asks for
 * them, else one run. */
int wl_main(const struct wl_workload *w, int argc, char **argv)
{
    const char *list = getenv("GPM_RECOVER_EACH");
    return list && *list ? recover_each(w, list, argc, argv) : wl_run(w, argc, argv);
}
