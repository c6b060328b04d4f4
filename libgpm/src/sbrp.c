/* The SBRP persistency model (gpm/persistency.h): the persist memory order
 * of a trace's GPU persists, and the crash images closed under it.
 *
 * Each GPU thread's operations cut its persists into segments: a new one
 * begins after every oFence, dFence, fence, pRel and pAcq. The segments
 * between two ordering fences (oFence, dFence, fence) form a group, and a
 * group's persists are ordered after every earlier group's. A pAcq that
 * reads a pRel of sufficient scope adds an entry to the acquirer: its
 * segments from the next one on need the releaser's segments before the
 * pRel. A set of persists closed under PMO is then, per thread, a prefix of
 * whole segments plus single persists whose requirements hold: the closure
 * raises prefixes until every requirement does. */
#include <stdlib.h>
#include <string.h>

#include "gpm/gpm.h"
#include "gpm/hd.h"
#include "gpm/persistency.h"
#include "persistency_internal.h"

struct acq {
    uint32_t pos;    /* the acquirer's segments from POS on need... */
    uint32_t src;    /* ...thread SRC's segments before PREFIX */
    uint32_t prefix;
};

struct sthread {
    uint64_t id;
    uint32_t nseg, nacq;
    uint64_t gstart_cap, acq_cap;
    uint32_t *gstart; /* per segment: the first segment of its group */
    struct acq *acq;
};

struct release {
    uint64_t var;    /* the variable (OBJ and OFF), 0: an empty slot */
    uint64_t thread; /* the releaser's GPU id */
    uint32_t t, prefix, scope;
};

struct gpm_sbrp {
    struct sthread *th;
    uint32_t nth;
    uint64_t th_cap;
    uint32_t *slot; /* thread id -> index + 1, open addressing */
    uint64_t nslot;
    uint32_t *ev_t;   /* per event: its thread (a GPU store, dFence or fence) */
    uint32_t *ev_seg; /* a store's segment; a dFence's prefix made durable */
    uint64_t *cpu_dur; /* the CPU's stores: durable as under strict */
};

static int gpu_event(const gpm_trace_rec *e)
{
    return e->kind == GPM_TR_STORE ? e->aux == GPM_TR_GPU
                                   : e->kind == GPM_TR_FENCE ||
                                         (e->kind >= GPM_TR_OFENCE && e->kind <= GPM_TR_PACQ);
}

/* The index of GPU thread ID, added where new (with its first segment). */
static int thread_of(gpm_sbrp *o, uint64_t id, uint32_t *t)
{
    uint64_t h;
    if (2 * ((uint64_t)o->nth + 1) > o->nslot) { /* rehash at half full */
        uint64_t n = o->nslot ? 2 * o->nslot : 1024;
        uint32_t *s = calloc(n, sizeof *s);
        if (!s)
            return gpm_set_error("out of memory");
        for (uint32_t i = 0; i < o->nth; i++) {
            for (h = gpm_mix64(o->th[i].id) & (n - 1); s[h]; h = (h + 1) & (n - 1))
                ;
            s[h] = i + 1;
        }
        free(o->slot);
        o->slot = s;
        o->nslot = n;
    }
    for (h = gpm_mix64(id) & (o->nslot - 1); o->slot[h]; h = (h + 1) & (o->nslot - 1))
        if (o->th[o->slot[h] - 1].id == id) {
            *t = o->slot[h] - 1;
            return 0;
        }
    if (gpm_grow((void **)&o->th, &o->th_cap, o->nth + 1, sizeof *o->th) != 0)
        return -1;
    memset(&o->th[o->nth], 0, sizeof o->th[o->nth]);
    o->th[o->nth].id = id;
    if (gpm_grow((void **)&o->th[o->nth].gstart, &o->th[o->nth].gstart_cap, 1, sizeof(uint32_t)))
        return -1;
    o->th[o->nth].gstart[0] = 0;
    o->th[o->nth].nseg = 1;
    o->slot[h] = o->nth + 1;
    *t = o->nth++;
    return 0;
}

/* A new segment of thread T, in a new group where NEW_GROUP. */
static int next_segment(struct sthread *t, int new_group)
{
    if (gpm_grow((void **)&t->gstart, &t->gstart_cap, t->nseg + 1, sizeof *t->gstart) != 0)
        return -1;
    t->gstart[t->nseg] = new_group ? t->nseg : t->gstart[t->nseg - 1];
    t->nseg++;
    return 0;
}

/* Does a release by A of scope SA, read by B's acquire of scope SB, order
 * across them? Both scopes must hold both threads: a block is one block of
 * one launch (the GPU id without its thread bits). */
static int in_scope(uint64_t a, uint32_t sa, uint64_t b, uint32_t sb)
{
    sa = GPM_SCOPE_OF(sa), sb = GPM_SCOPE_OF(sb);
    if (sa == GPM_SCOPE_NONE || sb == GPM_SCOPE_NONE)
        return 0;
    if (a >> 10 == b >> 10)
        return 1;
    return sa == GPM_SCOPE_DEVICE && sb == GPM_SCOPE_DEVICE;
}

