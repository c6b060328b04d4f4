/* GPHash kernels. A batch goes through the harness's batch path
 * (batch_path.h): its keys and operations copied in while the batch before
 * runs, its operations grouped by the low bits of their fingerprints (one
 * block's stable sort, so one key's operations keep their batch order),
 * and a warp takes each run of one group, a turn for each of its keys: its
 * lanes read the key's 32 candidate slots at once (the paper's one-shot
 * warp access), then the warp walks the key's operations in order,
 * answering each read from the key's value at that point, and makes the
 * key's net change in the batch durable, log-free:
 *   insert  claim a free slot (EMPTY -> INSERT by CAS); the record's
 *           reference, key and first cell stored as one run of bytes and
 *           persisted; then the fingerprint stored and persisted;
 *   update  the value into the slot's other cell, persisted, then the
 *           slot's reference swung to it by CAS, persisted;
 *   delete  the state swung from the fingerprint to EMPTY, persisted.
 * Lookups and claims read a mirror of the table in GPU memory (gpm and
 * gpm-eadr, unless --mirror 0), which every store also writes, so that
 * only writes cross to PM; the claim then stays in the mirror. Without
 * it they read PM, through BktCache. Runs of different keys go at once and
 * race for free slots by CAS: a warp whose CAS lost reads the candidates
 * again. After the batch's kernels the GPU stores the header's count of
 * batches done and persists it: the host never waits for a batch.
 *
 * In a transaction's batch (the modes whose kernels do not persist, see
 * gphash.c) the kernels change the table's device copy instead, and give
 * the mode's engine each change (wl_tx_changed) and, after the batch, the
 * old value of each state and reference they changed (wl_tx_undo, a
 * thread a record). A location must be logged once a batch, so there a
 * delete waits for a kernel of its own, after every insert: no insert of
 * the batch can claim the slot it frees. */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include "gphash.h"
#include "wl_tx.cuh"

#define THREADS 256u
#define MAX_BLOCKS 65535u
#define FULL 0xffffffffu
/* Bits of the fingerprint that group a batch: keys that share them take
 * turns in one warp (run()), which is rare at 2^16 and cheaper to sort. */
#define GROUP_BITS 16

/* The table as a kernel sees it. Lookups read RD and claims swap there:
 * the GPU's copy of the table (a write-through mirror of PM, or the copy a
 * transaction's batch or mode none works on), or PM itself. Stores go to
 * PM where PM is not NULL, persisted by the caller's wl_persist, and to the
 * copy where RD is one. BktCache (reads from PM only): hot buckets' slots
 * (state, key, reference) copied into GPU memory, frozen between loading
 * phases; a cached copy is read in place of PM's and written after it. */
struct tbl {
    struct gph_geom g;
    uint8_t *rd, *pm;
    uint32_t vw;       /* words of a value */
    uint32_t *entry;   /* each bucket's cache entry, or GPH_UNCACHED (NULL: no cache) */
    uint32_t *freq;    /* each bucket's lookups since the last loading (LFU) */
    uint64_t *c_state, *c_key, *c_ref; /* the entries' slots */
    uint8_t *dirty;    /* a loading phase runs: the buckets written are marked */
    /* A transaction's batch (tx 1): */
    int tx;
    wl_txdev d;        /* what the engine takes of each change */
    struct gph_change *chg;     /* the words changed, with their old values, */
    unsigned long long *n;      /* counted in n[0]; the deletes left for later in n[1] */
    struct gph_change *del;     /* (the slot, its fingerprint) */
};
struct gph_change {
    uint64_t off, old;
};
#define GPH_UNCACHED 0xffffffffu

/* The kernels' counts (gph_state's): inserts without a slot, slots the
 * recovery cleared, swaps of a key's own slot that lost, items found,
 * claims another key won, buckets looked up and those the cache served,
 * entries fetched again; then key runs (a lookup each), inserts, updates
 * and deletes. */
enum { C_FULL, C_CLEARED, C_LOST, C_ITEMS, C_RETRIES, C_LOOKUPS, C_HITS, C_REFETCHED,
       C_KEY_RUNS, C_INSERTS, C_UPDATES, C_DELETES };

/* Cache set C's entries in T, the table as a kernel sees it. */
static void use_set(struct tbl *t, const struct gph_cache_set *c)
{
    t->entry = c->entry;
    t->c_state = c->state;
    t->c_key = c->key;
    t->c_ref = c->ref;
}

/* PM (NULL: none written) and the GPU's copy of the table, if st has one. */
static struct tbl tbl_of(const struct gph_state *st, uint8_t *pm, int cached, const wl_txdev *d)
{
    const struct gph_geom *g = &st->g;
    struct tbl t;
    memset(&t, 0, sizeof t);
    t.g = *g;
    t.pm = pm;
    t.rd = st->d_table ? st->d_table : pm;
    t.vw = g->vbytes / 8;
    if (cached && st->cache_entries) {
        use_set(&t, &st->set[st->active]);
        t.freq = st->d_freq;
        t.dirty = st->loading ? st->d_dirty : NULL;
    }
    if (d) {
        t.tx = 1;
        t.d = *d;
        t.chg = (struct gph_change *)st->d_chg;
        t.del = (struct gph_change *)st->d_del;
        t.n = st->d_lists;
    }
    return t;
}

__device__ __forceinline__ uint64_t vload(const uint64_t *p)
{
    return *(const volatile uint64_t *)p;
}

/* A transaction's batch: offset OFF holds V now (the engine flags or
 * gathers it). */
__device__ __forceinline__ void changed(const struct tbl *t, uint64_t off, uint64_t v)
{
    if (t->tx)
        wl_tx_changed(&t->d, off, &v);
}

/* A transaction's batch: OFF changed from OLD, its undo record to log. */
__device__ __forceinline__ void changed_from(const struct tbl *t, uint64_t off, uint64_t old)
{
    unsigned long long k;
    if (!t->tx)
        return;
    k = atomicAdd(&t->n[0], 1ull);
    t->chg[k].off = off;
    t->chg[k].old = old;
}

