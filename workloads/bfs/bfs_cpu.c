/* The CPU counterpart of BFS (the paper's Figure 1b baseline): the same
 * level-synchronous search with OpenMP threads, straight into the mapped
 * PM file with the layout of bfs_layout.h. Each thread persists the nodes
 * it discovered (their sequence entries and costs, one drain) before the
 * level's end and then the count are persisted, as the GPU kernels do in
 * gpm mode; the resume rule is the same. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "bfs_step.h"

/* Frontiers smaller than this are expanded by one thread. Starting and
 * joining a team costs about as much as expanding a few hundred nodes: on
 * 2 cores, a 2M-node lattice search (frontiers below 1449 nodes) took
 * 0.19 s with 2 threads and 0.21 s with one, waiting passively; and where
 * other work shares the cores, a thread spinning at the join can wait a
 * whole time slice for one that was descheduled (the same search took 4 s
 * and more with the default spinning). */
#define BFS_CPU_PARALLEL_MIN 1024

static struct bfs_state *S(struct wl_ctx *c) { return c->priv; }

int bfs_cpu_setup(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    st->nbufs = omp_get_max_threads();
    st->h_claim = malloc(st->n * sizeof *st->h_claim);
    st->bufs = calloc((size_t)st->nbufs, sizeof *st->bufs);
    if (!st->h_claim || !st->bufs)
        return gpm_set_error("bfs: out of memory for the visited set of %llu nodes",
                             (unsigned long long)st->n);
    return 0;
}

void bfs_cpu_teardown(struct bfs_state *st)
{
    for (int t = 0; st->bufs && t < st->nbufs; t++) {
        free(st->bufs[t].v);
        free(st->bufs[t].r);
    }
    free(st->bufs);
    free(st->h_claim);
}

static uint8_t *pm(struct wl_ctx *c) { return wl_region(c, BFS_PM)->host; }

static int persist(struct wl_ctx *c, const void *p, size_t len)
{
    return wl_pm_persist(c, BFS_PM, p, len);
}

int bfs_cpu_fresh(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    memset(st->h_claim, 0xff, st->n * 4);
    memset(pm(c) + bfs_cost_off(), 0xff, st->n * 4);
    if (persist(c, pm(c) + bfs_cost_off(), st->n * 4) != 0)
        return -1;
    return bfs_write_meta(c, c->epoch);
}

int bfs_cpu_restore(struct wl_ctx *c, uint32_t durable)
{
    struct bfs_state *st = S(c);
    const uint32_t *seq = (const uint32_t *)(pm(c) + bfs_seq_off(st->n));
    const uint32_t *start = (const uint32_t *)(pm(c) + bfs_start_off(st->n));
    const struct bfs_meta *meta = (const struct bfs_meta *)(pm(c) + bfs_meta_off());
    int64_t total = start[durable];
    uint64_t bad = UINT64_MAX;
    memset(st->h_claim, 0xff, st->n * 4);
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int64_t i = 0; i < total; i++) {
        uint32_t v = seq[i];
        if (v >= st->n)
            bad = (uint64_t)i < bad ? (uint64_t)i : bad;
        else
            st->h_claim[v] = bfs_level_of(start, durable, (uint32_t)i);
    }
    if (bad != UINT64_MAX)
        return gpm_set_error("bfs: the durable search sequence names node %u at %llu, beyond the "
                             "graph's %llu: run without --recover", seq[bad],
                             (unsigned long long)bad, (unsigned long long)st->n);
    if (meta->cost_epoch == c->epoch)
        return 0;
    memcpy(pm(c) + bfs_cost_off(), st->h_claim, st->n * 4);
    if (persist(c, pm(c) + bfs_cost_off(), st->n * 4) != 0)
        return -1;
    return bfs_write_meta(c, c->epoch);
}

/* Adds V to what this thread found; 0, or -1 out of memory. */
static int push(struct bfs_cpu_buf *b, uint32_t v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        uint32_t *nv = realloc(b->v, cap * sizeof *nv);
        gpm_range *nr;
        if (!nv)
            return -1;
        b->v = nv;
        nr = realloc(b->r, (cap + 1) * sizeof *nr);
        if (!nr)
            return -1;
        b->r = nr;
        b->cap = cap;
    }
    b->v[b->n++] = v;
    return 0;
}

/* This thread's nodes at seq[END + POS ...], their costs, persisted with
 * one drain. */