/* The last release on each variable, open addressing (VAR is never 0:
 * bit 63 is set). */
struct releases {
    struct release *r;
    uint64_t n, cap;
};

static struct release *release_of(struct releases *rs, uint64_t var, int add)
{
    uint64_t h;
    if (add && 2 * (rs->n + 1) > rs->cap) {
        uint64_t cap = rs->cap ? 2 * rs->cap : 256;
        struct release *r = calloc(cap, sizeof *r);
        if (!r)
            return NULL;
        for (uint64_t i = 0; i < rs->cap; i++)
            if (rs->r[i].var) {
                for (h = gpm_mix64(rs->r[i].var) & (cap - 1); r[h].var; h = (h + 1) & (cap - 1))
                    ;
                r[h] = rs->r[i];
            }
        free(rs->r);
        rs->r = r;
        rs->cap = cap;
    }
    if (!rs->cap)
        return NULL;
    for (h = gpm_mix64(var) & (rs->cap - 1); rs->r[h].var; h = (h + 1) & (rs->cap - 1))
        if (rs->r[h].var == var)
            return &rs->r[h];
    if (!add)
        return NULL;
    rs->n++;
    rs->r[h].var = var;
    return &rs->r[h];
}

/* The variable a pRel or pAcq names: its object and offset, bit 63 set. */
static uint64_t var_of(const gpm_trace_rec *e)
{
    return 1ull << 63 | ((uint64_t)e->obj << 48 ^ e->off);
}

void gpm_sbrp_free(gpm_sbrp *o)
{
    if (!o)
        return;
    for (uint32_t i = 0; i < o->nth; i++) {
        free(o->th[i].gstart);
        free(o->th[i].acq);
    }
    free(o->th);
    free(o->slot);
    free(o->ev_t);
    free(o->ev_seg);
    free(o->cpu_dur);
    free(o);
}

int gpm_sbrp_order(const gpm_ptrace *t, gpm_sbrp **order)
{
    gpm_sbrp *o = calloc(1, sizeof *o);
    struct releases rs = {NULL, 0, 0};
    size_t n = t->nev ? t->nev : 1;
    int rc = 0;
    *order = NULL;
    if (!o || !(o->ev_t = calloc(n, sizeof *o->ev_t)) ||
        !(o->ev_seg = calloc(n, sizeof *o->ev_seg))) {
        gpm_sbrp_free(o);
        return gpm_set_error("out of memory");
    }
    if (gpm_durability(t, GPM_MODEL_STRICT, &o->cpu_dur) != 0) {
        gpm_sbrp_free(o);
        return -1;
    }
    for (uint64_t k = 0; k < t->nev && rc == 0; k++) {
        const gpm_trace_rec *e = &t->ev[k];
        struct release *r;
        struct sthread *s;
        uint32_t ti = 0;
        if (!gpu_event(e))
            continue;
        if ((rc = thread_of(o, e->thread, &ti)) != 0)
            break;
        s = &o->th[ti];
        o->ev_t[k] = ti;
        o->ev_seg[k] = s->nseg - 1;
        switch (e->kind) {
        case GPM_TR_OFENCE: rc = next_segment(s, 1); break;
        case GPM_TR_DFENCE:
        case GPM_TR_FENCE:
            o->ev_seg[k] = s->nseg; /* every segment so far is durable */
            rc = next_segment(s, 1);
            break;
        case GPM_TR_PREL:
            if (!(r = release_of(&rs, var_of(e), 1))) {
                rc = gpm_set_error("out of memory");
                break;
            }
            r->thread = e->thread, r->t = ti, r->prefix = s->nseg, r->scope = e->aux;
            rc = next_segment(s, 0);
            break;
        case GPM_TR_PACQ:
            r = release_of(&rs, var_of(e), 0);
            if (r && in_scope(r->thread, r->scope, e->thread, e->aux)) {
                if ((rc = gpm_grow((void **)&s->acq, &s->acq_cap, s->nacq + 1,
                                   sizeof *s->acq)) != 0)
                    break;
                s->acq[s->nacq++] = (struct acq){s->nseg, r->t, r->prefix};
            }
            rc = rc ? rc : next_segment(s, 0);
            break;
        default: break;
        }
    }
    free(rs.r);
    if (rc != 0) {
        gpm_sbrp_free(o);
        return -1;
    }
    *order = o;
    return 0;
}

/* ---- the closure ---- */

struct closure {
    const gpm_sbrp *o;
    uint32_t *prefix; /* per thread: its segments before this are in */
    uint32_t *needed; /* per thread: its segments before this have their acquires met */
    uint32_t *next;   /* per thread: its first acquire not yet met */
    uint32_t (*stack)[2];
    uint64_t depth, cap;
};

