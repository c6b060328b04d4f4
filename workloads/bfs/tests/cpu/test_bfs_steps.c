/* The GPU modes' search, emulated on the CPU with the very steps the
 * kernels take (bfs_step.h) and the ranges their commits make durable
 * (bfs_commit_ranges): one "thread" at a time, frontier nodes in a random
 * order as a grid would take them, over the pointers of each mode:
 *
 *   gpm   (and gpm-eadr) stores straight to PM, persisted as they are made;
 *   ndp   stores to a volatile image, durable only where a commit's flush
 *         (or an eviction, at any moment) copies them;
 *   cap   stores to device arrays that a commit copies to PM.
 *
 * Crashes stop a search in the middle of a level (some visits done, no
 * seal) or of a commit (any subset of its ranges durable: a drain or an
 * fsync orders nothing), and a recovery, in the same mode or another one,
 * rebuilds the visited set from the durable frontiers as bfs_gpu_restore
 * does and finishes. The durable image must verify, and the recovery must
 * have computed exactly the levels that were not durable. */
#include <stdlib.h>
#include <string.h>

#include "../../bfs_step.h"
#include "gpm/check.h"

enum { GPM, NDP, CAP, NFLAVORS };
static const char *const flavor_name[NFLAVORS] = {"gpm", "ndp", "cap"};

struct emu {
    const struct bfs_graph *g;
    uint64_t n;
    uint32_t src, epoch;
    int flavor;
    uint8_t *dur;     /* what is durable on PM */
    uint8_t *vol;     /* ndp: what the kernels' stores reached (the CPU caches) */
    uint32_t *claim, *dseq, *dstart, ctr[BFS_CTR_WORDS];
    uint64_t dcount;
    struct bfs_kern k;
    gpm_range *ranges;
    uint64_t rng;
};

static uint64_t rnd(struct emu *e)
{
    e->rng ^= e->rng << 13;
    e->rng ^= e->rng >> 7;
    e->rng ^= e->rng << 17;
    return e->rng;
}

static struct bfs_meta *meta(uint8_t *pm) { return (struct bfs_meta *)(pm + bfs_meta_off()); }
static uint32_t *starts(uint8_t *pm, uint64_t n) { return (uint32_t *)(pm + bfs_start_off(n)); }

/* The kernels' pointers in FLAVOR (bfs_gpu.c's kern_of). */
static void set_flavor(struct emu *e, int flavor)
{
    uint8_t *out = flavor == GPM ? e->dur : e->vol;
    memset(&e->k, 0, sizeof e->k);
    e->flavor = flavor;
    e->k.row = e->g->row;
    e->k.col = e->g->col;
    e->k.claim = e->claim;
    e->k.dseq = e->dseq;
    e->k.ctr = e->ctr;
    e->k.n = e->n;
    e->k.epoch = e->epoch;
    if (flavor == CAP) {
        e->k.start = e->dstart;
        e->k.count = &e->dcount;
        e->k.lag = 1;
        return;
    }
    e->k.cost_out = (uint32_t *)(out + bfs_cost_off());
    e->k.seq_out = (uint32_t *)(out + bfs_seq_off(e->n));
    e->k.start = starts(out, e->n);
    e->k.count = (uint64_t *)(out + bfs_count_off());
    e->k.lag = flavor == NDP;
}

/* An ndp eviction or flush, or a CAP copy: range R made durable. */
static void apply(struct emu *e, const gpm_range *r)
{
    memcpy(e->dur + r->off, r->src ? r->src : e->vol + r->off, r->len);
}

/* A commit of the ranges bfs_gpu.c would commit; CRASH: only a random
 * subset of them reaches PM, and the search stops. 0, or 1 if crashed. */
static int commit(struct emu *e, uint32_t base, uint32_t next, uint32_t start_at, int words,
                  int final, int crash)
{
    int nr;
    if (e->flavor == GPM)
        return crash;
    nr = bfs_commit_ranges(&e->k, e->flavor == CAP, (const uint32_t *)(e->vol + bfs_seq_off(e->n)),
                           base, next, start_at, words, final, e->ranges);
    for (int i = 0; i < nr; i++)
        if (!crash || rnd(e) % 2)
            apply(e, &e->ranges[i]);
    if (!crash && e->flavor == NDP) /* flushed: the caches hold the same */
        memcpy(e->vol, e->dur, bfs_file_bytes(e->n));
    return crash;
}

