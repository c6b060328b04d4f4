/* The search in the six GPU modes: one expansion kernel per level, and
 * what each mode does to make the level durable (bfs_layout.h):
 *
 *   gpm, gpm-eadr  the kernels persisted the new frontier, its costs, the
 *                  level's end and the count in-kernel: nothing to do;
 *   gpm-ndp        the same stores unfenced; the CPU flushes the level's
 *                  scattered writes (the frontier, each new node's cost,
 *                  the level's end, the count) with one vectored commit;
 *   cap-*          the kernels wrote device memory; one commit per level
 *                  copies the new frontier, the level's end and the count
 *                  (one drain, or one fsync in cap-fs), and the last one
 *                  also the whole cost array, which is otherwise derived
 *                  from the frontiers.
 *
 * In gpm-ndp and the CAP modes the count in a commit lags one level (it
 * counts what the previous commit made durable), because a drain or an
 * fsync orders nothing among the writes it covers. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "bfs_step.h"

static struct bfs_state *S(struct wl_ctx *c) { return c->priv; }

static struct bfs_kern kern_of(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    uint8_t *pm = wl_region(c, BFS_PM)->dev;
    struct bfs_kern k;
    memset(&k, 0, sizeof k);
    k.row = st->d_row;
    k.col = st->d_col;
    k.claim = st->d_claim;
    k.dseq = st->d_seq;
    k.ctr = st->d_ctr;
    k.n = st->n;
    k.epoch = c->epoch;
    k.o = wl_out_of(c);
    if (c->m->kernels_write_pm) {
        k.cost_out = (uint32_t *)(pm + bfs_cost_off());
        k.seq_out = (uint32_t *)(pm + bfs_seq_off(st->n));
        k.start = (uint32_t *)(pm + bfs_start_off(st->n));
        k.count = (uint64_t *)(pm + bfs_count_off());
        k.lag = !c->m->fences;
    } else {
        k.start = st->d_start;
        k.count = st->d_count;
        k.lag = 1;
    }
    return k;
}

int bfs_gpu_setup(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    uint64_t n = st->n, m = st->g.m;
    if (wl_dev_alloc((void **)&st->d_row, (n + 1) * 4) || wl_dev_alloc((void **)&st->d_col, (m ? m : 1) * 4) ||
        wl_dev_alloc((void **)&st->d_claim, n * 4) || wl_dev_alloc((void **)&st->d_seq, n * 4) ||
        wl_dev_alloc((void **)&st->d_start, (n + 2) * 4) ||
        wl_dev_alloc((void **)&st->d_count, sizeof *st->d_count) ||
        wl_dev_alloc((void **)&st->d_ctr, BFS_CTR_WORDS * sizeof *st->d_ctr))
        return -1;
    /* The graph is read-only: it lives in device memory, never on PM. */
    return wl_dev_copy(st->d_row, st->g.row, (n + 1) * 4, 1) ||
                   (m && wl_dev_copy(st->d_col, st->g.col, m * 4, 1))
               ? -1
               : 0;
}

void bfs_gpu_teardown(struct bfs_state *st)
{
    wl_dev_free(st->d_row);
    wl_dev_free(st->d_col);
    wl_dev_free(st->d_claim);
    wl_dev_free(st->d_seq);
    wl_dev_free(st->d_start);
    wl_dev_free(st->d_count);
    wl_dev_free(st->d_ctr);
    free(st->ranges);
}

/* A new search: nothing visited; where kernels store costs on PM, every
 * cost unvisited (made durable before the search starts). */
int bfs_gpu_fresh(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    gpm_region *r = wl_region(c, BFS_PM);
    if (bfs_gpu_reset(st->d_claim, st->n, st->d_ctr) != 0)
        return -1;
    if (!c->m->kernels_write_pm)
        return bfs_write_meta(c, 0);
    memset((uint8_t *)r->host + bfs_cost_off(), 0xff, st->n * 4);
    if (wl_pm_persist(c, BFS_PM, (uint8_t *)r->host + bfs_cost_off(), st->n * 4) != 0)
        return -1;
    return bfs_write_meta(c, c->epoch);
}

/* The visited set of the DURABLE frontiers on PM, back in device memory;
 * where kernels store costs on PM and the array is not this epoch's (a CAP
 * run wrote it, or none), it is rewritten from that set. */