/* Stores V at OFF: on PM (the caller persists it) and in the GPU's copy. */
__device__ __forceinline__ void put_at(const struct tbl *t, uint64_t off, uint64_t v, wl_out o,
                                       const char *file, unsigned line)
{
    if (t->pm)
        wl_store_u64_at(o, gph_word(t->pm, off), v, file, line);
    if (t->rd != t->pm)
        *(volatile uint64_t *)gph_word(t->rd, off) = v;
    changed(t, off, v);
}
#define put(t, off, v, o) put_at((t), (off), (v), (o), __FILE__, __LINE__)

/* Swaps OFF from OLD to V where lookups read, then stores V on PM (the
 * caller persists it); the old value. A swap on PM itself is one. */
__device__ __forceinline__ uint64_t swap_at(const struct tbl *t, uint64_t off, uint64_t old,
                                            uint64_t v, wl_out o, const char *file,
                                            unsigned line)
{
    uint64_t was;
    if (t->pm && t->rd == t->pm)
        return wl_cas_u64_at(o, gph_word(t->pm, off), old, v, file, line);
    was = atomicCAS((unsigned long long *)gph_word(t->rd, off), old, v);
    if (was == old && t->pm)
        wl_store_u64_at(o, gph_word(t->pm, off), v, file, line);
    return was;
}
#define swap(t, off, old, v, o) swap_at((t), (off), (old), (v), (o), __FILE__, __LINE__)

/* Claims slot S for an insert (EMPTY -> INSERT) where lookups see it: in
 * the GPU's copy alone (PM keeps EMPTY until the fingerprint: nothing to
 * clear after a crash), or on PM where lookups read PM. */
__device__ __forceinline__ uint64_t claim(const struct tbl *t, int64_t s, wl_out o)
{
    uint64_t off = gph_state_at(&t->g, (uint64_t)s);
    if (t->pm && t->rd == t->pm)
        return wl_cas_u64(o, gph_word(t->pm, off), GPH_EMPTY, GPH_INSERT);
    return atomicCAS((unsigned long long *)gph_word(t->rd, off), GPH_EMPTY, GPH_INSERT);
}

/* A delete: slot S's state from the key's fingerprint FP to EMPTY,
 * persisted. Where lookups read a copy, the slot is freed there only after
 * EMPTY is durable on PM: an insert that claims it then cannot have its
 * fingerprint overwritten by this store arriving late. */
__device__ void release(const struct tbl *t, int64_t s, uint64_t fp, wl_out o,
                        unsigned long long *count)
{
    uint64_t off = gph_state_at(&t->g, (uint64_t)s);
    if (t->pm == t->rd) {
        if (swap(t, off, fp, GPH_EMPTY, o) != fp)
            atomicAdd(&count[C_LOST], 1ull);
        wl_persist(o);
        return;
    }
    if (t->pm) {
        wl_store_u64(o, gph_word(t->pm, off), GPH_EMPTY);
        wl_persist(o);
    }
    if (atomicCAS((unsigned long long *)gph_word(t->rd, off), fp, GPH_EMPTY) != fp)
        atomicAdd(&count[C_LOST], 1ull);
}

__device__ __forceinline__ uint64_t warp_sum(uint64_t v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_xor_sync(FULL, v, d);
    return v;
}

/* Each operation's group: the low GROUP_BITS bits of its fingerprint
 * (only those, so that one group's operations are one run once grouped). */
__global__ void fp_kernel(const uint64_t *key, uint32_t kw, uint32_t n, uint32_t *fp)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        fp[i] = (uint32_t)gph_fingerprint(key + i * kw, kw) & ((1u << GROUP_BITS) - 1);
}

/* The key being worked on, and what the lookup found. */
struct sess {
    uint64_t key[4], fp, vk, b1, b2;
    int64_t slot;  /* its slot, or -1 */
    uint64_t ref;  /* the slot's cell */
    uint64_t seq;  /* the value's sequence number there (0: absent) */
    uint64_t fold; /* and what a read of it answers */
};

/* This lane's candidate slot (-1: none). */
__device__ __forceinline__ int64_t lane_slot(const struct tbl *t, const struct sess *s,
                                             unsigned lane)
{
    uint64_t b;
    if (lane >= GPH_CANDIDATES * t->g.slots)
        return -1;
    b = gph_candidate(&t->g, s->b1, s->b2, lane / t->g.slots);
    return b == GPH_NO_BUCKET ? -1 : (int64_t)(b * t->g.slots + lane % t->g.slots);
}

/* A loading phase runs: SLOT's bucket was written (its entry, if it gets
 * one, is fetched again before lookups read it). */
__device__ __forceinline__ void written(const struct tbl *t, int64_t slot)
{
    if (t->dirty)
        t->dirty[(uint64_t)slot / t->g.slots] = 1;
}

/* Where SLOT's copy is in the cache, or -1. */
__device__ __forceinline__ int64_t cached(const struct tbl *t, int64_t slot)
{
    uint32_t e;
    if (!t->entry || slot < 0)
        return -1;
    e = t->entry[(uint64_t)slot / t->g.slots];
    if (e == GPH_UNCACHED)
        return -1;
    return (int64_t)((uint64_t)e * t->g.slots + (uint64_t)slot % t->g.slots);
}

/* A slot's state, key word or reference: the cached copy's where it has one. */
__device__ __forceinline__ uint64_t slot_state(const struct tbl *t, int64_t slot, int64_t c)
{
    return c >= 0 ? vload(&t->c_state[c]) : vload(gph_word(t->rd, gph_state_at(&t->g, (uint64_t)slot)));
}
__device__ __forceinline__ uint64_t slot_key(const struct tbl *t, int64_t slot, int64_t c,
                                             uint32_t j)
{
    return c >= 0 ? t->c_key[c * t->g.kw + j]
                  : vload(gph_word(t->rd, gph_key_at(&t->g, (uint64_t)slot) + 8u * j));
}
__device__ __forceinline__ uint64_t slot_ref(const struct tbl *t, int64_t slot, int64_t c)
{
    return c >= 0 ? t->c_ref[c] : vload(gph_word(t->rd, gph_ref_at(&t->g, (uint64_t)slot)));
}

