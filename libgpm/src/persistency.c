/* The persistency model (gpm/persistency.h): a trace read back, each
 * store's durable point under a model, crash images, and the completeness
 * replay. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/gpm.h"
#include "gpm/hd.h"
#include "gpm/persistency.h"
#include "persistency_internal.h"

#define LINE 64u /* a flush writes back whole lines */

static const char *const model_names[] = {"strict", "eadr", "ndp", "none", "sbrp"};
#define NMODELS (sizeof model_names / sizeof model_names[0])

int gpm_model_parse(const char *name, gpm_model *m)
{
    for (unsigned k = 0; k < NMODELS; k++)
        if (strcmp(name, model_names[k]) == 0) {
            *m = (gpm_model)k;
            return 0;
        }
    return gpm_set_error("--model: no model '%s': use strict, eadr, ndp, none or sbrp", name);
}

const char *gpm_model_name(gpm_model m) { return (unsigned)m < NMODELS ? model_names[m] : "?"; }

/* ---- the trace in memory ---- */

int gpm_grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
    void *q;
    uint64_t n = *cap ? *cap : 8;
    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    if (!(q = realloc(*p, n * elem)))
        return gpm_set_error("out of memory for a trace of %llu entries", (unsigned long long)need);
    *p = q;
    *cap = n;
    return 0;
}

int gpm_ptrace_add(gpm_ptrace *t, const gpm_trace_rec *r, const void *bytes)
{
    uint64_t cap_ev = t->ev_cap;
    if (gpm_grow((void **)&t->ev, &cap_ev, t->nev + 1, sizeof *t->ev) != 0)
        return -1;
    if (cap_ev != t->ev_cap) {
        uint64_t *d = realloc(t->data, cap_ev * sizeof *d);
        if (!d)
            return gpm_set_error("out of memory for a trace");
        t->data = d;
        t->ev_cap = cap_ev;
    }
    t->ev[t->nev] = *r;
    t->data[t->nev] = t->bytes_len;
    if (r->kind == GPM_TR_STORE) {
        if (r->obj >= t->nobj || r->off > t->obj[r->obj].size ||
            r->len > t->obj[r->obj].size - r->off)
            return gpm_set_error("trace: a store of %llu bytes at %llu lies outside object %u",
                                 (unsigned long long)r->len, (unsigned long long)r->off, r->obj);
        if (gpm_grow((void **)&t->bytes, &t->bytes_cap, t->bytes_len + r->len, 1) != 0)
            return -1;
        memcpy(t->bytes + t->bytes_len, bytes, r->len);
        t->bytes_len += r->len;
    }
    if (r->kind == GPM_TR_END)
        t->ended = 1;
    t->nev++;
    return 0;
}

int gpm_ptrace_init(gpm_ptrace *t, uint32_t nobj, const uint64_t *size)
{
    memset(t, 0, sizeof *t);
    if (!(t->obj = calloc(nobj ? nobj : 1, sizeof *t->obj)))
        return gpm_set_error("out of memory");
    t->nobj = nobj;
    for (uint32_t o = 0; o < nobj; o++) {
        t->obj[o].size = size[o];
        if (!(t->obj[o].start = calloc(size[o] ? size[o] : 1, 1)))
            return gpm_set_error("out of memory for an object of %llu bytes",
                                 (unsigned long long)size[o]);
    }
    return 0;
}

void gpm_ptrace_free(gpm_ptrace *t)
{
    for (uint32_t o = 0; t->obj && o < t->nobj; o++)
        free(t->obj[o].start);
    for (uint32_t s = 0; s < t->nsites; s++)
        free(t->site[s]);
    free(t->obj);
    free(t->site);
    free(t->ev);
    free(t->data);
    free(t->bytes);
    memset(t, 0, sizeof *t);
}

static int read_start(gpm_ptrace *t, const char *dir, uint32_t o)
{
    char path[4200];
    FILE *f;
    size_t n;
    snprintf(path, sizeof path, "%s/start-%u", dir, o);
    if (!(t->obj[o].start = malloc(t->obj[o].size ? t->obj[o].size : 1)) ||
        !(f = fopen(path, "rb")))
        return gpm_set_error("%s: cannot read the trace's start image: trace again", path);
    n = fread(t->obj[o].start, 1, t->obj[o].size, f);
    fclose(f);
    return n == t->obj[o].size ? 0
                               : gpm_set_error("%s: %zu bytes, not the object's %llu: trace again",
                                               path, n, (unsigned long long)t->obj[o].size);
}