int bfs_gpu_restore(struct wl_ctx *c, uint32_t durable)
{
    struct bfs_state *st = S(c);
    gpm_region *r = wl_region(c, BFS_PM);
    const uint8_t *pm = r->host;
    const uint32_t *start = (const uint32_t *)(pm + bfs_start_off(st->n));
    const struct bfs_meta *meta = (const struct bfs_meta *)(pm + bfs_meta_off());
    uint32_t total = start[durable];
    if (wl_dev_copy(st->d_seq, pm + bfs_seq_off(st->n), (size_t)total * 4, 1) != 0 ||
        wl_dev_copy(st->d_start, start, ((size_t)durable + 1) * 4, 1) != 0 ||
        bfs_gpu_reset(st->d_claim, st->n, st->d_ctr) != 0 ||
        bfs_gpu_rebuild(st->d_claim, st->d_seq, st->d_start, durable, st->n, st->d_ctr) != 0)
        return -1;
    if (!c->m->kernels_write_pm)
        return meta->cost_epoch == 0 ? 0 : bfs_write_meta(c, 0);
    if (meta->cost_epoch == c->epoch)
        return 0;
    if (wl_dev_copy((uint8_t *)r->host + bfs_cost_off(), st->d_claim, st->n * 4, 0) != 0 ||
        wl_pm_persist(c, BFS_PM, (uint8_t *)r->host + bfs_cost_off(), st->n * 4) != 0)
        return -1;
    return bfs_write_meta(c, c->epoch);
}

static int room_for(struct bfs_state *st, size_t n)
{
    gpm_range *p;
    if (n <= st->ranges_cap)
        return 0;
    p = realloc(st->ranges, n * sizeof *p);
    if (!p)
        return gpm_set_error("bfs: out of memory for a commit of %zu ranges", n);
    st->ranges = p;
    st->ranges_cap = n;
    return 0;
}

/* Level 0 (the source) or, after expanding LEVEL, the NEXT nodes found at
 * seq[BASE ...), made durable the mode's way. START_AT is the first level
 * start written (0 for the source, which writes start[0] and start[1]). */
static int commit(struct wl_ctx *c, const struct bfs_kern *k, uint32_t base, uint32_t next,
                  uint32_t start_at, int start_words, int final)
{
    struct bfs_state *st = S(c);
    const uint8_t *pm = wl_region(c, BFS_PM)->host;
    int nr;
    if (c->m->fences) /* persisted (and counted) in-kernel */
        return 0;
    if (next > INT_MAX - 4)
        return gpm_set_error("bfs: a frontier of %u nodes is too large for one commit", next);
    if (room_for(st, (size_t)next + 4) != 0)
        return -1;
    nr = bfs_commit_ranges(k, !c->m->kernels_write_pm,
                           (const uint32_t *)(pm + bfs_seq_off(st->n)), base, next, start_at,
                           start_words, final, st->ranges);
    return wl_commit(c, BFS_PM, st->ranges, nr);
}

int bfs_gpu_search(struct wl_ctx *c, uint32_t durable, uint32_t *levels, uint32_t *computed)
{
    struct bfs_state *st = S(c);
    struct bfs_kern k = kern_of(c);
    const uint32_t *pm_start =
        (const uint32_t *)((const uint8_t *)wl_region(c, BFS_PM)->host + bfs_start_off(st->n));
    uint32_t level, base, end, next;
    *computed = 0;
    if (wl_persist_begin(c) != 0)
        return -1;
    if (durable == 0) {
        if (bfs_gpu_start(&k, st->src) != 0 || commit(c, &k, 0, 1, 0, 2, 0) != 0)
            goto fail;
        level = 0, base = 0, end = 1;
        ++*computed;
        wl_progress_add(c, 1); /* the source's level is durable */
    } else { /* expand the last durable frontier again */
        level = durable - 1, base = pm_start[durable - 1], end = pm_start[durable];
    }
    for (;;) {
        if (bfs_gpu_expand(&k, level, base, end - base, &next) != 0 ||
            commit(c, &k, end, next, level + 2, 1, next == 0) != 0)
            goto fail;
        if (next == 0)
            break;
        base = end;
        end += next;
        level++;
        ++*computed;
        wl_progress_add(c, 1);
    }
    *levels = level + 1;
    return wl_persist_end(c);
fail:
    wl_persist_end(c);
    return -1;
}