/* One-shot warp access: every candidate slot at once; the key's slot, its
 * cell, and its whole value, read once (a lane a word). Each lane reads its
 * candidate's state, key and reference together, before it knows whether
 * the state matches: one round trip to the table where waiting for the
 * state first would make three. Counts each candidate bucket's lookup for
 * the cache, and those the cache served. */
__device__ void lookup(const struct tbl *t, struct sess *s, unsigned lane,
                       unsigned long long *count)
{
    int64_t my = lane_slot(t, s, lane), c = cached(t, my);
    int match = 0;
    unsigned m;
    uint64_t ref = 0, word = 0;
    if (my >= 0) {
        uint64_t k[4];
        uint64_t st = slot_state(t, my, c);
        for (uint32_t j = 0; j < t->g.kw; j++)
            k[j] = slot_key(t, my, c, j);
        ref = slot_ref(t, my, c);
        match = st == s->fp;
        for (uint32_t j = 0; j < t->g.kw; j++)
            match &= k[j] == s->key[j];
    }
    if (t->entry) { /* a lane a candidate bucket counts its lookup */
        int head = my >= 0 && (uint64_t)my % t->g.slots == 0;
        unsigned heads = __ballot_sync(FULL, head), hits = __ballot_sync(FULL, head && c >= 0);
        if (head)
            atomicAdd(&t->freq[(uint64_t)my / t->g.slots], 1u);
        if (lane == 0) {
            atomicAdd(&count[C_LOOKUPS], (unsigned long long)__popc(heads));
            atomicAdd(&count[C_HITS], (unsigned long long)__popc(hits));
        }
    }
    m = __ballot_sync(FULL, match);
    s->slot = -1;
    s->ref = s->seq = s->fold = 0;
    if (!m)
        return;
    {
        unsigned f = __ffs(m) - 1;
        s->slot = __shfl_sync(FULL, (long long)my, f);
        s->ref = __shfl_sync(FULL, ref, f);
    }
    if (lane < t->vw)
        word = vload(gph_word(t->rd, gph_cell_at(&t->g, s->ref) + 8u * lane));
    s->seq = __shfl_sync(FULL, word, 0);
    s->fold = warp_sum(lane < t->vw ? gpm_mix64(word + lane) : 0);
}

/* Stores the value of SEQ in cell CELL, each lane a word. */
__device__ void put_value(const struct tbl *t, const struct sess *s, uint64_t cell,
                          uint64_t seq, unsigned lane, wl_out o)
{
    if (lane < t->vw)
        put(t, gph_cell_at(&t->g, cell) + 8u * lane, gph_value_word(s->vk, seq, lane), o);
}

/* Insert: claim a free slot of the least-loaded candidate by CAS; then the
 * record's reference, key and first cell, one run of bytes a lane a word
 * (its padding too, so that it leaves as one burst); then the fingerprint,
 * the record's first word. */
__device__ void insert(const struct tbl *t, const struct sess *s, uint64_t seq, unsigned lane,
                       wl_out o, unsigned long long *count)
{
    int64_t my = lane_slot(t, s, lane), c = cached(t, my), slot, cs;
    uint32_t slots = t->g.slots, kw = t->g.kw, hw = (uint32_t)gph_head_bytes(&t->g) / 8;
    unsigned target;
    for (;;) {
        uint64_t st = my >= 0 ? slot_state(t, my, c) : GPH_INSERT;
        unsigned freem = __ballot_sync(FULL, my >= 0 && st == GPH_EMPTY);
        unsigned used = __ballot_sync(FULL, my >= 0 && st != GPH_EMPTY);
        unsigned best = 0, best_load = 99, ok = 0;
        if (!freem) {
            if (lane == 0)
                atomicAdd(&count[C_FULL], 1ull);
            return;
        }
        for (uint32_t k = 0; k < GPH_CANDIDATES; k++) {
            unsigned mk = ((1u << slots) - 1) << (k * slots);
            if ((freem & mk) && (unsigned)__popc(used & mk) < best_load) {
                best_load = __popc(used & mk);
                best = mk;
            }
        }
        target = __ffs(freem & best) - 1;
        if (lane == target) {
            ok = claim(t, my, o) == GPH_EMPTY;
            if (!ok)
                atomicAdd(&count[C_RETRIES], 1ull); /* another key's warp took the slot */
            else
                changed_from(t, gph_state_at(&t->g, (uint64_t)my), GPH_EMPTY);
            if (ok && c >= 0)
                *(volatile uint64_t *)&t->c_state[c] = GPH_INSERT;
        }
        if (__shfl_sync(FULL, ok, target))
            break;
    }
    slot = __shfl_sync(FULL, (long long)my, target);
    cs = __shfl_sync(FULL, (long long)c, target);
    if (lane == 0)
        written(t, slot);
    if (lane + 1 < hw + t->vw) { /* lane L: the record's word L + 1 */
        uint64_t off = gph_ref_at(&t->g, (uint64_t)slot) + 8u * lane;
        if (lane == 0)
            put(t, off, 2 * (uint64_t)slot, o);
        else if (lane <= kw)
            put(t, off, s->key[lane - 1], o);
        else if (lane + 1 >= hw)
            put(t, off, gph_value_word(s->vk, seq, lane + 1 - hw), o);
        else if (t->pm) /* padding: stored only so that the run is whole */
            wl_store_u64(o, gph_word(t->pm, off), 0);
        wl_persist(o);
    }
    if (cs >= 0 && lane < kw)
        t->c_key[cs * kw + lane] = s->key[lane];
    if (cs >= 0 && lane == 0)
        t->c_ref[cs] = 2 * (uint64_t)slot;
    __syncwarp();
    if (lane == 0) {
        put(t, gph_state_at(&t->g, (uint64_t)slot), s->fp, o);
        wl_persist(o);
        if (cs >= 0)
            *(volatile uint64_t *)&t->c_state[cs] = s->fp;
    }
}