int gpm_ptrace_load(gpm_ptrace *t, const char *dir)
{
    char path[4200], *buf = NULL;
    uint64_t magic = 0, cap = 0;
    gpm_trace_rec r;
    FILE *f;
    int rc = 0;
    memset(t, 0, sizeof *t);
    snprintf(path, sizeof path, "%s/trace.bin", dir);
    if (!(f = fopen(path, "rb")))
        return gpm_set_error("%s: cannot open the trace (%s)", path, strerror(errno));
    if (fread(&magic, sizeof magic, 1, f) != 1 || magic != GPM_TRACE_MAGIC) {
        fclose(f);
        return gpm_set_error("%s: not a trace of this version: trace again", path);
    }
    while (rc == 0 && fread(&r, sizeof r, 1, f) == 1) {
        int payload = r.kind == GPM_TR_OBJ || r.kind == GPM_TR_SITE || r.kind == GPM_TR_STORE ||
                      r.kind == GPM_TR_RUN;
        if (payload && (r.len > (1ull << 40) || gpm_grow((void **)&buf, &cap, r.len + 1, 1) != 0 ||
                        fread(buf, 1, r.len, f) != r.len)) {
            rc = gpm_set_error("%s: cut short: trace again", path);
            break;
        }
        if (r.kind == GPM_TR_OBJ) {
            uint32_t n = r.obj + 1;
            if (n > t->nobj) {
                gpm_pobj *p = realloc(t->obj, n * sizeof *p);
                if (!p) {
                    rc = gpm_set_error("out of memory");
                    break;
                }
                memset(p + t->nobj, 0, (n - t->nobj) * sizeof *p);
                t->obj = p;
                t->nobj = n;
            }
            buf[r.len] = '\0';
            snprintf(t->obj[r.obj].path, sizeof t->obj[r.obj].path, "%s", buf);
            t->obj[r.obj].size = r.off;
        } else if (r.kind == GPM_TR_SITE) {
            /* A later record of a site renames it (the kernels' sites are
             * named when the trace ends): the table never shrinks. */
            uint32_t n = t->nsites > r.site + 1 ? t->nsites : r.site + 1;
            char **s = realloc(t->site, n * sizeof *s);
            if (!s) {
                rc = gpm_set_error("out of memory");
                break;
            }
            t->site = s;
            for (uint32_t k = t->nsites; k < n; k++)
                t->site[k] = NULL;
            t->nsites = n;
            buf[r.len] = '\0';
            free(t->site[r.site]);
            t->site[r.site] = strdup(buf);
        } else if (r.kind == GPM_TR_MODEL) {
            t->model = (int)r.aux + 1;
        } else if (r.kind == GPM_TR_RUN) {
            buf[r.len] = '\0';
            snprintf(t->run, sizeof t->run, "%s", buf);
        } else {
            if (r.kind == GPM_TR_STORE && (r.obj >= t->nobj || !t->obj[r.obj].path[0]))
                rc = gpm_set_error("%s: a store to an object it never named: trace again", path);
            else
                rc = gpm_ptrace_add(t, &r, buf);
        }
    }
    fclose(f);
    free(buf);
    for (uint32_t o = 0; rc == 0 && o < t->nobj; o++)
        if (t->obj[o].path[0])
            rc = read_start(t, dir, o);
    return rc;
}

int gpm_ptrace_has_removed(const gpm_ptrace *t)
{
    for (uint64_t k = 0; k < t->nev; k++)
        if (t->ev[k].kind == GPM_TR_REMOVED)
            return 1;
    return 0;
}

int gpm_ptrace_is_persist(const gpm_ptrace *t, uint64_t k)
{
    uint32_t kind = t->ev[k].kind;
    return kind == GPM_TR_DRAIN || kind == GPM_TR_PERSIST || kind == GPM_TR_FSYNC ||
           kind == GPM_TR_FENCE || kind == GPM_TR_OFENCE || kind == GPM_TR_DFENCE ||
           kind == GPM_TR_PREL;
}

const char *gpm_ptrace_site(const gpm_ptrace *t, uint64_t k)
{
    uint32_t s = t->ev[k].site;
    return s < t->nsites && t->site[s] ? t->site[s] : "?";
}

/* ---- durability ---- */

static int gpu_store(const gpm_trace_rec *r) { return r->aux == GPM_TR_GPU; }

/* Does a flush or persist E (whole lines) write back store K, still
 * pending under D? A GPU store only under NDP: elsewhere its thread's
 * fence makes it durable. */
