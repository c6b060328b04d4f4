/* GPHash's stream and its reference: every operation replayed in a map of
 * each key's value (its sequence number), every answer and the whole table
 * checked against it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gphash.h"

_Static_assert((int)GPH_READ == (int)WL_YCSB_READ && (int)GPH_UPDATE == (int)WL_YCSB_UPDATE &&
                   (int)GPH_INSERT_OP == (int)WL_YCSB_INSERT &&
                   (int)GPH_RMW == (int)WL_YCSB_RMW && (int)GPH_DELETE == (int)WL_YCSB_DELETE,
               "GPHash's operations are YCSB's, in its order");

uint64_t gph_batch_ops(const struct gph_state *st, uint64_t b)
{
    uint64_t total = st->load_ops + st->run_ops, lo = b * st->batch;
    return total - lo < st->batch ? total - lo : st->batch;
}

static int alloc_stream(struct gph_state *st)
{
    uint64_t n = st->load_ops + st->run_ops;
    st->h_op = malloc(n ? n : 1);
    st->h_key = malloc((n ? n : 1) * st->g.kw * 8);
    st->h_ans = calloc(2 * (n ? n : 1), 8);
    if (!st->h_op || !st->h_key || !st->h_ans)
        return gpm_set_error("out of memory for a stream of %llu operations",
                             (unsigned long long)n);
    st->load_batches = (st->load_ops + st->batch - 1) / st->batch;
    st->batches = (n + st->batch - 1) / st->batch;
    return 0;
}

static void put(void *arg, uint64_t i, enum wl_ycsb_op op, uint64_t k)
{
    struct gph_state *st = arg;
    st->h_op[i] = (uint8_t)op;
    gph_key_words(k, st->g.kw, st->h_key + i * st->g.kw);
}

int gph_make_stream(struct gph_state *st, const struct wl_ycsb_args *a, uint64_t seed)
{
    struct wl_ycsb_stream y;
    int rc;
    if (wl_ycsb_stream_open(&y, a, seed) != 0)
        return -1;
    st->load_ops = y.load;
    st->run_ops = y.run;
    if ((rc = alloc_stream(st)) == 0)
        wl_ycsb_stream_fill(&y, put, st);
    wl_ycsb_stream_close(&y);
    return rc;
}

int gph_key_number(const uint64_t *words, uint32_t kw, uint64_t *k)
{
    unsigned char b[32];
    uint64_t v = 0;
    int i = 4;
    if (kw == 1) {
        *k = words[0];
        return 0;
    }
    for (int w = 0; w < 4; w++)
        for (int j = 0; j < 8; j++)
            b[w * 8 + j] = (unsigned char)(words[w] >> (8 * j));
    if (memcmp(b, "user", 4) != 0 || b[4] < '0' || b[4] > '9')
        return -1;
    for (; i < 32 && b[i] >= '0' && b[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(b[i] - '0');
    }
    for (; i < 32; i++)
        if (b[i])
            return -1;
    *k = v;
    return 0;
}

/* ---- the map: each key's sequence number (0: absent), open addressing ---- */

struct refmap {
    uint64_t *key, *seq, mask;
    uint8_t *used, *seen;
    uint64_t present;
};

/* Where K is in the map, or the free place it would take. */
static uint64_t probe(const struct refmap *m, uint64_t k)
{
    uint64_t h = gpm_mix64(k) & m->mask;
    while (m->used[h] && m->key[h] != k)
        h = (h + 1) & m->mask;
    return h;
}

static int map_init(struct refmap *m, uint64_t keys)
{
    uint64_t cap = 1024;
    while (cap < 2 * keys)
        cap *= 2;
    memset(m, 0, sizeof *m);
    m->mask = cap - 1;
    m->key = malloc(cap * 8);
    m->seq = malloc(cap * 8);
    m->used = calloc(cap, 1);
    m->seen = calloc(cap, 1);
    if (!m->key || !m->seq || !m->used || !m->seen)
        return gpm_set_error("out of memory for the reference of %llu keys",
                             (unsigned long long)keys);
    return 0;
}

static void map_free(struct refmap *m)
{
    free(m->key);
    free(m->seq);
    free(m->used);
    free(m->seen);
}

static const char *op_name(unsigned op)
{
    static const char *const names[] = {"read", "update", "insert", "read-modify-write",
                                        "delete"};
    return op < 5 ? names[op] : "?";
}

/* Replays the stream; checks the answers of batches FIRST on (1: one was
 * wrong, the first named; the replay goes on, so that the map is whole). */