/* The run's net change: from the value found (S->seq) to CUR. */
__device__ void finish(const struct tbl *t, const struct sess *s, uint64_t cur, unsigned lane,
                       wl_out o, unsigned long long *count)
{
    int64_t c = cached(t, s->slot);
    if (cur == s->seq)
        return;
    if (lane == 0)
        atomicAdd(&count[!cur ? C_DELETES : s->seq ? C_UPDATES : C_INSERTS], 1ull);
    if (lane == 0 && s->slot >= 0)
        written(t, s->slot);
    if (s->seq && cur) { /* update: the other cell, then the reference */
        uint64_t next = s->ref ^ 1, ref = gph_ref_at(&t->g, (uint64_t)s->slot);
        put_value(t, s, next, cur, lane, o);
        if (lane < t->vw)
            wl_persist(o);
        __syncwarp();
        if (lane == 0) {
            if (swap(t, ref, s->ref, next, o) != s->ref)
                atomicAdd(&count[C_LOST], 1ull);
            wl_persist(o);
            changed_from(t, ref, s->ref);
            changed(t, ref, next);
            if (c >= 0)
                t->c_ref[c] = next;
        }
    } else if (cur) {
        insert(t, s, cur, lane, o, count);
    } else if (lane == 0 && t->tx) { /* delete, after the batch's inserts */
        unsigned long long k = atomicAdd(&t->n[1], 1ull);
        t->del[k].off = (uint64_t)s->slot;
        t->del[k].old = s->fp;
    } else if (lane == 0) { /* delete */
        release(t, s->slot, s->fp, o, count);
        if (c >= 0)
            *(volatile uint64_t *)&t->c_state[c] = GPH_EMPTY;
    }
}

__device__ __forceinline__ int same_key(const uint64_t *a, const uint64_t *b, uint32_t kw)
{
    int same = 1;
    for (uint32_t j = 0; j < kw; j++)
        same &= a[j] == b[j];
    return same;
}

/* The operations at positions K..K+31 (below Q), one a lane, that are
 * key S's: their steps, composed by a scan over the lanes (gph_then), give
 * each lane the value its operation met and the key's state after them, and
 * those lanes answer their reads at once. Where READ, positions whose keys
 * took their turn already (TAKEN holds STAMP) are passed over. This key's
 * positions after another key's (one in this chunk, or SEEN before it) are
 * marked taken: the turns after this one scan from there. How many were
 * the key's; in *OTHERS, the lanes of keys still to take their turn. */
__device__ uint32_t walk(const struct tbl *t, const struct sess *s, const uint8_t *op,
                         const uint64_t *key, const uint32_t *idx, uint32_t *taken,
                         uint32_t stamp, int read, int seen, uint64_t k, uint64_t q,
                         uint64_t seq0, uint64_t *ans, uint64_t *cur, unsigned *others,
                         unsigned lane)
{
    uint64_t kk = k + lane, before = 0;
    int valid = kk < q && !(read && *(const volatile uint32_t *)&taken[kk] == stamp);
    uint32_t i = valid ? idx[kk] : 0, o_ = 0;
    int mine = valid && same_key(key + (uint64_t)i * t->g.kw, s->key, t->g.kw);
    unsigned m = __ballot_sync(FULL, mine);
    struct gph_fn f = {0, GPH_KEEP}, g;
    *others = __ballot_sync(FULL, valid && !mine);
    if (mine) {
        o_ = op[i];
        f = gph_fn_of(o_, seq0 + i + 1);
    }
    if (m) { /* uniform: every lane shuffles */
        for (unsigned d = 1; d < 32; d *= 2) { /* f: the steps of lanes 0..lane, composed */
            g.v = __shfl_up_sync(FULL, f.v, d);
            g.kind = __shfl_up_sync(FULL, f.kind, d);
            if (lane >= d)
                f = gph_then(g, f);
        }
        g.v = __shfl_up_sync(FULL, f.v, 1); /* g: those of the lanes before it */
        g.kind = __shfl_up_sync(FULL, f.kind, 1);
        before = gph_apply(lane ? g : gph_fn_of(GPH_READ, 0), *cur);
        g.v = __shfl_sync(FULL, f.v, 31);
        g.kind = __shfl_sync(FULL, f.kind, 31);
        *cur = gph_apply(g, *cur);
    }
    if (mine) {
        int a = gph_answers(o_);
        ans[2 * i] = a ? before : 0;
        ans[2 * i + 1] = !a ? 0 : before == s->seq ? s->fold
                                                  : gph_value_sum(s->vk, before, t->g.vbytes);
        if (seen || (*others & ((1u << lane) - 1)))
            taken[kk] = stamp;
    }
    __syncwarp();
    return (uint32_t)__popc(m);
}

/* Positions P..Q-1 of the sorted batch: one group's operations, in batch
 * order. Each key of the group takes one turn, in the order the keys first
 * appear: a lookup, every operation of the key in the group, in order,
 * then its net change. One turn a key a batch, even where keys that share
 * the grouped bits interleave (A, B, A): no word changes twice in a batch
 * (a transaction's undo record a word suffices, and the cell the reference
 * named before the batch is never overwritten), and a delete deferred to
 * the batch's end is never met again by its own key's insert. A group of
 * one key, nearly every group, reads and marks nothing. */