static int writes_back(const gpm_ptrace *t, const uint64_t *d, gpm_model m, uint64_t k,
                       const gpm_trace_rec *e)
{
    const gpm_trace_rec *s = &t->ev[k];
    uint64_t lo = e->off / LINE * LINE, hi = (e->off + e->len + LINE - 1) / LINE * LINE;
    return d[k] == GPM_NEVER && (!gpu_store(s) || m == GPM_MODEL_NDP) && s->obj == e->obj &&
           s->off < hi && lo < s->off + s->len;
}

struct flushed {
    uint64_t thread;
    uint64_t *s;
    uint64_t n, cap;
};

/* The pending stores of each GPU thread, found by hashing its id: a fence
 * makes its own thread's durable without looking at anyone else's (a
 * kernel has as many fences as threads). */
struct gpu_pending {
    struct flushed *t; /* open addressing; thread 0 marks a free entry */
    uint64_t n, cap;
};

static struct flushed *gpu_thread(struct gpu_pending *g, uint64_t thread, int add)
{
    uint64_t h;
    if (add && (g->n + 1) * 2 > g->cap) {
        struct gpu_pending bigger = {NULL, 0, g->cap ? g->cap * 2 : 1024};
        if (!(bigger.t = calloc(bigger.cap, sizeof *bigger.t)))
            return NULL;
        for (uint64_t i = 0; i < g->cap; i++)
            if (g->t[i].thread) {
                h = gpm_mix64(g->t[i].thread) & (bigger.cap - 1);
                while (bigger.t[h].thread)
                    h = (h + 1) & (bigger.cap - 1);
                bigger.t[h] = g->t[i];
                bigger.n++;
            }
        free(g->t);
        *g = bigger;
    }
    if (!g->cap)
        return NULL;
    h = gpm_mix64(thread) & (g->cap - 1);
    while (g->t[h].thread && g->t[h].thread != thread)
        h = (h + 1) & (g->cap - 1);
    if (!g->t[h].thread) {
        if (!add)
            return NULL;
        g->t[h].thread = thread;
        g->n++;
    }
    return &g->t[h];
}

int gpm_durability_unmutated(const gpm_ptrace *t, gpm_model m, uint64_t **before)
{
    gpm_ptrace restored = *t; /* the same arrays, read only */
    restored.restore_removed = 1;
    return gpm_durability(&restored, m, before);
}

