/* Checks made once: verdicts of costly output checks, kept by the digest of
 * the output and a key of everything that decides what the output must be
 * (see wl.h). A cached verdict stands for a check of the same bytes by the
 * same code on the same inputs, so it is the check's own verdict. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "code_key.h"
#include "harness.h"
#include "wl_hd.h"

/* On unless GPM_CHECK_CACHE=off (a setting of every run of an experiment,
 * not of one command line); -1 with the message for another value. */
static int cache_on(void)
{
    const char *e = getenv("GPM_CHECK_CACHE");
    if (!e || !*e || strcmp(e, "on") == 0)
        return 1;
    if (strcmp(e, "off") == 0)
        return 0;
    return gpm_set_error("GPM_CHECK_CACHE=%s: pass on or off (or leave it unset: on)", e);
}

/* H and what stat says of PATH: its device, inode, size and time of last
 * change, which a rewrite of the file changes. */
static uint64_t mix_stat(uint64_t h, const char *path, const struct stat *st)
{
    h = gpm_mix64(h ^ (uint64_t)st->st_dev) ^ (uint64_t)st->st_ino;
    h = gpm_mix64(h ^ (uint64_t)st->st_size) ^ (uint64_t)st->st_mtim.tv_sec;
    h = gpm_mix64(h ^ (uint64_t)st->st_mtim.tv_nsec) ^ (uint64_t)st->st_ctim.tv_nsec;
    for (const char *t = path; *t; t++)
        h = gpm_mix64(h ^ (unsigned char)*t);
    return h;
}

/* The input files that string parameters name (a path, a comma list of
 * paths, or a folder of files): a dataset rewritten in place is another
 * input, so its outputs are checked anew. Names that are no file (gen, a
 * store's name) add nothing: the parameters already say them. */
static uint64_t inputs_key(const struct wl_ctx *c)
{
    uint64_t h = 0;
    for (int i = 0; c->wl->params && c->wl->params[i].flag; i++) {
        char value[1024], path[2200];
        struct stat st;
        if (c->wl->params[i].type != WL_STR || !c->p[i].s)
            continue;
        snprintf(value, sizeof value, "%s", c->p[i].s);
        for (char *save, *one = strtok_r(value, ",", &save); one;
             one = strtok_r(NULL, ",", &save)) {
            DIR *d;
            struct dirent *e;
            if (stat(one, &st) != 0)
                continue;
            h = mix_stat(h, one, &st);
            if (!S_ISDIR(st.st_mode) || !(d = opendir(one)))
                continue;
            /* Its files, in any order the folder lists them. */
            while ((e = readdir(d)))
                if (e->d_name[0] != '.') {
                    snprintf(path, sizeof path, "%s/%s", one, e->d_name);
                    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                        h += mix_stat(0x66696c65, path, &st);
                }
            closedir(d);
        }
    }
    return h;
}

/* The code that ran (code_key.c), the workload, its operation and
 * parameters, the input files they name and the seed: a verdict is reused
 * only by the same code on the same inputs, so a changed reference or
 * dataset never meets a verdict reached by another. 0 with nothing set
 * where the code cannot be keyed: then nothing is cached. */
static int key_of(const struct wl_ctx *c, uint64_t *key)
{
    char text[2048], params[1536];
    uint64_t h = 0xcbf29ce484222325ull, code;
    if (wl_code_key(&code) != 0)
        return 0;
    wl_params_string(c, params, sizeof params);
    snprintf(text, sizeof text, "%016llx|%s|%s|%s|%llu|%016llx", (unsigned long long)code,
             c->wl->name, c->h->opt.custom ? "custom" : wl_scale_name(c->h->opt.scale), params,
             (unsigned long long)c->h->opt.seed, (unsigned long long)inputs_key(c));
    for (const char *t = text; *t; t++)
        h = (h ^ (unsigned char)*t) * 0x100000001b3ull;
    *key = gpm_mix64(h);
    return 1;
}

static int cache_path(char *path, size_t n)
{
    const char *dir = wl_data_dir();
    if (!dir)
        return -1;
    snprintf(path, n, "%s/checked.tsv", dir);
    return 0;
}

int wl_check_digest(struct wl_ctx *c, const void *p, size_t bytes, int on_device)
{
    uint64_t *d = c->h->check_digest, words = bytes / 8, a = 0, b = 0;
    const unsigned char *s = p;
    if (on_device) {
        if (wl_dev_digest(p, bytes, d[2], &d[0], &d[1]) != 0)
            return -1;
        d[2] += (bytes + 7) / 8;
        return 0;
    }
#pragma omp parallel for schedule(static) reduction(+ : a, b)
    for (uint64_t i = 0; i < words; i++) {
        uint64_t w;
        memcpy(&w, s + 8 * i, 8);
        wl_digest_word(w, d[2] + i, &a, &b);
    }
    if (bytes % 8) {
        uint64_t w = 0;
        memcpy(&w, s + 8 * words, bytes % 8);
        wl_digest_word(w, d[2] + words, &a, &b);
    }
    d[0] += a, d[1] += b, d[2] += (bytes + 7) / 8;
    return 0;
}

int wl_check_known(struct wl_ctx *c)
{
    char path[4200], line[256];
    uint64_t key, k, a, b;
    FILE *f;
    int found = 0, on = cache_on();
    if (on < 0)
        return -1;
    if (!on || !key_of(c, &key) || cache_path(path, sizeof path) != 0)
        return 0;
    if (!(f = fopen(path, "r")))
        return 0; /* nothing checked yet */
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "%*s %" SCNx64 " %" SCNx64 " %" SCNx64, &k, &a, &b) == 3 &&
                k == key && a == c->h->check_digest[0] && b == c->h->check_digest[1];
    fclose(f);
    if (found)
        wl_note(c, "check=cached:%016" PRIx64, c->h->check_digest[0]);
    return found;
}

int wl_check_passed(struct wl_ctx *c)
{
    char path[4200];
    uint64_t key;
    FILE *f;
    if (cache_on() != 1 || !key_of(c, &key) || cache_path(path, sizeof path) != 0)
        return 0;
    /* One short line, appended: processes running at once do not mix. */
    if (!(f = fopen(path, "a")))
        return 0; /* a cache that cannot be written only costs time */
    fprintf(f, "%s %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n", c->wl->name, key,
            c->h->check_digest[0], c->h->check_digest[1]);
    fclose(f);
    return 0;
}