__device__ void run(const struct tbl *t, const uint8_t *op, const uint64_t *key,
                    const uint32_t *idx, uint32_t *taken, uint32_t stamp, uint64_t p,
                    uint64_t q, uint64_t seq0, uint64_t *ans, unsigned long long *count,
                    wl_out o, unsigned lane)
{
    uint32_t kw = t->g.kw;
    for (int turn = 0; p < q; turn++) {
        struct sess s;
        uint64_t cur, next = q, units = 0;
        const uint64_t *k0 = key + (uint64_t)idx[p] * kw;
        for (uint32_t j = 0; j < kw; j++)
            s.key[j] = k0[j];
        s.fp = gph_fingerprint(s.key, kw);
        s.vk = gph_value_key(s.key, kw);
        s.b1 = gph_top(&t->g, s.key, 1);
        s.b2 = gph_top(&t->g, s.key, 2);
        lookup(t, &s, lane, count);
        if (lane == 0)
            atomicAdd(&count[C_KEY_RUNS], 1ull);
        cur = s.seq;
        for (uint64_t k = p; k < q; k += 32) {
            unsigned others;
            units += walk(t, &s, op, key, idx, taken, stamp, turn > 0, next < q, k, q, seq0,
                          ans, &cur, &others, lane);
            if (others && next == q)
                next = k + __ffs(others) - 1;
        }
        finish(t, &s, cur, lane, o, count);
        if (lane == 0)
            wl_progressed(o, units);
        p = next;
    }
}

/* At most 64 registers a thread, so that four blocks fit an SM and a
 * batch of 4,096 operations' warps (a warp an operation: 512 blocks) fit
 * the H100's 132 SMs at once (at 72 registers three blocks fit: two
 * waves). */
__global__ void __launch_bounds__(THREADS, 4)
run_kernel(struct tbl t, const uint8_t *op, const uint64_t *key, const uint32_t *fp,
           const uint32_t *idx, uint32_t *taken, uint32_t stamp, uint32_t n, uint64_t seq0,
           uint64_t *ans, unsigned long long *count, wl_out o)
{
    unsigned lane = threadIdx.x & 31u;
    uint64_t w = gpm_grid_rank() / 32, nw = gpm_grid_threads() / 32;
    for (uint64_t p = w; p < n; p += nw) {
        uint64_t q = p + 1;
        if (p > 0 && fp[p] == fp[p - 1])
            continue; /* not a run's head (of the grouped bits): uniform across the warp */
        for (;;) {
            uint64_t k = q + lane;
            unsigned same = __ballot_sync(FULL, k < n && fp[k] == fp[p]);
            if (same != FULL) {
                q += __ffs(~same) - 1;
                break;
            }
            q += 32;
        }
        run(&t, op, key, idx, taken, stamp, p, q, seq0, ans, count, o, lane);
    }
}

/* A transaction's batch: its deletes, after its inserts. */
__global__ void delete_kernel(struct tbl t, unsigned long long *count)
{
    for (uint64_t i = gpm_grid_rank(); i < t.n[1]; i += gpm_grid_threads()) {
        uint64_t off = gph_state_at(&t.g, t.del[i].off), fp = t.del[i].old;
        if (atomicCAS((unsigned long long *)gph_word(t.rd, off), fp, GPH_EMPTY) != fp)
            atomicAdd(&count[C_LOST], 1ull);
        changed_from(&t, off, fp);
        changed(&t, off, GPH_EMPTY);
    }
}

/* A transaction's batch: each changed state and reference's undo record,
 * a thread a record (the log's grid: GPH_LOG_BLOCKS x GPH_LOG_THREADS). */
__global__ void log_kernel(struct tbl t)
{
    for (uint64_t i = gpm_grid_rank(); i < t.n[0]; i += gpm_grid_threads())
        wl_tx_undo(&t.d, t.chg[i].off, &t.chg[i].old, 8);
}

/* ---- BktCache's loading phase: the most looked-up buckets since the last
 * one (LFU, the counts then halved) take the entries of the set the
 * lookups do not read. Concurrent loading (the paper's): the phase runs on
 * a stream of its own while batches go on with the other set, and the
 * buckets they write meanwhile are marked; once it is done, the entries of
 * marked buckets are fetched again and the sets swap, between batches. ---- */

__global__ void uncache_kernel(uint32_t *entry, uint32_t *bucket_of, uint64_t entries)
{
    for (uint64_t y = gpm_grid_rank(); y < entries; y += gpm_grid_threads()) {
        if (bucket_of[y] != GPH_UNCACHED)
            entry[bucket_of[y]] = GPH_UNCACHED;
        bucket_of[y] = GPH_UNCACHED;
    }
}

__global__ void ids_kernel(uint32_t *ids, uint64_t n)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        ids[i] = (uint32_t)i;
}

/* Slot J of entry I's bucket B, copied from PM. */
__device__ __forceinline__ void fetch_slot(const struct tbl *t, uint64_t i, uint64_t b,
                                           uint64_t j)
{
    int64_t slot = (int64_t)(b * t->g.slots + j);
    t->c_state[i] = slot_state(t, slot, -1);
    for (uint32_t w = 0; w < t->g.kw; w++)
        t->c_key[i * t->g.kw + w] = slot_key(t, slot, -1, w);
    t->c_ref[i] = slot_ref(t, slot, -1);
}

/* A thread a slot of entry Y: the bucket's slots copied from PM. */
__global__ void fetch_kernel(struct tbl t, const uint32_t *hot, const uint32_t *hot_freq,
                             uint32_t *bucket_of, uint64_t entries)
{
    uint32_t slots = t.g.slots;
    for (uint64_t i = gpm_grid_rank(); i < entries * slots; i += gpm_grid_threads()) {
        uint64_t y = i / slots, j = i % slots, b = hot[y];
        if (hot_freq[y] == 0)
            continue; /* never looked up: not worth an entry */
        fetch_slot(&t, i, b, j);
        if (j == 0) {
            t.entry[b] = (uint32_t)y;
            bucket_of[y] = (uint32_t)b;
        }
    }
}

/* The entries whose buckets batches wrote while the phase ran, again. */
__global__ void refetch_kernel(struct tbl t, const uint32_t *bucket_of, const uint8_t *dirty,
                               uint64_t entries, unsigned long long *count)
{
    uint32_t slots = t.g.slots;
    for (uint64_t i = gpm_grid_rank(); i < entries * slots; i += gpm_grid_threads()) {
        uint64_t y = i / slots, j = i % slots, b = bucket_of[y];
        if (b == GPH_UNCACHED || !dirty[b])
            continue;
        fetch_slot(&t, i, b, j);
        if (j == 0)
            atomicAdd(&count[C_REFETCHED], 1ull);
    }
}