static int publish(struct wl_ctx *c, struct bfs_cpu_buf *b, uint32_t cost, uint64_t at)
{
    struct bfs_state *st = S(c);
    uint32_t *seq = (uint32_t *)(pm(c) + bfs_seq_off(st->n));
    uint32_t *costs = (uint32_t *)(pm(c) + bfs_cost_off());
    size_t k = 0;
    for (size_t j = 0; j < b->n; j++) {
        seq[at + j] = b->v[j];
        costs[b->v[j]] = cost;
        b->r[k++] = (gpm_range){bfs_cost_off() + 4 * (size_t)b->v[j], 4, NULL};
    }
    b->r[k++] = (gpm_range){bfs_seq_off(st->n) + 4 * at, 4 * b->n, NULL};
    return wl_commit(c, BFS_PM, b->r, (int)k);
}

/* Expands LEVEL, whose frontier is seq[BASE, END): *NEXT gets the nodes
 * found, all durable on return. (The error message is per thread: it is
 * carried out of the parallel region by hand.) */
static int expand(struct wl_ctx *c, uint32_t level, uint32_t base, uint32_t end, uint32_t *next)
{
    struct bfs_state *st = S(c);
    const uint32_t *seq = (const uint32_t *)(pm(c) + bfs_seq_off(st->n));
    const uint32_t *row = st->g.row, *col = st->g.col;
    uint32_t *claim = st->h_claim, cost = level + 1;
    uint64_t found = 0;
    int failed = 0;
    char why[512] = "";

#pragma omp parallel if (end - base >= BFS_CPU_PARALLEL_MIN)
    {
        struct bfs_cpu_buf *b = &st->bufs[omp_get_thread_num()];
        uint64_t at;
        int err = 0;
        b->n = 0;
#pragma omp for schedule(dynamic, 64) nowait
        for (int64_t i = base; i < (int64_t)end; i++) {
            uint32_t u = seq[i];
            for (uint32_t e = row[u]; e < row[u + 1] && !err; e++) {
                uint32_t v = col[e];
                if (!bfs_claim(claim, v, cost))
                    continue;
                if (push(b, v) != 0) {
                    err = 1;
                    gpm_set_error("bfs: out of memory for a level's new nodes");
                }
            }
        }
        at = end + __atomic_fetch_add(&found, (uint64_t)b->n, __ATOMIC_RELAXED);
        if (!err && at + b->n > st->n)
            err = gpm_set_error("bfs: a level discovered more nodes than the graph has: the "
                                "durable search it resumed is inconsistent; run without "
                                "--recover");
        if (!err && b->n && publish(c, b, cost, at) != 0)
            err = 1;
        if (err) {
#pragma omp critical
            if (!failed) {
                failed = 1;
                snprintf(why, sizeof why, "%s", gpm_last_error());
            }
        }
    }
    if (failed)
        return gpm_set_error("%s", why);
    *next = (uint32_t)found;
    return 0;
}

/* The level's end, then the count that makes it and its frontier durable. */
static int seal(struct wl_ctx *c, uint32_t end_at, uint32_t end, uint32_t levels)
{
    struct bfs_state *st = S(c);
    uint32_t *start = (uint32_t *)(pm(c) + bfs_start_off(st->n));
    uint64_t *count = (uint64_t *)(pm(c) + bfs_count_off());
    start[end_at] = end;
    if (persist(c, &start[end_at], 4) != 0)
        return -1;
    __atomic_store_n(count, bfs_count_word(c->epoch, levels), __ATOMIC_RELEASE);
    return persist(c, count, 8);
}

int bfs_cpu_search(struct wl_ctx *c, uint32_t durable, uint32_t *levels, uint32_t *computed)
{
    struct bfs_state *st = S(c);
    uint32_t *seq = (uint32_t *)(pm(c) + bfs_seq_off(st->n));
    uint32_t *cost = (uint32_t *)(pm(c) + bfs_cost_off());
    uint32_t *start = (uint32_t *)(pm(c) + bfs_start_off(st->n));
    uint32_t level, base, end, next;
    *computed = 0;
    if (durable == 0) {
        st->h_claim[st->src] = 0;
        seq[0] = st->src;
        cost[st->src] = 0;
        start[0] = 0;
        if (persist(c, &seq[0], 4) != 0 || persist(c, &cost[st->src], 4) != 0 ||
            persist(c, &start[0], 4) != 0 || seal(c, 1, 1, bfs_levels_at_start(0)) != 0)
            return -1;
        level = 0, base = 0, end = 1;
        ++*computed;
        wl_progress_add(c, 1); /* the source's level is durable */
    } else { /* expand the last durable frontier again */
        level = durable - 1, base = start[durable - 1], end = start[durable];
    }
    for (;;) {
        if (expand(c, level, base, end, &next) != 0 ||
            seal(c, level + 2, end + next, bfs_levels_after(level, next, 0)) != 0)
            return -1;
        if (next == 0)
            break;
        base = end;
        end += next;
        level++;
        ++*computed;
        wl_progress_add(c, 1);
    }
    *levels = level + 1;
    return 0;
}
