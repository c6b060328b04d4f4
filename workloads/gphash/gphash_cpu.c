/* GPHash's CPU counterpart: the kernels' algorithm on the mapping, a run of
 * one key's operations a task of OpenMP threads. Where a kernel fences, it
 * persists with libpmem (wl_pm_persist); where a kernel swaps by CAS, it
 * swaps with the compiler's atomics. */
#include <stdlib.h>
#include <string.h>

#include "gphash.h"

int gph_cpu_alloc(struct gph_state *st)
{
    st->h_pairs = malloc(st->batch * sizeof *st->h_pairs);
    st->h_heads = malloc((st->batch + 1) * sizeof *st->h_heads);
    if (!st->h_pairs || !st->h_heads)
        return gpm_set_error("out of memory for a batch");
    return 0;
}

/* The table on the mapping: each slot's record. */
struct tbl {
    const struct gph_geom *g;
    uint8_t *base;
    uint32_t vw;
};
static uint64_t *state_of(const struct tbl *t, int64_t s)
{
    return gph_word(t->base, gph_state_at(t->g, (uint64_t)s));
}
static uint64_t *ref_of(const struct tbl *t, int64_t s)
{
    return gph_word(t->base, gph_ref_at(t->g, (uint64_t)s));
}
static uint64_t *key_of(const struct tbl *t, int64_t s)
{
    return gph_word(t->base, gph_key_at(t->g, (uint64_t)s));
}
static uint64_t *cell_of(const struct tbl *t, uint64_t cell)
{
    return gph_word(t->base, gph_cell_at(t->g, cell));
}

struct sess {
    uint64_t key[4], fp, vk, b1, b2;
    int64_t slot;
    uint64_t ref, seq;
};