/* The counts halved: those the phase sorted by (SNAP), less half of each,
 * so that lookups counted meanwhile stay counted. */
__global__ void halve_kernel(uint32_t *freq, const uint32_t *snap, uint64_t n)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        atomicSub(&freq[i], snap[i] / 2);
}

__global__ void scan_kernel(struct tbl t, uint64_t nslots, unsigned long long *count, wl_out o)
{
    uint64_t cleared = 0, items = 0;
    for (uint64_t s = gpm_grid_rank(); s < nslots; s += gpm_grid_threads()) {
        uint64_t *p = gph_word(t.pm, gph_state_at(&t.g, s)), st = vload(p);
        if (st == GPH_INSERT) {
            wl_store_u64(o, p, GPH_EMPTY);
            wl_persist(o);
            cleared++;
        }
        items += st > GPH_INSERT;
    }
    cleared = warp_sum(cleared); /* every lane is here: the grid is whole warps */
    items = warp_sum(items);
    if ((threadIdx.x & 31u) == 0) {
        atomicAdd(&count[C_CLEARED], (unsigned long long)cleared);
        atomicAdd(&count[C_ITEMS], (unsigned long long)items);
    }
}

/* Batch B's end where the kernels persist in-kernel: the count of batches
 * done, stored in the header and persisted. The stream runs it after the
 * batch's kernels have ended, each of their persists returned. */
__global__ void done_kernel(uint64_t *done, uint64_t word, wl_out o)
{
    wl_store_u64(o, done, word);
    wl_persist(o);
}

/* A batch's inputs in the pipe's buffer: its keys, then its operations. */
static size_t keys_bytes(const struct gph_state *st) { return st->batch * st->g.kw * 8; }

int gph_gpu_alloc(struct gph_state *st)
{
    uint64_t n = st->batch;
    for (int k = 0; k < 2; k++)
        if (wl_dev_alloc((void **)&st->d_fp[k], n * 4) || wl_group_alloc(&st->group[k], n) != 0)
            return -1;
    if (wl_dev_alloc((void **)&st->d_taken, n * 4) || wl_dev_zero(st->d_taken, n * 4))
        return -1;
    if (wl_dev_alloc((void **)&st->d_count, GPH_COUNTS * 8) ||
        wl_dev_zero(st->d_count, GPH_COUNTS * 8) ||
        wl_dev_alloc((void **)&st->d_lists, 2 * 8) || wl_dev_zero(st->d_lists, 2 * 8) ||
        wl_dev_alloc((void **)&st->d_chg, n * sizeof(struct gph_change)) ||
        wl_dev_alloc((void **)&st->d_del, n * sizeof(struct gph_change)))
        return -1;
    return wl_pipe_open(&st->pipe, keys_bytes(st) + n, n * 16, st->lat);
}

void gph_gpu_free(struct gph_state *st)
{
    wl_pipe_close(&st->pipe);
    for (int k = 0; k < 2; k++) {
        wl_group_free(&st->group[k]);
        wl_dev_free(st->d_fp[k]);
    }
    wl_dev_free(st->d_taken);
    wl_dev_free(st->d_count);
    wl_dev_free(st->d_lists);
    wl_dev_free(st->d_chg);
    wl_dev_free(st->d_del);
}

int gph_gpu_zero_counts(struct gph_state *st)
{
    st->pipe.kernel_s = 0;
    return wl_dev_zero(st->d_count, GPH_COUNTS * 8);
}

/* The counts the kernels keep: inserts without a slot, swaps of a key's
 * own slot that lost, claims that lost to another key's insert. */
static int check_counts(struct gph_state *st)
{
    unsigned long long k[GPH_COUNTS];
    if (wl_dev_copy(k, st->d_count, sizeof k, 0) != 0)
        return -1;
    st->full = k[C_FULL];
    st->retries = k[C_RETRIES];
    st->lookups = k[C_LOOKUPS];
    st->hits = k[C_HITS];
    st->cache_refetched = k[C_REFETCHED];
    st->key_runs = k[C_KEY_RUNS];
    st->inserts = k[C_INSERTS];
    st->updates = k[C_UPDATES];
    st->deletes = k[C_DELETES];
    if (k[C_LOST])
        return gpm_set_error("%llu swaps of a key's own slot lost their CAS: two warps "
                             "worked on one key", k[C_LOST]);
    return 0;
}

int gph_gpu_batch(struct gph_state *st, uint8_t *pm, uint64_t b, int cached, wl_out o,
                  const wl_txdev *d, uint64_t done)
{
    struct tbl t = tbl_of(st, pm, cached, d);
    uint64_t n = gph_batch_ops(st, b), first = b * st->batch, kw = st->g.kw;
    const void *src[2] = {st->h_key + first * kw, st->h_op + first};
    size_t bytes[2] = {n * kw * 8, n};
    unsigned blocks = wl_blocks(n, THREADS, MAX_BLOCKS);
    unsigned warps_blocks = wl_blocks(n * 32, THREADS, MAX_BLOCKS);
    cudaStream_t s = (cudaStream_t)wl_pipe_stream(&st->pipe);
    cudaStream_t prep = (cudaStream_t)wl_pipe_prep(&st->pipe);
    struct wl_group *g = &st->group[b % 2];
    uint32_t *fp = st->d_fp[b % 2];
    uint8_t *in = wl_pipe_in(&st->pipe, b, src, bytes, 2), *ans;
    const uint64_t *key = (const uint64_t *)in;
    const uint8_t *op = in + bytes[0]; /* right after this batch's keys (a last batch is short) */
    if (!in)
        return -1;
    /* Grouped while the batch before runs: it reads only the inputs. */
    fp_kernel<<<blocks, THREADS, 0, prep>>>(key, (uint32_t)kw, (uint32_t)n, fp);
    if (wl_group_sort(g, fp, n, GROUP_BITS, prep) != 0 || !(ans = wl_pipe_go(&st->pipe)))
        return -1;
    if (d && cudaMemsetAsync(st->d_lists, 0, 2 * 8, s) != cudaSuccess)
        return gpm_set_error("clearing batch %llu's lists failed", (unsigned long long)b);
    run_kernel<<<warps_blocks, THREADS, 0, s>>>(t, op, key, g->key, g->idx, st->d_taken,
                                                (uint32_t)++st->stamp, (uint32_t)n, first,
                                                (uint64_t *)ans, st->d_count, o);
    if (d) {
        delete_kernel<<<blocks, THREADS, 0, s>>>(t, st->d_count);
        if (d->log.pm)
            log_kernel<<<GPH_LOG_BLOCKS, GPH_LOG_THREADS, 0, s>>>(t);
    }
    if (done)
        done_kernel<<<1, 1, 0, s>>>(gph_word(pm, offsetof(struct gph_header, done)), done, o);
    if (wl_pipe_out(&st->pipe, st->h_ans + 2 * first, n * 16) != 0)
        return -1;
    /* A transaction's engine goes on from the batch's changes: done first. */
    if (d && gph_gpu_drain(st) != 0)
        return -1;
    return b + 1 == st->batches || b + 1 == st->load_batches ? check_counts(st) : 0;
}