static int push(struct closure *c, uint32_t t, uint32_t prefix)
{
    if (c->depth == c->cap) {
        uint64_t cap = c->cap ? 2 * c->cap : 64;
        void *s = realloc(c->stack, cap * sizeof *c->stack);
        if (!s)
            return gpm_set_error("out of memory");
        c->stack = s;
        c->cap = cap;
    }
    c->stack[c->depth][0] = t;
    c->stack[c->depth++][1] = prefix;
    return 0;
}

/* Thread T's segments before PREFIX in, and those before NEED with their
 * acquires met, and so on for what those acquires need. */
static int raise_to(struct closure *c, uint32_t t, uint32_t prefix, uint32_t need)
{
    if (prefix > c->prefix[t])
        c->prefix[t] = prefix;
    if (push(c, t, need > c->prefix[t] ? need : c->prefix[t]) != 0)
        return -1;
    while (c->depth) {
        uint32_t u = c->stack[c->depth - 1][0], n = c->stack[c->depth - 1][1];
        const struct sthread *s = &c->o->th[u];
        c->depth--;
        if (n <= c->needed[u])
            continue;
        c->needed[u] = n;
        for (; c->next[u] < s->nacq && s->acq[c->next[u]].pos < n; c->next[u]++) {
            const struct acq *a = &s->acq[c->next[u]];
            if (a->prefix > c->prefix[a->src])
                c->prefix[a->src] = a->prefix;
            if (push(c, a->src, c->prefix[a->src]) != 0)
                return -1;
        }
    }
    return 0;
}

static uint64_t random_bit(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    return gpm_mix64(*s) & 1;
}

/* Is store K in the image: durable, or chosen (IN), or in a thread's
 * closed prefix? */
static int in_image(const gpm_ptrace *t, const struct closure *c, uint64_t k, uint64_t crash,
                    const uint8_t *in)
{
    if (in[k])
        return 1;
    if (t->ev[k].aux != GPM_TR_GPU)
        return c->o->cpu_dur[k] < crash;
    return c->o->ev_seg[k] < c->prefix[c->o->ev_t[k]];
}

uint64_t gpm_sbrp_image(const gpm_ptrace *t, const gpm_sbrp *o, uint64_t crash, gpm_pick pick,
                        uint64_t *arg, uint8_t **img, uint64_t *pending)
{
    struct closure c = {o, NULL, NULL, NULL, NULL, 0, 0};
    uint8_t *in = calloc(t->nev ? t->nev : 1, 1);
    uint64_t npend = 0, h = 0;
    int ok;
    if (crash > t->nev)
        crash = t->nev;
    c.prefix = calloc(o->nth ? o->nth : 1, sizeof *c.prefix);
    c.needed = calloc(o->nth ? o->nth : 1, sizeof *c.needed);
    c.next = calloc(o->nth ? o->nth : 1, sizeof *c.next);
    ok = in && c.prefix && c.needed && c.next;
    /* What the dFences before the crash made durable. */
    for (uint64_t k = 0; ok && k < crash; k++)
        if (t->ev[k].kind == GPM_TR_DFENCE || t->ev[k].kind == GPM_TR_FENCE)
            ok = raise_to(&c, o->ev_t[k], o->ev_seg[k], o->ev_seg[k]) == 0;
    /* The pending persists, in trace order, and the choice among them. */
    for (uint64_t k = 0; ok && k < crash; k++) {
        int take;
        if (t->ev[k].kind != GPM_TR_STORE || in_image(t, &c, k, crash, in))
            continue;
        take = pick == GPM_APPLY || (pick == GPM_RANDOM && random_bit(arg)) ||
               (pick == GPM_MASK && npend < 64 && (*arg >> npend & 1));
        npend++;
        if (take)
            in[k] = 1;
    }
    /* Each chosen GPU persist brings its group's predecessors and what its
     * acquires need. */
    for (uint64_t k = 0; ok && k < crash; k++)
        if (in[k] && t->ev[k].aux == GPM_TR_GPU) {
            const struct sthread *s = &o->th[o->ev_t[k]];
            ok = raise_to(&c, o->ev_t[k], s->gstart[o->ev_seg[k]], o->ev_seg[k] + 1) == 0;
        }
    for (uint32_t j = 0; ok && j < t->nobj; j++)
        memcpy(img[j], t->obj[j].start, t->obj[j].size);
    for (uint64_t k = 0; ok && k < crash; k++)
        if (t->ev[k].kind == GPM_TR_STORE && in_image(t, &c, k, crash, in))
            memcpy(img[t->ev[k].obj] + t->ev[k].off, t->bytes + t->data[k], t->ev[k].len);
    if (ok)
        h = gpm_image_hash(t, img);
    else
        gpm_set_error("out of memory");
    if (pending)
        *pending = npend;
    free(in);
    free(c.prefix);
    free(c.needed);
    free(c.next);
    free(c.stack);
    return h;
}