/* The prepare of a new search (bfs_gpu_fresh). */
static void fresh(struct emu *e)
{
    memset(e->claim, 0xff, e->n * 4);
    memset(e->ctr, 0, sizeof e->ctr);
    meta(e->dur)->cost_epoch = e->flavor == CAP ? 0 : e->epoch;
    if (e->flavor != CAP)
        memset(e->dur + bfs_cost_off(), 0xff, e->n * 4);
    if (e->vol)
        memcpy(e->vol, e->dur, bfs_file_bytes(e->n));
}

/* The restore of a recovery from DURABLE levels (bfs_gpu_restore). */
static void restore(struct emu *e, uint32_t durable)
{
    const uint32_t *start = starts(e->dur, e->n);
    const uint32_t *seq = (const uint32_t *)(e->dur + bfs_seq_off(e->n));
    memcpy(e->dseq, seq, (size_t)start[durable] * 4);
    memcpy(e->dstart, start, ((size_t)durable + 1) * 4);
    memset(e->claim, 0xff, e->n * 4);
    memset(e->ctr, 0, sizeof e->ctr);
    for (uint32_t i = 0; i < start[durable]; i++)
        e->claim[seq[i]] = bfs_level_of(start, durable, i);
    if (e->flavor == CAP)
        meta(e->dur)->cost_epoch = 0;
    else if (meta(e->dur)->cost_epoch != e->epoch) {
        memcpy(e->dur + bfs_cost_off(), e->claim, e->n * 4);
        meta(e->dur)->cost_epoch = e->epoch;
    }
    if (e->vol)
        memcpy(e->vol, e->dur, bfs_file_bytes(e->n));
}

/* Expands LEVEL from seq[BASE, END) like a grid: frontier nodes in a
 * random order; CRASH stops after a random part of them, unsealed. */