int gpm_durability(const gpm_ptrace *t, gpm_model m, uint64_t **durable)
{
    uint64_t *d = malloc((t->nev ? t->nev : 1) * sizeof *d), *pend = NULL, npend = 0, cap = 0;
    struct flushed *fl = NULL, *g;
    struct gpu_pending gp = {NULL, 0, 0};
    uint64_t nfl = 0, flcap = 0;
    int rc = 0;
    if (!d)
        return gpm_set_error("out of memory");
    for (uint64_t k = 0; k < t->nev && rc == 0; k++) {
        const gpm_trace_rec *e = &t->ev[k];
        d[k] = GPM_NEVER;
        switch (e->kind == GPM_TR_REMOVED && t->restore_removed ? e->aux : e->kind) {
        case GPM_TR_STORE:
            if (m == GPM_MODEL_NONE && !t->obj[e->obj].honoured)
                break; /* no persist point counts: never durable */
            if (m == GPM_MODEL_EADR && !gpu_store(e))
                d[k] = k; /* durable as it is made */
            else if (gpu_store(e) && m != GPM_MODEL_NDP) {
                /* Durable only through its thread's fence. */
                if (!(g = gpu_thread(&gp, e->thread, 1)))
                    rc = gpm_set_error("out of memory");
                else if ((rc = gpm_grow((void **)&g->s, &g->cap, g->n + 1, sizeof *g->s)) == 0)
                    g->s[g->n++] = k;
            } else if ((rc = gpm_grow((void **)&pend, &cap, npend + 1, sizeof *pend)) == 0)
                pend[npend++] = k;
            break;
        case GPM_TR_FLUSH: {
            uint64_t f = 0;
            while (f < nfl && fl[f].thread != e->thread)
                f++;
            if (f == nfl) {
                if ((rc = gpm_grow((void **)&fl, &flcap, nfl + 1, sizeof *fl)) != 0)
                    break;
                memset(&fl[nfl], 0, sizeof *fl);
                fl[nfl++].thread = e->thread;
            }
            for (uint64_t p = 0; p < npend && rc == 0; p++)
                if (writes_back(t, d, m, pend[p], e) &&
                    (rc = gpm_grow((void **)&fl[f].s, &fl[f].cap, fl[f].n + 1,
                                   sizeof *fl[f].s)) == 0)
                    fl[f].s[fl[f].n++] = pend[p];
            break;
        }
        case GPM_TR_DRAIN:
            for (uint64_t f = 0; f < nfl; f++)
                if (fl[f].thread == e->thread) {
                    for (uint64_t j = 0; j < fl[f].n; j++)
                        if (d[fl[f].s[j]] == GPM_NEVER)
                            d[fl[f].s[j]] = k;
                    fl[f].n = 0;
                }
            break;
        case GPM_TR_PERSIST:
            for (uint64_t p = 0; p < npend; p++)
                if (writes_back(t, d, m, pend[p], e))
                    d[pend[p]] = k;
            break;
        case GPM_TR_FSYNC:
            for (uint64_t p = 0; p < npend; p++)
                if (d[pend[p]] == GPM_NEVER &&
                    (!gpu_store(&t->ev[pend[p]]) || m == GPM_MODEL_NDP) &&
                    t->ev[pend[p]].obj == e->obj)
                    d[pend[p]] = k;
            break;
        case GPM_TR_FENCE:
        case GPM_TR_OFENCE: /* today's GPUs run SBRP's fences and releases as */
        case GPM_TR_DFENCE: /* system-scope fences (gpm/persistency.h) */
        case GPM_TR_PREL:
            if (m == GPM_MODEL_NDP)
                break; /* it completes in the CPU's cache */
            if ((g = gpu_thread(&gp, e->thread, 0))) {
                for (uint64_t j = 0; j < g->n; j++)
                    d[g->s[j]] = k;
                g->n = 0;
            }
            break;
        default: break;
        }
        /* Keep the pending list to what is still pending. */
        if (npend > 4096 && (k & 1023) == 0) {
            uint64_t w = 0;
            for (uint64_t p = 0; p < npend; p++)
                if (d[pend[p]] == GPM_NEVER)
                    pend[w++] = pend[p];
            npend = w;
        }
    }
    for (uint64_t f = 0; f < nfl; f++)
        free(fl[f].s);
    free(fl);
    for (uint64_t i = 0; i < gp.cap; i++)
        free(gp.t[i].s);
    free(gp.t);
    free(pend);
    if (rc != 0) {
        free(d);
        return -1;
    }
    *durable = d;
    return 0;
}

/* ---- images ---- */

static uint64_t next_random(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    return gpm_mix64(*s);
}

/* H and the N bytes at P, hashed eight at a time over four lanes: an image
 * is hashed whole for every candidate the checker tries, and is
 * megabytes. */
static uint64_t hash_bytes(uint64_t h, const uint8_t *p, uint64_t n)
{
    uint64_t lane[4] = {h, h + 1, h + 2, h + 3}, w, i = 0;
    for (; i + 32 <= n; i += 32)
        for (int j = 0; j < 4; j++) {
            memcpy(&w, p + i + 8 * (uint64_t)j, 8);
            lane[j] = gpm_mix64(lane[j] ^ w);
        }
    for (; i < n; i++)
        lane[0] = gpm_mix64(lane[0] ^ p[i]);
    return gpm_mix64(lane[0] ^ gpm_mix64(lane[1] ^ gpm_mix64(lane[2] ^ gpm_mix64(lane[3] ^ n))));
}

uint64_t gpm_image_hash(const gpm_ptrace *t, uint8_t **img)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t o = 0; o < t->nobj; o++)
        h = hash_bytes(h, img[o], t->obj[o].size);
    return h;
}

/* Is event K held back at CRASH: durable there under BEFORE (a mutant's
 * removed persist points restored, NULL: none) and not under DURABLE? */
static int held_at(const uint64_t *durable, const uint64_t *before, uint64_t k, uint64_t crash)
{
    return before && durable[k] >= crash && before[k] < crash;
}

/* The objects (1 each) that hold a store held back at CRASH. */
static uint8_t *objects_held(const gpm_ptrace *t, const uint64_t *durable, const uint64_t *before,
                             uint64_t crash)
{
    uint8_t *held = calloc(t->nobj ? t->nobj : 1, 1);
    for (uint64_t k = 0; held && k < crash && k < t->nev; k++)
        if (t->ev[k].kind == GPM_TR_STORE && held_at(durable, before, k, crash))
            held[t->ev[k].obj] = 1;
    return held;
}

