/* gpm-check: the crash images, chosen (plan) and written as PM files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpm/gpm.h"
#include "gpm/hd.h"

static int write_image(const gpm_ptrace *t, uint8_t **img, const char *dir)
{
    char path[8400];
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return gpm_set_error("%s: cannot create it (%s)", dir, strerror(errno));
    for (uint32_t o = 0; o < t->nobj; o++) {
        FILE *f;
        if (!t->obj[o].path[0])
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, base_name(t->obj[o].path));
        if (!(f = fopen(path, "wb")) || fwrite(img[o], 1, t->obj[o].size, f) != t->obj[o].size) {
            if (f)
                fclose(f);
            return gpm_set_error("%s: cannot write the image (%s)", path, strerror(errno));
        }
        fclose(f);
    }
    return 0;
}

/* The image at CRASH as the model builds it into C->img (gpm_image,
 * gpm_sbrp_image, and a mutant's gpm_image_spare and _torn). */
static uint64_t image_of(const struct check *c, uint64_t crash, gpm_pick pick, uint64_t *arg,
                         uint64_t *pending)
{
    if (c->sbrp)
        return gpm_sbrp_image(&c->t, c->sbrp, crash, pick, arg, c->img, pending);
    if (pick == GPM_SPARE && c->unmutated)
        return gpm_image_spare(&c->t, c->dur, c->unmutated, crash, *arg, c->img, pending);
    if (pick == GPM_SPARE_TORN && c->unmutated)
        return gpm_image_spare_torn(&c->t, c->dur, c->unmutated, crash, *arg, c->img, pending);
    return gpm_image(&c->t, c->dur, crash, pick, arg, c->img, pending);
}

static int seen(uint64_t *hashes, int n, uint64_t h)
{
    for (int i = 0; i < n; i++)
        if (hashes[i] == h)
            return 1;
    return 0;
}

/* The candidates, in the order they are tried, until N unique images:
 * the end of the work with what is pending dropped and applied; each
 * persist point (an even sample where there are more than a quarter of N)
 * with what is pending dropped, then applied; every subset of the pending
 * words where there are few; random crash points and random subsets for
 * the rest. Into C->im, counted by strategy in COUNTS; how many, or -1. */