static int expand(struct emu *e, uint32_t level, uint32_t base, uint32_t end, int crash,
                  uint32_t *next)
{
    uint32_t size = end - base, *order = malloc(size * sizeof *order), stop = size;
    for (uint32_t i = 0; i < size; i++)
        order[i] = base + i;
    for (uint32_t i = size; i > 1; i--) {
        uint32_t j = (uint32_t)(rnd(e) % i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    if (crash)
        stop = (uint32_t)(rnd(e) % (size + 1));
    for (uint32_t i = 0; i < stop; i++)
        bfs_visit(&e->k, e->dseq[order[i]], level + 1, end);
    free(order);
    if (crash) {
        if (e->flavor == NDP) /* whatever the caches evicted meanwhile */
            commit(e, end, e->ctr[BFS_CTR_CLAIMS], level + 2, 1, 0, 1);
        return 1;
    }
    *next = bfs_seal(&e->k, level, end);
    return 0;
}

/* The search from DURABLE levels (bfs_gpu_search). CRASH_AT: where it
 * stops, -1 nowhere: 0 in the source's commit, 2 L + 1 in the expansion of
 * level L, 2 L + 2 in the commit after it. Returns 1 if it crashed, 2 if a
 * level was flagged inconsistent; else 0 with *LEVELS and *COMPUTED. */
static int search(struct emu *e, uint32_t durable, long crash_at, uint32_t *levels,
                  uint32_t *computed)
{
    uint32_t level, base, end, next;
    *computed = 0;
    if (durable == 0) {
        bfs_begin(&e->k, e->src);
        if (commit(e, 0, 1, 0, 2, 0, crash_at == 0))
            return 1;
        level = 0, base = 0, end = 1;
        ++*computed;
    } else {
        const uint32_t *start = starts(e->dur, e->n);
        level = durable - 1, base = start[durable - 1], end = start[durable];
    }
    for (;;) {
        long at = 2 * (long)level + 1;
        if (expand(e, level, base, end, crash_at == at, &next) ||
            commit(e, end, next, level + 2, 1, next == 0, crash_at == at + 1))
            return 1;
        if (e->ctr[BFS_CTR_BAD])
            return 2;
        if (next == 0)
            break;
        base = end;
        end += next;
        level++;
        ++*computed;
    }
    *levels = level + 1;
    return 0;
}

static int emu_init(struct emu *e, const struct bfs_graph *g, uint32_t src, uint64_t seed)
{
    memset(e, 0, sizeof *e);
    e->g = g;
    e->n = g->n;
    e->src = src;
    e->epoch = 5;
    e->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    e->dur = calloc(1, bfs_file_bytes(g->n));
    e->vol = calloc(1, bfs_file_bytes(g->n));
    e->claim = malloc(g->n * 4);
    e->dseq = malloc(g->n * 4);
    e->dstart = malloc((g->n + 2) * 4);
    e->ranges = malloc((g->n + 4) * sizeof *e->ranges);
    return e->dur && e->vol && e->claim && e->dseq && e->dstart && e->ranges ? 0 : -1;
}

static void emu_free(struct emu *e)
{
    free(e->dur);
    free(e->vol);
    free(e->claim);
    free(e->dseq);
    free(e->dstart);
    free(e->ranges);
}

static void every_mode_leaves_a_search_that_verifies(void)
{
    struct bfs_graph g;
    CHECK(bfs_gen(3000, 2, &g) == 0);
    for (int f = 0; f < NFLAVORS; f++)
        for (uint32_t src = 0; src < 3000; src += 1499) {
            struct emu e;
            uint32_t levels, computed, ref_levels, *ref = malloc(3000 * 4);
            CHECK(ref && emu_init(&e, &g, src, (uint64_t)f + src) == 0);
            set_flavor(&e, f);
            fresh(&e);
            CHECK(search(&e, 0, -1, &levels, &computed) == 0);
            CHECK(bfs_ref(&g, src, ref, &ref_levels) == 0);
            CHECKF(bfs_check(&g, src, e.dur, e.epoch, NULL) == 0, "%s from %u: %s", flavor_name[f],
                   src, gpm_last_error());
            CHECK(levels == ref_levels && computed == levels);
            /* The device arrays hold the same search as PM. */
            CHECK(memcmp(e.claim, ref, 3000 * 4) == 0);
            emu_free(&e);
            free(ref);
        }
    bfs_graph_free(&g);
}

/* A crash at every point of a small search, in each mode, recovered in
 * each mode (a gpm crash recovered in cap mode, ...): the result verifies,
 * the durable levels are reused, and only the missing ones recomputed. */
static void crash_anywhere_recover_in_any_mode(void)
{
    struct bfs_graph g;
    uint32_t ref_levels, *ref = malloc(400 * 4);
    long points;
    CHECK(ref && bfs_gen(400, 9, &g) == 0);
    CHECK(bfs_ref(&g, 0, ref, &ref_levels) == 0);
    points = 2 * (long)ref_levels + 1; /* the last expansion is of level D - 1 */
    for (int crashed = 0; crashed < NFLAVORS; crashed++)
        for (int recovered = 0; recovered < NFLAVORS; recovered++)
            for (long at = 0; at < points; at++) {
                struct emu e;
                uint32_t levels, computed, durable;
                CHECK(emu_init(&e, &g, 0, (uint64_t)(at * 9 + crashed * 3 + recovered)) == 0);
                set_flavor(&e, crashed);
                fresh(&e);
                CHECKF(search(&e, 0, at, &levels, &computed) == 1, "no crash at %ld", at);
                durable = bfs_durable_levels(*(uint64_t *)(e.dur + bfs_count_off()), e.epoch);
                /* The count never runs ahead of the durable frontiers. */
                CHECKF(durable == 0 || bfs_starts_ok(starts(e.dur, 400), durable, 400),
                       "%s crash at %ld: %u levels not durable", flavor_name[crashed], at,
                       durable);
                set_flavor(&e, recovered);
                if (durable == 0)
                    fresh(&e);
                else
                    restore(&e, durable);
                CHECK(search(&e, durable, -1, &levels, &computed) == 0);
                CHECKF(bfs_check(&g, 0, e.dur, e.epoch, NULL) == 0, "%s crash at %ld, %s recovery "
                       "from %u levels: %s", flavor_name[crashed], at, flavor_name[recovered],
                       durable, gpm_last_error());
                CHECK(levels == ref_levels);
                CHECKF(computed == levels - durable, "recomputed %u of %u levels with %u durable",
                       computed, levels, durable);
                /* In-kernel persistence loses at most the level in flight;
                 * the one-commit modes one more. */
                if (at >= 4)
                    CHECKF(durable + 2 + (crashed != GPM) >= (uint32_t)(at / 2),
                           "%s crash at %ld kept only %u levels", flavor_name[crashed], at,
                           durable);
                emu_free(&e);
            }
    free(ref);
    bfs_graph_free(&g);
}

/* The commit ranges: what gpm-ndp flushes covers exactly what the kernels
 * stored; the count comes last; the CAP modes copy from the device
 * arrays and add the cost array at the end. */
static void commit_ranges_cover_what_the_level_wrote(void)
{
    uint32_t seq[8] = {0, 5, 3, 6}, claim[8], dseq[8], dstart[10];
    uint64_t dcount;
    struct bfs_kern k;
    gpm_range v[16];
    int nr;
    memset(&k, 0, sizeof k);
    k.n = 8;
    k.claim = claim;
    k.dseq = dseq;
    k.start = dstart;
    k.count = &dcount;
    /* ndp, after level 0 found 5, 3, 6 at seq[1..4) */
    nr = bfs_commit_ranges(&k, 0, seq, 1, 3, 2, 1, 0, v);
    CHECK_EQ_INT(nr, 6);
    CHECK(v[0].off == bfs_seq_off(8) + 4 && v[0].len == 12 && !v[0].src);
    CHECK(v[1].off == bfs_cost_off() + 20 && v[2].off == bfs_cost_off() + 12 &&
          v[3].off == bfs_cost_off() + 24 && v[1].len == 4);
    CHECK(v[4].off == bfs_start_off(8) + 8 && v[4].len == 4);
    CHECK(v[5].off == bfs_count_off() && v[5].len == 8);
    /* cap, the same level, then the last one (nothing new, the costs) */
    nr = bfs_commit_ranges(&k, 1, NULL, 1, 3, 2, 1, 0, v);
    CHECK_EQ_INT(nr, 3);
    CHECK(v[0].src == dseq + 1 && v[1].src == dstart + 2 && v[2].src == &dcount);
    nr = bfs_commit_ranges(&k, 1, NULL, 4, 0, 5, 1, 1, v);
    CHECK_EQ_INT(nr, 3);
    CHECK(v[0].off == bfs_start_off(8) + 20 && v[1].off == bfs_cost_off() && v[1].len == 32 &&
          v[1].src == claim && v[2].off == bfs_count_off());
    /* the source: two level starts */
    nr = bfs_commit_ranges(&k, 1, NULL, 0, 1, 0, 2, 0, v);
    CHECK(nr == 3 && v[1].off == bfs_start_off(8) && v[1].len == 8);
}

/* A visited set that does not match the durable sequence (more nodes
 * found than fit) is flagged, and nothing is written out of bounds. */
static void an_inconsistent_visited_set_is_flagged(void)
{
    static const uint32_t row[4] = {0, 2, 3, 4}, col[4] = {1, 2, 0, 0};
    uint32_t claim[3] = {0, BFS_UNVISITED, BFS_UNVISITED}, dseq[3] = {0}, start[5] = {0, 1};
    uint32_t ctr[BFS_CTR_WORDS] = {0};
    uint64_t count = 0;
    struct bfs_kern k;
    memset(&k, 0, sizeof k);
    k.row = row, k.col = col, k.claim = claim, k.dseq = dseq, k.start = start;
    k.count = &count, k.ctr = ctr, k.n = 3, k.epoch = 1;
    /* Level 0 claims to begin at position 2: its two new nodes do not fit. */
    bfs_visit(&k, 0, 1, 2);
    CHECK(ctr[BFS_CTR_BAD] == 1 && dseq[2] == 1);
    CHECK_EQ_INT(bfs_seal(&k, 0, 2), 1);
    CHECK(start[2] == 3);
}

int main(void)
{
    RUN(every_mode_leaves_a_search_that_verifies);
    RUN(crash_anywhere_recover_in_any_mode);
    RUN(commit_ranges_cover_what_the_level_wrote);
    RUN(an_inconsistent_visited_set_is_flagged);
    CHECK_EXIT();
}
