/* gpm-check: crashes during recovery. --from checks the recovery of one
 * crash image; --nested runs gpm-check --from on the images whose
 * recoveries had most to do, and adds up what those checks found. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpm/gpm.h"

/* Every file of SRC into DST: a crash image, for a traced recovery. */
int copy_files(const char *src, const char *dst)
{
    char from[8400], to[8400], buf[1 << 16];
    struct dirent *e;
    DIR *d = opendir(src);
    int rc = 0;
    if (!d)
        return gpm_set_error("--from %s: cannot read it (%s): pass a folder of PM files", src,
                             strerror(errno));
    while (rc == 0 && (e = readdir(d))) {
        struct stat st;
        FILE *in, *out = NULL;
        size_t n;
        snprintf(from, sizeof from, "%s/%s", src, e->d_name);
        if (stat(from, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
        if (!(in = fopen(from, "rb")) || !(out = fopen(to, "wb")))
            rc = gpm_set_error("--from: cannot copy %s to %s (%s)", from, to, strerror(errno));
        while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
            if (fwrite(buf, 1, n, out) != n)
                rc = gpm_set_error("--from: cannot write %s (%s)", to, strerror(errno));
        if (in)
            fclose(in);
        if (out && fclose(out) != 0 && rc == 0)
            rc = gpm_set_error("--from: cannot write %s", to);
    }
    closedir(d);
    return rc;
}

/* --nested: the images whose recoveries to crash, WANT at most, into
 * PICK: those whose recovery had most to do first (an undo, then a resume,
 * then nothing), each level's spread over its crash points. */
static int pick_nested(const struct image *im, int n, int want, int *pick)
{
    int *level = malloc((size_t)(n ? n : 1) * sizeof *level), got = 0;
    if (!level)
        return 0;
    for (int w = 2; w >= 0 && got < want; w--) {
        int m = 0, need = want - got;
        for (int k = 0; k < n; k++)
            if (im[k].work == w && im[k].verdict == RECOVERED)
                level[m++] = k;
        for (int j = 0; j < m && j < need; j++)
            pick[got++] = level[m <= need ? j : (int)((long long)m * j / need)];
    }
    free(level);
    return got;
}

/* The first failure a nested check's LOG describes, indented. */
static void show_first_failure(const char *log)
{
    char line[1024];
    int shown = -1;
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f) && shown < 9) {
        if (shown < 0 && strncmp(line, "gpm-check: FAILED image ", 24) == 0)
            shown = 0;
        else if (shown >= 0 && line[0] != ' ')
            break;
        if (shown >= 0 && shown++ >= 0)
            printf("    %s", line);
    }
    if (f)
        fclose(f);
}

/* The counts of a nested check's row, by their keys in its params. */
#define AT(field) offsetof(struct nested_counts, field)
static const struct {
    const char *key;
    size_t at;
} nested_keys[] = {{"images", AT(images)},           {"recovered", AT(by.recovered)},
                   {"wrong", AT(by.wrong)},          {"crashed", AT(by.crashed)},
                   {"refused", AT(by.refused)},      {"removed", AT(removed)},
                   {"held_stores", AT(held_stores)}, {"held_images", AT(held_images)}};

static long long *nested_count(struct nested_counts *n, int i)
{
    return (long long *)((char *)n + nested_keys[i].at);
}

/* --nested: image K checked again with --from, its images' verdicts (and
 * of a mutant, the removed persist points, the stores they held back and
 * the images there) added to TOTAL; 0 when every one recovered. */
static int check_recovery(const struct check *c, int k, struct nested_counts *total)
{
    const struct opts *o = &c->o;
    char dir[4300], from[4400], check[4400], rows[4400], log[4400], images[32], seed[32];
    char jobs[32], params[2048];
    char *self[] = {"/proc/self/exe", "--from", from, "--images", images, "--model",
                    (char *)gpm_model_name(o->model), "--seed", seed, "--jobs", jobs,
                    "--dir", check, "--out", rows, "--honour", (char *)o->honour};
    struct nested_counts v = {0};
    int rc;
    snprintf(dir, sizeof dir, "%s/nested-%d", c->work, k);
    snprintf(from, sizeof from, "%s/image", dir);
    snprintf(check, sizeof check, "%s/check", dir);
    snprintf(rows, sizeof rows, "%s/row.tsv", dir);
    snprintf(log, sizeof log, "%s.log", dir);
    /* A quarter of the images for each, and no fewer than 10. */
    snprintf(images, sizeof images, "%d", o->images / 4 > 10 ? o->images / 4 : 10);
    snprintf(seed, sizeof seed, "%llu", o->seed);
    snprintf(jobs, sizeof jobs, "%d", o->jobs);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return gpm_set_error("cannot create %s (%s)", dir, strerror(errno));
    if (put_image(c, from, &c->im[k]) != 0)
        return -1;
    rc = run_with(self, (int)(sizeof self / sizeof self[0]) - (o->honour ? 0 : 2), o, NULL, 0,
                  log, 1);
    if (last_field(rows, "params", params, sizeof params) != 0) {
        last_line(log, params, sizeof params);
        printf("gpm-check: the check of image %d's recovery could not run (exit %d): %s (its "
               "folder and log stay in %s)\n", k, rc, params, dir);
        total->images++;
        return 1;
    }
    for (int i = 0; i < (int)(sizeof nested_keys / sizeof nested_keys[0]); i++) {
        const char *x = param_at(params, nested_keys[i].key);
        long long n = x ? strtoll(x, NULL, 10) : 0;
        *nested_count(total, i) += *nested_count(&v, i) = n > 0 ? n : 0;
    }
    printf("gpm-check: image %d's recovery, crashed: %lld images, ", k, v.images);
    print_verdicts(&v.by);
    printf("%s\n", strstr(params, "complete=no") ? "; trace incomplete" : "");
    if (rc != 0) {
        show_first_failure(log);
        printf("gpm-check: its failing images, and the recovery's trace, stay in %s (log %s)\n",
               check, log);
        return 1;
    }
    if (!o->keep) { /* --keep: the image, for a --from of one's own */
        remove_tree(dir);
        unlink(log);
    }
    return 0;
}

/* --nested: crashes during the recoveries that had most to do, added up
 * in TOTAL; how many of those checks failed. */
int check_nested(struct check *c, struct nested_counts *total)
{
    int *pick = malloc((size_t)c->o.nested * sizeof *pick), fails = 0;
    total->checked = pick ? pick_nested(c->im, c->n, c->o.nested, pick) : 0;
    for (int j = 0; j < total->checked; j++)
        if (check_recovery(c, pick[j], total) != 0)
            fails++;
    free(pick);
    printf("gpm-check: %d recoveries checked for crashes: %lld images, ", total->checked,
           total->images);
    print_verdicts(&total->by);
    printf("\n");
    return fails;
}
