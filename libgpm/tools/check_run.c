/* gpm-check: running PROGRAM, and reading the log, rows and notes it left. */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* PROGRAM ARGS EXTRA..., its output in LOG; the exit status, or 128 + the
 * signal that ended it. */
int run_with(char *const *prefix, int nprefix, const struct opts *o, char *const *extra,
             int nextra, const char *log, int wait)
{
    char *av[MAX_ARGS + 48];
    int n = 0, st;
    pid_t pid;
    for (int i = 0; i < nprefix; i++)
        av[n++] = prefix[i];
    for (int i = 0; i < o->argc && i < MAX_ARGS; i++)
        av[n++] = o->argv[i];
    for (int i = 0; i < nextra; i++)
        av[n++] = extra[i];
    av[n] = NULL;
    fflush(NULL);
    if ((pid = fork()) == 0) {
        if (!freopen("/dev/null", "r", stdin) || !freopen(log, "w", stdout) ||
            dup2(fileno(stdout), 2) < 0)
            _exit(120);
        execv(av[0], av);
        fprintf(stderr, "%s: cannot run (%s)\n", av[0], strerror(errno));
        _exit(121);
    }
    if (pid < 0)
        return -1;
    if (!wait)
        return pid;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int run(const struct opts *o, char *const *extra, int nextra, const char *log, int wait)
{
    return run_with(NULL, 0, o, extra, nextra, log, wait);
}

void last_line(const char *path, char *out, size_t len)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n' && strncmp(line, "gpu\t", 4) != 0 && !strchr(line, '\t'))
            snprintf(out, len, "%.*s", (int)strcspn(line, "\n"), line);
    if (f)
        fclose(f);
}

/* Column COL of the last row of ROWS (a TSV whose first line is its
 * header) into OUT: 0, or -1 where it has none. */
int last_field(const char *rows, const char *col, char *out, size_t len)
{
    char line[16384], head[16384];
    int c = -1, k = 0, found = -1;
    FILE *f = fopen(rows, "r");
    if (!f || !fgets(head, sizeof head, f)) {
        if (f)
            fclose(f);
        return -1;
    }
    for (char *p = strtok(head, "\t\n"); p; p = strtok(NULL, "\t\n"), k++)
        if (strcmp(p, col) == 0)
            c = k;
    while (c >= 0 && fgets(line, sizeof line, f)) {
        k = 0;
        for (char *p = strtok(line, "\t\n"); p; p = strtok(NULL, "\t\n"), k++)
            if (k == c) {
                snprintf(out, len, "%s", p);
                found = 0;
            }
    }
    fclose(f);
    return found;
}

/* The median_s of the last row of ROWS (the run's timed work), or NAN. */
double median_s(const char *rows)
{
    char v[64];
    return last_field(rows, "median_s", v, sizeof v) == 0 ? strtod(v, NULL) : NAN;
}

/* The verified column of the last row of ROWS: 1 ok, 0 fail, -1 none. */
int verified(const char *rows)
{
    char v[16];
    return last_field(rows, "verified", v, sizeof v) == 0 ? strcmp(v, "ok") == 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes DIR and what is in it; a failure is said, not fatal. */
void remove_tree(const char *dir)
{
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "%s: cannot remove %s (%s)\n", PROG, dir, strerror(errno));
}

const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The value of KEY in a row's PARAMS (k=v,...), or NULL. */
const char *param_at(const char *params, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = params; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, key, n) && p[n] == '=')
            return p + n + 1;
    return NULL;
}

const char *run_word(const gpm_ptrace *t, const char *key, char *buf, size_t n, const char *dflt)
{
    const char *v = param_at(t->run, key);
    if (!v)
        return dflt;
    snprintf(buf, n, "%.*s", (int)strcspn(v, ","), v);
    return buf;
}