static uint64_t load(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* Candidate slot L (the lane that reads it on the GPU), or -1. */
static int64_t slot_of(const struct tbl *t, const struct sess *s, uint32_t l)
{
    uint64_t b = gph_candidate(t->g, s->b1, s->b2, l / t->g->slots);
    return b == GPH_NO_BUCKET ? -1 : (int64_t)(b * t->g->slots + l % t->g->slots);
}

static void lookup(const struct tbl *t, struct sess *s)
{
    s->slot = -1;
    s->ref = s->seq = 0;
    for (uint32_t l = 0; l < GPH_CANDIDATES * t->g->slots; l++) {
        int64_t my = slot_of(t, s, l);
        if (my < 0 || load(state_of(t, my)) != s->fp ||
            memcmp(key_of(t, my), s->key, t->g->kw * 8) != 0)
            continue;
        s->slot = my;
        s->ref = load(ref_of(t, my));
        s->seq = *cell_of(t, s->ref);
        return;
    }
}

static uint64_t value_fold(const struct tbl *t, const struct sess *s, uint64_t seq)
{
    uint64_t acc = 0;
    if (seq == 0)
        return 0;
    for (uint32_t w = 0; w < t->vw; w++)
        acc = gph_fold(acc, seq == s->seq ? cell_of(t, s->ref)[w]
                                          : gph_value_word(s->vk, seq, w), w);
    return acc;
}

/* The value of SEQ into cell CELL (the caller persists it): its words. */
static uint64_t *put_value(const struct tbl *t, const struct sess *s, uint64_t cell,
                           uint64_t seq)
{
    uint64_t *v = cell_of(t, cell);
    for (uint32_t w = 0; w < t->vw; w++)
        v[w] = gph_value_word(s->vk, seq, w);
    return v;
}

static int cas(uint64_t *p, uint64_t expected, uint64_t desired)
{
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

/* The kernels' insert: a free slot of the least-loaded candidate claimed
 * by CAS, its record's reference, key and first cell persisted, then the
 * fingerprint. */
static int insert(struct wl_ctx *c, struct gph_state *st, const struct tbl *t,
                  const struct sess *s, uint64_t seq)
{
    uint32_t slots = t->g->slots;
    int64_t slot = -1;
    uint64_t *ref;
    while (slot < 0) {
        uint32_t best_load = 99;
        int any = 0;
        for (uint32_t cand = 0; cand < GPH_CANDIDATES; cand++) {
            uint32_t used = 0;
            int64_t first_free = -1;
            for (uint32_t j = 0; j < slots; j++) {
                int64_t my = slot_of(t, s, cand * slots + j);
                uint64_t v = my < 0 ? GPH_INSERT : load(state_of(t, my));
                used += my >= 0 && v != GPH_EMPTY;
                if (my >= 0 && v == GPH_EMPTY && first_free < 0)
                    first_free = my;
            }
            if (first_free >= 0 && used < best_load) {
                best_load = used;
                slot = first_free;
                any = 1;
            }
        }
        if (!any) {
            __atomic_add_fetch(&st->full, 1, __ATOMIC_RELAXED);
            return 0;
        }
        if (!cas(state_of(t, slot), GPH_EMPTY, GPH_INSERT)) {
            slot = -1; /* another thread took it: look again */
            __atomic_add_fetch(&st->retries, 1, __ATOMIC_RELAXED);
        }
    }
    ref = ref_of(t, slot);
    *ref = 2 * (uint64_t)slot;
    memcpy(key_of(t, slot), s->key, t->g->kw * 8);
    put_value(t, s, 2 * (uint64_t)slot, seq);
    if (wl_pm_persist(c, GPH_TABLE, ref, gph_head_bytes(t->g) - 8 + t->vw * 8) != 0)
        return -1;
    __atomic_store_n(state_of(t, slot), s->fp, __ATOMIC_RELEASE);
    return wl_pm_persist(c, GPH_TABLE, state_of(t, slot), 8);
}

static int finish(struct wl_ctx *c, struct gph_state *st, const struct tbl *t,
                  const struct sess *s, uint64_t cur)
{
    if (cur == s->seq)
        return 0;
    if (s->seq && cur) {
        uint64_t next = s->ref ^ 1;
        if (wl_pm_persist(c, GPH_TABLE, put_value(t, s, next, cur), t->vw * 8) != 0)
            return -1;
        if (!cas(ref_of(t, s->slot), s->ref, next))
            return gpm_set_error("slot %lld's reference changed under its key's run",
                                 (long long)s->slot);
        return wl_pm_persist(c, GPH_TABLE, ref_of(t, s->slot), 8);
    }
    if (cur)
        return insert(c, st, t, s, cur);
    if (!cas(state_of(t, s->slot), s->fp, GPH_EMPTY))
        return gpm_set_error("slot %lld changed under its key's run",
                             (long long)s->slot);
    return wl_pm_persist(c, GPH_TABLE, state_of(t, s->slot), 8);
}

/* Sorted positions P..Q-1: one fingerprint's operations, as the kernel's
 * run() takes them. */
static int run(struct wl_ctx *c, struct gph_state *st, const struct tbl *t, uint64_t first,
               uint64_t p, uint64_t q, int timed)
{
    uint32_t kw = t->g->kw;
    while (p < q) {
        struct sess s;
        uint64_t k = p, cur, found_fold = 0;
        int found_read = 0;
        const struct gph_pair *pr = st->h_pairs;
        memcpy(s.key, st->h_key + (first + pr[p].i) * kw, kw * 8);
        s.fp = gph_fingerprint(s.key, kw);
        s.vk = gph_value_key(s.key, kw);
        s.b1 = gph_top(t->g, s.key, 1);
        s.b2 = gph_top(t->g, s.key, 2);
        lookup(t, &s);
        cur = s.seq;
        for (; k < q; k++) {
            uint64_t i = first + pr[k].i, before;
            unsigned op = st->h_op[i];
            if (k > p && memcmp(st->h_key + i * kw, s.key, kw * 8) != 0)
                break;
            before = gph_step(op, i + 1, &cur);
            st->h_ans[2 * i] = gph_answers(op) ? before : 0;
            st->h_ans[2 * i + 1] = 0;
            if (gph_answers(op) && before == s.seq) { /* the value on PM: read once */
                if (!found_read)
                    found_fold = value_fold(t, &s, before);
                found_read = 1;
                st->h_ans[2 * i + 1] = found_fold;
            } else if (gph_answers(op)) {
                st->h_ans[2 * i + 1] = value_fold(t, &s, before);
            }
        }
        if (finish(c, st, t, &s, cur) != 0)
            return -1;
        if (timed)
            wl_progress_add(c, k - p);
        p = k;
    }
    return 0;
}

static int cmp_pair(const void *a, const void *b)
{
    const struct gph_pair *x = a, *y = b;
    if (x->fp != y->fp)
        return x->fp < y->fp ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int gph_cpu_batch(struct wl_ctx *c, struct gph_state *st, uint64_t b, int timed)
{
    uint8_t *base = wl_region(c, GPH_TABLE)->host;
    struct tbl t = {&st->g, base, st->g.vbytes / 8};
    uint64_t n = gph_batch_ops(st, b), first = b * st->batch, runs = 0;
    int failed = 0;
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; i++)
        st->h_pairs[i] = (struct gph_pair){gph_fingerprint(st->h_key + (first + i) * st->g.kw,
                                                           st->g.kw), i};
    qsort(st->h_pairs, n, sizeof *st->h_pairs, cmp_pair);
    for (uint64_t k = 0; k < n; k++)
        if (k == 0 || st->h_pairs[k].fp != st->h_pairs[k - 1].fp)
            st->h_heads[runs++] = k;
    st->h_heads[runs] = n;
#pragma omp parallel for schedule(dynamic, 16) num_threads(c->threads)
    for (uint64_t r = 0; r < runs; r++)
        if (!__atomic_load_n(&failed, __ATOMIC_RELAXED) &&
            run(c, st, &t, first, st->h_heads[r], st->h_heads[r + 1], timed) != 0)
            __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
    return failed ? -1 : 0;
}

int gph_cpu_scan(struct wl_ctx *c, struct gph_state *st, uint64_t *cleared, uint64_t *items)
{
    struct tbl t = {&st->g, wl_region(c, GPH_TABLE)->host, st->g.vbytes / 8};
    uint64_t n = gph_slots(&st->g), k = 0, v = 0;
    int failed = 0;
#pragma omp parallel for schedule(static) reduction(+ : k, v) num_threads(c->threads)
    for (uint64_t s = 0; s < n; s++) {
        uint64_t *state = state_of(&t, (int64_t)s);
        if (*state == GPH_INSERT) {
            *state = GPH_EMPTY;
            if (wl_pm_persist(c, GPH_TABLE, state, 8) != 0)
                __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
            k++;
        }
        v += *state > GPH_INSERT;
    }
    *cleared = k;
    *items = v;
    return failed ? -1 : 0;
}