static int replay(const struct gph_state *st, struct refmap *m, uint64_t first)
{
    uint64_t n = st->load_ops + st->run_ops;
    uint32_t kw = st->g.kw;
    int rc = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *key = st->h_key + i * kw;
        unsigned op = st->h_op[i];
        uint64_t k, h, before, fold, absent = 0;
        if (gph_key_number(key, kw, &k) != 0)
            return gpm_set_error("operation %llu's key is not a record name",
                                 (unsigned long long)i);
        h = probe(m, k);
        if (!m->used[h] && op == GPH_INSERT_OP) { /* only an insert adds a key */
            m->used[h] = 1;
            m->key[h] = k;
            m->seq[h] = 0;
        }
        before = gph_step(op, i + 1, m->used[h] ? &m->seq[h] : &absent);
        if (!gph_answers(op) || i / st->batch < first)
            continue;
        fold = gph_value_sum(gph_value_key(key, kw), before, st->g.vbytes);
        if (rc == 0 && (st->h_ans[2 * i] != before || st->h_ans[2 * i + 1] != fold)) {
            rc = 1;
            gpm_set_error("operation %llu (batch %llu, %s of key %llu) answered value "
                          "%llu (fold %016llx); the reference: value %llu (fold %016llx)",
                          (unsigned long long)i, (unsigned long long)(i / st->batch),
                          op_name(op), (unsigned long long)k,
                          (unsigned long long)st->h_ans[2 * i],
                          (unsigned long long)st->h_ans[2 * i + 1], (unsigned long long)before,
                          (unsigned long long)fold);
        }
    }
    for (uint64_t h = 0; h <= m->mask; h++)
        m->present += m->used[h] && m->seq[h];
    return rc;
}

/* What is wrong with slot S, or NULL. *OWN: the slot is the first to hold
 * a key of the reference (a wrong one is that key wrong, not a stray). */
static const char *slot_problem(const struct gph_state *st, const uint8_t *table,
                                struct refmap *m, uint64_t s, uint64_t *k, int *own)
{
    const struct gph_geom *g = &st->g;
    uint64_t state = *gph_word(table, gph_state_at(g, s));
    const uint64_t *key = gph_word(table, gph_key_at(g, s));
    uint64_t ref = *gph_word(table, gph_ref_at(g, s));
    const uint64_t *cell;
    uint64_t seq, vk, h;
    *k = 0;
    *own = 0;
    if (state == GPH_INSERT)
        return "is still claimed by an insert (INSERT) after the run";
    if (gph_key_number(key, g->kw, k) != 0)
        return "holds a key that is not a record name";
    if (state != gph_fingerprint(key, g->kw))
        return "holds a key whose fingerprint is not its state word";
    h = probe(m, *k);
    seq = m->used[h] ? m->seq[h] : 0;
    if (!seq)
        return "holds a key the reference does not have";
    if (__atomic_exchange_n(&m->seen[h], 1, __ATOMIC_RELAXED))
        return "holds a key that another slot holds too";
    *own = 1;
    if (ref != 2 * s && ref != 2 * s + 1)
        return "refers to a cell not its own";
    vk = gph_value_key(key, g->kw);
    cell = gph_word(table, gph_cell_at(g, ref));
    for (uint32_t w = 0; w < g->vbytes / 8; w++)
        if (cell[w] != gph_value_word(vk, seq, w))
            return w == 0 ? "holds another value than the reference's last"
                          : "holds a value whose words are not all that value's";
    return NULL;
}

int gph_check(const struct gph_state *st, const uint8_t *table, uint64_t first,
              struct wl_wrong *w)
{
    struct refmap m;
    uint64_t keys = st->load_ops, nslots = gph_slots(&st->g), items = 0, bad = UINT64_MAX;
    uint64_t good = 0, stray = 0;
    const char *why = NULL;
    uint64_t why_key = 0;
    int rc;
    for (uint64_t i = st->load_ops; i < st->load_ops + st->run_ops; i++)
        keys += st->h_op[i] == GPH_INSERT_OP;
    if (map_init(&m, keys) != 0)
        return -1;
    rc = replay(st, &m, first);
#pragma omp parallel for schedule(static) reduction(+ : items, good, stray)
    for (uint64_t s = 0; s < nslots; s++) {
        const char *p;
        uint64_t k;
        int own;
        if (rc < 0 || *gph_word(table, gph_state_at(&st->g, s)) == GPH_EMPTY)
            continue;
        items++;
        if ((p = slot_problem(st, table, &m, s, &k, &own)) == NULL) {
            good++;
        } else {
            stray += !own;
#pragma omp critical
            if (s < bad) {
                bad = s;
                why = p;
                why_key = k;
            }
        }
    }
    /* Every key present in the reference and every slot holding another:
     * those not held rightly once are wrong. */
    if (rc >= 0 && w) {
        w->units = "keys";
        w->bad += m.present - good + stray;
        w->total += m.present + stray;
    }
    if (rc == 0 && why) {
        gpm_set_error("slot %llu (key %llu) %s", (unsigned long long)bad,
                      (unsigned long long)why_key, why);
        rc = 1;
    } else if (rc == 0 && items != m.present) {
        gpm_set_error("the table holds %llu items; the reference has %llu keys present",
                      (unsigned long long)items, (unsigned long long)m.present);
        rc = 1;
    }
    map_free(&m);
    return rc;
}