/* gpm_image, and with BEFORE (not NULL) gpm_image_spare: PICK is then
 * APPLY but for the words that BEFORE's stores hold, or with
 * GPM_SPARE_TORN, gpm_image_spare_torn's. */
static uint64_t image(const gpm_ptrace *t, const uint64_t *durable, const uint64_t *before,
                      uint64_t crash, gpm_pick pick, uint64_t *arg, uint8_t **img,
                      uint64_t *pending)
{
    size_t nobj = t->nobj ? t->nobj : 1; /* calloc(0) may give NULL */
    uint8_t **cur = calloc(nobj, sizeof *cur), **hold = before ? calloc(nobj, sizeof *hold) : NULL;
    uint32_t **n = calloc(nobj, sizeof *n), **ix = calloc(nobj, sizeof *ix);
    int torn = before && pick == GPM_SPARE_TORN;
    uint8_t *near = torn ? objects_held(t, durable, before, crash) : NULL;
    uint64_t h = 0xcbf29ce484222325ull, npend = 0;
    int ok = cur && n && ix && (!before || hold) && (!torn || near);
    for (uint32_t o = 0; ok && o < t->nobj; o++) {
        uint64_t words = (t->obj[o].size + GPM_PWORD - 1) / GPM_PWORD;
        memcpy(img[o], t->obj[o].start, t->obj[o].size);
        cur[o] = malloc(t->obj[o].size ? t->obj[o].size : 1);
        /* Per word: 0 no store yet, 1 durable, more: the values it may hold. */
        n[o] = calloc(words ? words : 1, sizeof **n);
        ix[o] = calloc(words ? words : 1, sizeof **ix); /* when it began to pend: its order */
        if (hold)
            hold[o] = calloc(words ? words : 1, 1); /* a word BEFORE's store wrote */
        ok = cur[o] && n[o] && ix[o] && (!hold || hold[o]);
        if (ok)
            memcpy(cur[o], t->obj[o].start, t->obj[o].size);
    }
    for (uint64_t k = 0; ok && k < crash && k < t->nev; k++) {
        const gpm_trace_rec *s = &t->ev[k];
        int dur = durable[k] < crash;
        /* Durable at CRASH but for the removed persist points: held back. */
        int spared = held_at(durable, before, k, crash);
        if (s->kind != GPM_TR_STORE)
            continue;
        memcpy(cur[s->obj] + s->off, t->bytes + t->data[k], s->len);
        for (uint64_t w = s->off / GPM_PWORD; w * GPM_PWORD < s->off + s->len; w++) {
            uint64_t a = w * GPM_PWORD, b = a + GPM_PWORD < t->obj[s->obj].size
                                                ? a + GPM_PWORD
                                                : t->obj[s->obj].size;
            uint32_t *opt = &n[s->obj][w];
            int take;
            if (dur) {
                *opt = 1;
                ix[s->obj][w] = 0;
                if (hold)
                    hold[s->obj][w] = 0;
                take = 1;
            } else {
                *opt = *opt ? *opt + 1 : 2; /* the value before, and this one */
                if (!ix[s->obj][w])
                    ix[s->obj][w] = (uint32_t)++npend;
                /* Held back (1: nothing later over it either) or let go
                 * (2), once per word: every such word, or (a seed in
                 * *ARG) each with probability 1/2; a word let go holds
                 * any one of its values, as RANDOM's do (a flag stored
                 * twice may be left at its first value). */
                if (spared && hold && !hold[s->obj][w])
                    hold[s->obj][w] = torn || *arg == 0 || next_random(arg) & 1 ? 1 : 2;
                if (torn && near[s->obj]) /* beside a held-back word: any value */
                    take = next_random(arg) % *opt == 0;
                else
                    take = pick == GPM_APPLY || pick == GPM_SPARE_TORN ||
                           (pick == GPM_RANDOM && next_random(arg) % *opt == 0);
                if (hold && hold[s->obj][w] == 1)
                    take = 0;
                else if (hold && hold[s->obj][w] == 2)
                    take = next_random(arg) % *opt == 0;
            }
            if (take)
                memcpy(img[s->obj] + a, cur[s->obj] + a, b - a);
        }
    }
    /* MASK, once the pending words are known (a word that pended and was
     * made durable again is not one): the first 64 of them in the order
     * they began to pend; bit I of *ARG gives the I-th its last value. */
    if (ok && pick == GPM_MASK) {
        struct { uint32_t ix, o; uint64_t w; } first[64], c;
        int nf = 0;
        for (uint32_t o = 0; o < t->nobj; o++)
            for (uint64_t w = 0; w * GPM_PWORD < t->obj[o].size; w++) {
                int j;
                if (n[o][w] <= 1 || (nf == 64 && ix[o][w] > first[63].ix))
                    continue;
                c.ix = ix[o][w], c.o = o, c.w = w;
                for (j = nf < 64 ? nf++ : 63; j > 0 && first[j - 1].ix > c.ix; j--)
                    first[j] = first[j - 1];
                first[j] = c;
            }
        for (int i = 0; i < nf; i++)
            if (*arg >> i & 1) {
                uint64_t a = first[i].w * GPM_PWORD, size = t->obj[first[i].o].size;
                memcpy(img[first[i].o] + a, cur[first[i].o] + a,
                       a + GPM_PWORD < size ? GPM_PWORD : size - a);
            }
    }
    npend = 0;
    for (uint32_t o = 0; o < t->nobj; o++) {
        uint64_t words = (t->obj[o].size + GPM_PWORD - 1) / GPM_PWORD;
        for (uint64_t w = 0; ok && w < words; w++)
            npend += n[o][w] > 1;
        h = hash_bytes(h, img[o], t->obj[o].size);
        if (cur)
            free(cur[o]);
        if (n)
            free(n[o]);
        if (ix)
            free(ix[o]);
        if (hold)
            free(hold[o]);
    }
    free(cur);
    free(n);
    free(ix);
    free(hold);
    free(near);
    if (pending)
        *pending = npend;
    return ok ? h : 0;
}