int gph_gpu_drain(struct gph_state *st)
{
    if (wl_pipe_drain(&st->pipe) != 0)
        return -1;
    st->kernel_s = st->pipe.kernel_s;
    return 0;
}

int gph_gpu_scan(struct gph_state *st, uint8_t *pm, wl_out o, uint64_t *cleared,
                 uint64_t *items)
{
    uint64_t nslots = gph_slots(&st->g);
    unsigned long long k[GPH_COUNTS];
    struct tbl t = tbl_of(st, pm, 0, NULL);
    t.rd = pm; /* what PM holds, not a copy of it */
    if (wl_dev_zero(st->d_count, sizeof k) != 0)
        return -1;
    scan_kernel<<<wl_blocks(nslots, THREADS, MAX_BLOCKS), THREADS>>>(t, nslots, st->d_count, o);
    if (wl_dev_sync("gphash recovery scan") != 0 || wl_dev_copy(k, st->d_count, sizeof k, 0) ||
        wl_dev_zero(st->d_count, sizeof k) != 0)
        return -1;
    *cleared = k[C_CLEARED];
    *items = k[C_ITEMS];
    return 0;
}

int gph_gpu_pin(struct gph_state *st)
{
    uint64_t n = st->load_ops + st->run_ops;
    if (cudaHostRegister(st->h_op, n, cudaHostRegisterDefault) != cudaSuccess ||
        cudaHostRegister(st->h_key, n * st->g.kw * 8, cudaHostRegisterDefault) != cudaSuccess ||
        cudaHostRegister(st->h_ans, n * 16, cudaHostRegisterDefault) != cudaSuccess) {
        gph_gpu_unpin(st);
        return gpm_set_error("pinning the stream's %llu operations failed",
                             (unsigned long long)n);
    }
    return 0;
}

void gph_gpu_unpin(struct gph_state *st)
{
    /* Whatever was registered: unregistering the rest fails harmlessly. */
    if (st->h_op)
        cudaHostUnregister(st->h_op);
    if (st->h_key)
        cudaHostUnregister(st->h_key);
    if (st->h_ans)
        cudaHostUnregister(st->h_ans);
    cudaGetLastError();
}

/* The table as a kernel sees it, with set K's entries. */
static struct tbl tbl_set(const struct gph_state *st, uint8_t *table, int k)
{
    struct tbl t = tbl_of(st, table, 0, NULL); /* BktCache: no copy, RD is PM */
    use_set(&t, &st->set[k]);
    return t;
}

static cudaStream_t side(const struct gph_state *st) { return (cudaStream_t)st->side; }

int gph_gpu_cache_alloc(struct gph_state *st)
{
    uint64_t nb = gph_buckets(&st->g), e = st->cache_entries, slots = st->g.slots;
    cudaError_t err;
    if (!e)
        return 0;
    for (int k = 0; k < 2; k++) {
        struct gph_cache_set *c = &st->set[k];
        if (wl_dev_alloc((void **)&c->entry, nb * 4) ||
            wl_dev_alloc((void **)&c->bucket_of, e * 4) ||
            wl_dev_alloc((void **)&c->state, e * slots * 8) ||
            wl_dev_alloc((void **)&c->key, e * slots * st->g.kw * 8) ||
            wl_dev_alloc((void **)&c->ref, e * slots * 8))
            return -1;
    }
    if (wl_dev_alloc((void **)&st->d_freq, nb * 4) ||
        wl_dev_alloc((void **)&st->d_freq_snap, nb * 4) ||
        wl_dev_alloc((void **)&st->d_freq_sorted, nb * 4) ||
        wl_dev_alloc((void **)&st->d_ids, nb * 4) ||
        wl_dev_alloc((void **)&st->d_ids_sorted, nb * 4) || wl_dev_alloc((void **)&st->d_dirty, nb))
        return -1;
    if (cudaStreamCreateWithFlags((cudaStream_t *)&st->side, cudaStreamNonBlocking) !=
            cudaSuccess ||
        cudaEventCreateWithFlags((cudaEvent_t *)&st->loaded, cudaEventDisableTiming) !=
            cudaSuccess)
        return gpm_set_error("creating BktCache's loading stream failed");
    ids_kernel<<<wl_blocks(nb, THREADS, MAX_BLOCKS), THREADS>>>(st->d_ids, nb);
    err = cub::DeviceRadixSort::SortPairsDescending(NULL, st->cache_tmp_bytes, st->d_freq_snap,
                                                    st->d_freq_sorted, st->d_ids,
                                                    st->d_ids_sorted, (int)nb);
    if (err != cudaSuccess)
        return gpm_set_error("sizing the cache's sort failed (%s)", cudaGetErrorString(err));
    return wl_dev_alloc(&st->d_cache_tmp, st->cache_tmp_bytes) || wl_dev_sync("gphash cache");
}

