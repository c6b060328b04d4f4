/* gpm-check: the images' recoveries, and the verdict on each. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "gpm/gpm.h"

/* The verdict on an image from its recovery's exit status and rows. */
static void judge(struct image *im, int status, const char *dir)
{
    char rows[4400];
    int ok;
    snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
    ok = verified(rows);
    im->status = status;
    im->verdict = status == 0 && ok == 1   ? RECOVERED
                  : status == 1 && ok == 0 ? WRONG_OUTPUT
                  : status >= 128          ? CRASHED
                                           : REFUSED;
}

/* Recovers the images WHICH[0..COUNT-1], each in a process of its own,
 * --jobs at once. */
static void recover_alone(const struct check *c, const int *which, int count)
{
    const struct opts *o = &c->o;
    for (int i = 0; i < count;) {
        pid_t pid[256];
        int batch = 0;
        for (; i < count && batch < o->jobs && batch < 256; i++, batch++) {
            char dir[4300], rows[4400], out[4400];
            char *rec[] = {"--recover", "--pm-dir", dir, "--out", rows};
            image_dir(c->work, which[i], dir, sizeof dir);
            snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
            snprintf(out, sizeof out, "%s/recover.log", dir);
            unlink(rows); /* a row from an earlier try must not stand for this one */
            pid[batch] = run(o, rec, 5, out, 0);
        }
        for (int b = 0; b < batch; b++) {
            int k = which[i - batch + b], st = 0;
            char dir[4300];
            image_dir(c->work, k, dir, sizeof dir);
            if (pid[b] < 0 || waitpid(pid[b], &st, 0) != pid[b])
                st = 127 << 8;
            judge(&c->im[k], WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), dir);
        }
    }
}

/* The exit status that a recovery of GPM_RECOVER_EACH left in DIR/status,
 * or -1 where it left none (it ended the process, or never ran). */
static int status_left(const char *dir)
{
    char path[4400];
    int st = -1;
    FILE *f;
    snprintf(path, sizeof path, "%s/status", dir);
    if ((f = fopen(path, "r"))) {
        if (fscanf(f, "%d", &st) != 1)
            st = -1;
        fclose(f);
    }
    return st;
}

/* Recovers the images FIRST..FIRST+COUNT-1, already written: processes
 * share their list, each recovering the next image that none has claimed
 * (GPM_RECOVER_EACH, workloads/common/recover_each.c), and so open the GPU
 * once per process instead of once per image. Only a "recovered" from
 * there counts: every other image, and any that a process did not reach,
 * is written again and recovered in a process of its own, whose verdict
 * stands. --isolate: every image in a process of its own. */
int recover_round(struct check *c, int first, int count, int *alone)
{
    const struct opts *o = &c->o;
    struct image *im = c->im;
    /* A process pays for opening the GPU, and many at once pay more: on an
     * H100, 16 processes took 3.3 s to recover 27 images and 4 s for 100,
     * the processes' cost, not the images'. */
    int workers = (count + IMAGES_PER_PROCESS - 1) / IMAGES_PER_PROCESS, *again, nagain = 0;
    pid_t pid[256];
    char *rec[] = {"--recover"};
    if (workers > o->jobs)
        workers = o->jobs;
    if (workers > 256)
        workers = 256;
    if (!o->isolate) {
        char list[4300], dir[4300];
        FILE *f;
        snprintf(list, sizeof list, "%s/images", c->work);
        if (!(f = fopen(list, "w")))
            return gpm_set_error("cannot write %s (%s)", list, strerror(errno));
        for (int k = first; k < first + count; k++) {
            image_dir(c->work, k, dir, sizeof dir);
            fprintf(f, "%s\n", dir);
        }
        if (fclose(f) != 0)
            return gpm_set_error("cannot write %s", list);
        setenv("GPM_RECOVER_EACH", list, 1);
    }
    if (!(again = malloc((size_t)count * sizeof *again)))
        return gpm_set_error("out of memory");
    for (int w = 0; !o->isolate && w < workers; w++) {
        char log[4300];
        snprintf(log, sizeof log, "%s/recover-each-%d.log", c->work, w);
        pid[w] = run(o, rec, 1, log, 0);
    }
    unsetenv("GPM_RECOVER_EACH");
    for (int w = 0; !o->isolate && w < workers; w++)
        if (pid[w] > 0)
            waitpid(pid[w], NULL, 0);
    for (int k = first; k < first + count; k++) {
        char dir[4300];
        int st;
        image_dir(c->work, k, dir, sizeof dir);
        if (!o->isolate && (st = status_left(dir)) >= 0) {
            judge(&im[k], st, dir);
            if (im[k].verdict == RECOVERED)
                continue;
        }
        if (!o->isolate && put_image(c, dir, &im[k]) != 0) {
            free(again);
            return -1;
        }
        again[nagain++] = k;
    }
    recover_alone(c, again, nagain);
    *alone += nagain;
    free(again);
    return 0;
}

/* What the recovery in DIR found, from its row's notes: IM->work, 2 a
 * transaction to undo, 1 work to resume from a crash mid-way, 0 none;
 * IM->durable, the share of the work it found durable (-1: not said); and
 * where its output was wrong, how wrong (wrong_units and the rest of
 * wl_note_wrong's notes). */
void recovery_found(const char *dir, struct image *im)
{
    char rows[4400], params[8192];
    const char *d;
    unsigned long long done, total;
    im->work = 0;
    im->durable = im->wrong_share = im->wrong_err = -1;
    im->err_kind[0] = im->units[0] = '\0';
    im->wrong_marks = 0;
    snprintf(rows, sizeof rows, "%s/rows.tsv", dir);
    if (last_field(rows, "params", params, sizeof params) != 0)
        return;
    im->work = strstr(params, "tx_was_active=1") ? 2 : strstr(params, "trial=mid-work") ? 1 : 0;
    if ((d = strstr(params, "durable=")) && sscanf(d, "durable=%llu/%llu", &done, &total) == 2 &&
        total > 0)
        im->durable = (double)done / (double)total;
    if ((d = param_at(params, "wrong_units")) && sscanf(d, "%llu/%llu", &done, &total) == 2 &&
        total > 0)
        im->wrong_share = (double)done / (double)total;
    if ((d = param_at(params, "units")))
        sscanf(d, "%31[^,]", im->units);
    if ((d = param_at(params, "wrong_max_err")))
        im->wrong_err = strtod(d, NULL);
    if ((d = param_at(params, "wrong_err")))
        sscanf(d, "%7[^,]", im->err_kind);
    if ((d = param_at(params, "wrong_marks")) && sscanf(d, "%llu/%llu", &done, &total) == 2)
        im->wrong_marks = done > 0;
}
