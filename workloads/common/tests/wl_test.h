/* For tests that run a whole workload program in-process: its main in a
 * child (so that exits, crashes and SIGKILLs stay there), and what it wrote:
 * line counts, first and last lines. */
#ifndef WL_TEST_H
#define WL_TEST_H

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* C, a context with nothing set, for tests that call the harness's
 * helpers directly; H its harness's part. */
static inline void wl_test_ctx(struct wl_ctx *c, struct wl_harness *h)
{
    memset(c, 0, sizeof *c);
    memset(h, 0, sizeof *h);
    c->h = h;
}

/* The length of an argv array literal A, for wl_test_run. */
#define ARGC(a) ((int)(sizeof(a) / sizeof(a[0])))

/* Runs wl_main(W, ARGC, ARGV) in a child with stdout on /dev/null and
 * stderr, unbuffered, in ERR (NULL: /dev/null); returns its exit status, or
 * 128 + the signal that ended it. */
static inline int wl_test_run(const struct wl_workload *w, char **argv, int argc,
                              const char *err)
{
    pid_t pid;
    int st;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen(err ? err : "/dev/null", "w", stderr))
            _exit(99);
        setvbuf(stderr, NULL, _IONBF, 0); /* a killed child leaves its lines */
        _exit(wl_main(w, argc, argv));
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Lines of PATH containing NEEDLE (-1: unreadable). */
static inline int wl_test_count_lines(const char *path, const char *needle)
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

/* The first, or the last, line of PATH without its newline into OUT (LEN
 * bytes); empty when PATH cannot be read or is empty. */
static inline void wl_test_line(const char *path, int last, char *out, size_t len)
{
    char line[8192];
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\n");
        if (n >= len)
            n = len - 1; /* cut to OUT's size */
        memcpy(out, line, n);
        out[n] = '\0';
        if (!last)
            break;
    }
    fclose(f);
}

/* The field named NAME (a header column) of PATH's last row into OUT (LEN
 * bytes); empty when either is missing. */
static inline void wl_test_field(const char *path, const char *name, char *out, size_t len)
{
    char head[8192], row[8192], *h, *r, *hs = NULL, *rs = NULL;
    out[0] = '\0';
    wl_test_line(path, 0, head, sizeof head);
    wl_test_line(path, 1, row, sizeof row);
    for (h = strtok_r(head, "\t", &hs), r = strtok_r(row, "\t", &rs); h && r;
         h = strtok_r(NULL, "\t", &hs), r = strtok_r(NULL, "\t", &rs))
        if (strcmp(h, name) == 0) {
            snprintf(out, len, "%s", r);
            return;
        }
}

/* The first file of DIR whose name matches PATTERN (a shell glob: a
 * workload's PM file, "ps-custom-*.sums") into OUT (LEN bytes): 0, or -1
 * where none matches or it does not fit. */
static inline int wl_test_path(const char *dir, const char *pattern, char *out, size_t len)
{
    char want[4400];
    glob_t g;
    int rc = -1;
    snprintf(want, sizeof want, "%s/%s", dir, pattern);
    if (glob(want, 0, NULL, &g) == 0 && g.gl_pathc > 0 && strlen(g.gl_pathv[0]) < len) {
        snprintf(out, len, "%s", g.gl_pathv[0]);
        rc = 0;
    }
    globfree(&g);
    return rc;
}

/* A test's scratch directory NAME-PID under GPM_PM_DIR (else /dev/shm),
 * where its programs keep their PM files, into DIR (4096 bytes); ROWS and
 * ERRF (4200 bytes each, either may be NULL) name its rows.tsv and stderr. */
static inline void wl_test_scratch(const char *name, char *dir, char *rows, char *errf)
{
    const char *pm = getenv("GPM_PM_DIR");
    snprintf(dir, 4096, "%s/%s-%d", pm && *pm ? pm : "/dev/shm", name, (int)getpid());
    mkdir(dir, 0700);
    if (rows)
        snprintf(rows, 4200, "%s/rows.tsv", dir);
    if (errf)
        snprintf(errf, 4200, "%s/stderr", dir);
}

/* Removes the scratch directory DIR and everything in it. */
static inline void wl_test_scratch_remove(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot clean %s\n", dir);
}

#endif