int plan(struct check *c, struct image_counts *counts)
{
    const gpm_ptrace *t = &c->t;
    const uint64_t *dur = c->dur;
    const struct opts *o = &c->o;
    struct image *im = c->im;
    uint64_t *persist = malloc((t->nev + 1) * sizeof *persist), np = 0, rng = o->seed;
    uint64_t *hashes = malloc((size_t)o->images * sizeof *hashes);
    uint64_t *canon = calloc(t->nev + 1, sizeof *canon);
    uint8_t *decided = calloc(t->nev + 1, 1);
    int n = 0, tries = 0;
    if (!persist || !hashes || !canon || !decided) {
        n = gpm_set_error("out of memory");
        goto out;
    }
    for (uint64_t k = 0; k < t->nev; k++)
        if (gpm_ptrace_is_persist(t, k))
            persist[np++] = k + 1;
    /* Crash points C and C + 1 give the same images unless event C is a
     * store or makes one durable: CANON[C] is the first crash point of
     * C's class. Where an image there had nothing pending, every image
     * there is that one (DECIDED), and a random try there is not built
     * again: under eADR, say, most tries would be. */
    for (uint64_t k = 0; k < t->nev; k++)
        if (dur[k] < t->nev)
            canon[dur[k] + 1] = 1; /* a mark, for now */
    for (uint64_t c = 1, first = 0; c <= t->nev; c++) {
        if (canon[c] || t->ev[c - 1].kind == GPM_TR_STORE)
            first = c;
        canon[c] = first;
    }
#define TRY(T, PICK, ARG, WHAT, COUNT)                                                 \
    do {                                                                               \
        uint64_t a_ = (ARG), p_;                                                       \
        uint64_t h_ = image_of(c, (T), (PICK), &a_, &p_);                              \
        tries++;                                                                       \
        if (p_ == 0)                                                                   \
            decided[canon[(T)]] = 1;                                                   \
        if (n < o->images && !seen(hashes, n, h_)) {                                   \
            im[n] = (struct image){.crash = (T), .arg = (ARG), .hash = h_, .pending = p_, \
                                   .pick = (PICK), .strategy = (WHAT), .durable = -1,  \
                                   .wrong_share = -1, .wrong_err = -1};                \
            hashes[n++] = h_;                                                          \
            counts->COUNT++;                                                           \
        }                                                                              \
    } while (0)
    TRY(t->nev, GPM_DROP, 0, "end", end);
    TRY(t->nev, GPM_APPLY, 0, "end", end);
    if (c->unmutated) {
        /* A mutant: half the images, at most, where its removal holds
         * stores back, best points first: those dropped and the rest
         * applied (the other threads' progress that needed them), then
         * each held-back word dropped or not (a torn record), then those
         * dropped and the rest of their objects torn (a copy in flight
         * beside a held-back flag), then all dropped. A point whose
         * images were all built already costs none of the share. */
        int share = n + o->images / 2;
        for (uint64_t i = 0; i < c->held.nat && n < share && n < o->images; i++) {
            uint64_t at = c->held.at[i];
            TRY(at, GPM_SPARE, 0, "held back by the mutant", held_back);
            TRY(at, GPM_SPARE, gpm_mix64(rng++) | 1, "held back by the mutant", held_back);
            TRY(at, GPM_SPARE_TORN, gpm_mix64(rng++) | 1, "held back by the mutant", held_back);
            TRY(at, GPM_DROP, 0, "held back by the mutant", held_back);
        }
    }
    {
        /* Half the images at most: the other half is for subsets. */
        uint64_t want = np < (uint64_t)o->images / 4 ? np : (uint64_t)o->images / 4;
        for (uint64_t i = 0; i < want && n < o->images; i++) {
            uint64_t at = persist[want == np ? i : i * np / want];
            TRY(at, GPM_DROP, 0, "persist point", persist_points);
            TRY(at, GPM_APPLY, 0, "persist point", persist_points);
        }
    }
    for (uint64_t i = 0; i < np && n < o->images * 3 / 4; i += np / 16 + 1) {
        uint64_t p = 0;
        image_of(c, persist[i], GPM_DROP, &p, &p);
        if (p == 0 || p > 6)
            continue;
        for (uint64_t m = 1; m < (1ull << p) && n < o->images * 3 / 4; m++)
            TRY(persist[i], GPM_MASK, m, "exhaustive", exhaustive);
    }
    while (n < o->images && tries < 20 * o->images) {
        uint64_t crash = gpm_mix64(rng++) % (t->nev + 1), arg = gpm_mix64(rng++);
        if (decided[canon[crash]])
            tries++;
        else
            TRY(crash, GPM_RANDOM, arg, "random", random);
    }
#undef TRY
out:
    free(persist);
    free(hashes);
    free(canon);
    free(decided);
    return n;
}

void image_dir(const char *work, int k, char *dir, size_t len)
{
    snprintf(dir, len, "%s/img-%d", work, k);
}

/* IM into folder DIR as the model built it: anything a recovery left there is gone. */
int put_image(const struct check *c, const char *dir, const struct image *im)
{
    if (access(dir, F_OK) == 0)
        remove_tree(dir);
    image_of(c, im->crash, im->pick, &(uint64_t){im->arg}, NULL);
    return write_image(&c->t, c->img, dir);
}

/* Images written at once: --jobs processes' worth, within 2 GiB (each is
 * a copy of every PM file), and never fewer than --jobs. */
int round_size(const struct check *c)
{
    const struct opts *o = &c->o;
    const gpm_ptrace *t = &c->t;
    uint64_t bytes = 1, n;
    for (uint32_t k = 0; k < t->nobj; k++)
        bytes += t->obj[k].size;
    n = ((uint64_t)2 << 30) / bytes;
    if (n > (uint64_t)o->jobs * IMAGES_PER_PROCESS)
        n = (uint64_t)o->jobs * IMAGES_PER_PROCESS;
    return n < (uint64_t)o->jobs ? o->jobs : (int)n;
}