uint64_t gpm_image(const gpm_ptrace *t, const uint64_t *durable, uint64_t crash, gpm_pick pick,
                   uint64_t *arg, uint8_t **img, uint64_t *pending)
{
    return image(t, durable, NULL, crash, pick, arg, img, pending);
}

uint64_t gpm_image_spare(const gpm_ptrace *t, const uint64_t *durable, const uint64_t *before,
                         uint64_t crash, uint64_t seed, uint8_t **img, uint64_t *pending)
{
    return image(t, durable, before, crash, GPM_APPLY, &seed, img, pending);
}

uint64_t gpm_image_spare_torn(const gpm_ptrace *t, const uint64_t *durable,
                              const uint64_t *before, uint64_t crash, uint64_t seed,
                              uint8_t **img, uint64_t *pending)
{
    return image(t, durable, before, crash, GPM_SPARE_TORN, &seed, img, pending);
}

/* ---- completeness ---- */

int gpm_replay_check(const gpm_ptrace *t, char *report, size_t len)
{
    size_t used = 0;
    int differ = 0;
    report[0] = '\0';
    for (uint32_t o = 0; o < t->nobj; o++) {
        uint8_t *want, *got;
        uint64_t first = GPM_NEVER, last = 0, count = 0;
        size_t n;
        FILE *f;
        if (!t->obj[o].path[0])
            continue;
        if (!(want = malloc(t->obj[o].size ? t->obj[o].size : 1)) ||
            !(got = malloc(t->obj[o].size ? t->obj[o].size : 1))) {
            free(want);
            return gpm_set_error("out of memory");
        }
        memcpy(want, t->obj[o].start, t->obj[o].size);
        for (uint64_t k = 0; k < t->nev; k++)
            if (t->ev[k].kind == GPM_TR_STORE && t->ev[k].obj == o)
                memcpy(want + t->ev[k].off, t->bytes + t->data[k], t->ev[k].len);
        if (!(f = fopen(t->obj[o].path, "rb"))) {
            free(want);
            free(got);
            return gpm_set_error("%s: cannot read it to compare with the trace (%s)",
                                 t->obj[o].path, strerror(errno));
        }
        n = fread(got, 1, t->obj[o].size, f);
        fclose(f);
        for (uint64_t i = 0; i < t->obj[o].size; i++)
            if (i >= n || got[i] != want[i]) {
                first = first == GPM_NEVER ? i : first;
                last = i;
                count++;
            }
        if (count) {
            differ = 1;
            used += (size_t)snprintf(report + used, used < len ? len - used : 0,
                                     "%s%s: %llu bytes written by a path the trace does not "
                                     "see, from offset %llu to %llu",
                                     used ? "; " : "", t->obj[o].path,
                                     (unsigned long long)count, (unsigned long long)first,
                                     (unsigned long long)last);
        }
        free(want);
        free(got);
    }
    return differ;
}