void gph_gpu_cache_free(struct gph_state *st)
{
    gph_gpu_cache_settle(st);
    for (int k = 0; k < 2; k++) {
        wl_dev_free(st->set[k].entry);
        wl_dev_free(st->set[k].bucket_of);
        wl_dev_free(st->set[k].state);
        wl_dev_free(st->set[k].key);
        wl_dev_free(st->set[k].ref);
    }
    wl_dev_free(st->d_freq);
    wl_dev_free(st->d_freq_snap);
    wl_dev_free(st->d_freq_sorted);
    wl_dev_free(st->d_ids);
    wl_dev_free(st->d_ids_sorted);
    wl_dev_free(st->d_dirty);
    wl_dev_free(st->d_cache_tmp);
    if (st->loaded)
        cudaEventDestroy((cudaEvent_t)st->loaded);
    if (st->side)
        cudaStreamDestroy(side(st));
}

int gph_gpu_cache_settle(struct gph_state *st)
{
    cudaError_t e;
    if (!st->loading)
        return 0;
    st->loading = 0;
    e = cudaStreamSynchronize(side(st));
    return e == cudaSuccess ? 0 : gpm_set_error("BktCache's loading phase failed (%s)",
                                                cudaGetErrorString(e));
}

int gph_gpu_cache_reset(struct gph_state *st)
{
    uint64_t nb = gph_buckets(&st->g);
    if (!st->cache_entries)
        return 0;
    if (gph_gpu_cache_settle(st) != 0)
        return -1;
    st->active = 0;
    for (int k = 0; k < 2; k++)
        if (wl_dev_fill(st->set[k].entry, 0xff, nb * 4) ||
            wl_dev_fill(st->set[k].bucket_of, 0xff, st->cache_entries * 4))
            return -1;
    return wl_dev_zero(st->d_freq, nb * 4);
}

/* The phase's work, on its stream: the counts as they are now, the set
 * emptied, the buckets sorted by them, the hot ones fetched, the counts
 * halved; then its end's event. */
static int load_set(struct gph_state *st, uint8_t *table, int k)
{
    uint64_t nb = gph_buckets(&st->g), e = st->cache_entries;
    cudaStream_t s = side(st);
    cudaError_t err;
    if (cudaMemcpyAsync(st->d_freq_snap, st->d_freq, nb * 4, cudaMemcpyDeviceToDevice, s) !=
        cudaSuccess)
        return gpm_set_error("copying BktCache's counts failed");
    uncache_kernel<<<wl_blocks(e, THREADS, MAX_BLOCKS), THREADS, 0, s>>>(
        st->set[k].entry, st->set[k].bucket_of, e);
    err = cub::DeviceRadixSort::SortPairsDescending(st->d_cache_tmp, st->cache_tmp_bytes,
                                                    st->d_freq_snap, st->d_freq_sorted,
                                                    st->d_ids, st->d_ids_sorted, (int)nb, 0,
                                                    32, s);
    if (err != cudaSuccess)
        return gpm_set_error("sorting the buckets by lookups failed (%s)",
                             cudaGetErrorString(err));
    fetch_kernel<<<wl_blocks(e * st->g.slots, THREADS, MAX_BLOCKS), THREADS, 0, s>>>(
        tbl_set(st, table, k), st->d_ids_sorted, st->d_freq_sorted, st->set[k].bucket_of, e);
    halve_kernel<<<wl_blocks(nb, THREADS, MAX_BLOCKS), THREADS, 0, s>>>(st->d_freq,
                                                                          st->d_freq_snap, nb);
    if (cudaEventRecord((cudaEvent_t)st->loaded, s) != cudaSuccess)
        return gpm_set_error("BktCache's loading phase failed to start (%s)",
                             cudaGetErrorString(cudaGetLastError()));
    return 0;
}

int gph_gpu_cache_load(struct gph_state *st, uint8_t *table)
{
    int k;
    /* The phase reads PM as the batches before it left it. */
    if (gph_gpu_drain(st) != 0)
        return -1;
    /* The last phase still runs: the batches wait for it, and it swaps in. */
    if (st->loading && cudaEventSynchronize((cudaEvent_t)st->loaded) != cudaSuccess)
        return gpm_set_error("BktCache's loading phase failed (%s)",
                             cudaGetErrorString(cudaGetLastError()));
    if (gph_gpu_cache_poll(st, table) != 0)
        return -1;
    k = 1 - st->active;
    /* The batches' writes from here on are marked (the last batch's
     * stores are done: the pipe was drained). */
    if (st->cache_concurrent &&
        cudaMemsetAsync(st->d_dirty, 0, gph_buckets(&st->g), 0) != cudaSuccess)
        return gpm_set_error("clearing BktCache's marks failed");
    if (load_set(st, table, k) != 0)
        return -1;
    st->loading = 1;
    st->cache_loads++;
    if (st->cache_concurrent)
        return 0;
    /* Blocking: no batch ran meanwhile, nothing to fetch again. */
    if (gph_gpu_cache_settle(st) != 0)
        return -1;
    st->active = k;
    st->cache_swaps++;
    return 0;
}

int gph_gpu_cache_poll(struct gph_state *st, uint8_t *table)
{
    int k = 1 - st->active;
    cudaError_t q;
    if (!st->loading)
        return 0;
    q = cudaEventQuery((cudaEvent_t)st->loaded);
    if (q == cudaErrorNotReady)
        return 0;
    if (q != cudaSuccess)
        return gpm_set_error("BktCache's loading phase failed (%s)", cudaGetErrorString(q));
    /* On the batches' stream: done before the next batch reads the set. */
    refetch_kernel<<<wl_blocks(st->cache_entries * st->g.slots, THREADS, MAX_BLOCKS),
                     THREADS>>>(tbl_set(st, table, k), st->set[k].bucket_of, st->d_dirty,
                                st->cache_entries, st->d_count);
    st->loading = 0;
    st->active = k;
    st->cache_swaps++;
    return 0;
}
