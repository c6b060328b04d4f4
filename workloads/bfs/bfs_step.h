/* The steps of a search as the kernels take them, written once for the
 * GPU and the CPU tests (which run them one thread at a time over every
 * mode's pointers and check the PM image they leave, crashes included):
 * the start, a frontier node's visit, and the seal of a level.
 *
 * On the GPU, BFS_STORE and BFS_PERSIST are the mode's stores and persists
 * (wl.cuh: include it first); on the CPU they are a plain store and
 * nothing. Claims and counters are atomics on both sides. */
#ifndef BFS_STEP_H
#define BFS_STEP_H

#include "bfs.h"
#include "gpm/hd.h"

/* The kernels' counters (struct bfs_kern's CTR). */
enum { BFS_CTR_CLAIMS, BFS_CTR_BLOCKS, BFS_CTR_NEXT, BFS_CTR_BAD, BFS_CTR_WORDS };

#ifdef __CUDA_ARCH__
#define BFS_STORE_U32(o, p, v) wl_store_u32((o), (p), (v))
#define BFS_STORE_U64(o, p, v) wl_store_u64((o), (p), (v))
#define BFS_PERSIST(o) wl_persist(o)
#else
#define BFS_STORE_U32(o, p, v) ((void)(o), *(p) = (v))
#define BFS_STORE_U64(o, p, v) ((void)(o), *(p) = (v))
#define BFS_PERSIST(o) ((void)(o))
#endif

GPM_HD uint32_t bfs_fetch_add(uint32_t *p, uint32_t x)
{
#ifdef __CUDA_ARCH__
    return atomicAdd(p, x);
#else
    return __atomic_fetch_add(p, x, __ATOMIC_RELAXED);
#endif
}

GPM_HD void bfs_flag(uint32_t *p)
{
#ifdef __CUDA_ARCH__
    atomicOr(p, 1u);
#else
    __atomic_fetch_or(p, 1u, __ATOMIC_RELAXED);
#endif
}

/* 1 if this caller is the one that moves V from unvisited to COST. Claims
 * only ever move that way, so a stale first read can only send a caller to
 * the compare-and-swap, which decides. */
GPM_HD int bfs_claim(uint32_t *claim, uint32_t v, uint32_t cost)
{
#ifdef __CUDA_ARCH__
    return *(volatile uint32_t *)&claim[v] == BFS_UNVISITED &&
           atomicCAS(&claim[v], BFS_UNVISITED, cost) == BFS_UNVISITED;
#else
    uint32_t unvisited = BFS_UNVISITED;
    return __atomic_load_n(&claim[v], __ATOMIC_RELAXED) == BFS_UNVISITED &&
           __atomic_compare_exchange_n(&claim[v], &unvisited, cost, 0, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
#endif
}

/* Level 0: the source visited, its entry, cost and level start stored and
 * persisted before the count that says so. */
GPM_HD void bfs_begin(const struct bfs_kern *k, uint32_t src)
{
    k->claim[src] = 0;
    k->dseq[0] = src;
    if (k->seq_out)
        BFS_STORE_U32(k->o, &k->seq_out[0], src);
    if (k->cost_out)
        BFS_STORE_U32(k->o, &k->cost_out[src], 0u);
    BFS_STORE_U32(k->o, &k->start[0], 0u);
    BFS_STORE_U32(k->o, &k->start[1], 1u);
    BFS_PERSIST(k->o);
    BFS_STORE_U64(k->o, k->count, bfs_count_word(k->epoch, bfs_levels_at_start(k->lag)));
    BFS_PERSIST(k->o);
}

/* Frontier node U of level COST - 1: each neighbour it claims gets the next
 * slot of the new frontier (which starts at NEXT_BASE), its entry there and
 * its cost, where the mode keeps them. Returns 1 if it stored anything:
 * the caller persists once for all of them. A slot past the graph's nodes
 * (a visited set that does not match the durable sequence) is flagged, not
 * written. */
GPM_HD int bfs_visit(const struct bfs_kern *k, uint32_t u, uint32_t cost, uint32_t next_base)
{
    int wrote = 0;
    for (uint32_t e = k->row[u], end = k->row[u + 1]; e < end; e++) {
        uint32_t v = k->col[e], pos;
        if (!bfs_claim(k->claim, v, cost))
            continue;
        pos = next_base + bfs_fetch_add(&k->ctr[BFS_CTR_CLAIMS], 1u);
        if ((uint64_t)pos >= k->n) {
            bfs_flag(&k->ctr[BFS_CTR_BAD]);
            continue;
        }
        k->dseq[pos] = v;
        if (k->seq_out)
            BFS_STORE_U32(k->o, &k->seq_out[pos], v);
        if (k->cost_out)
            BFS_STORE_U32(k->o, &k->cost_out[v], cost);
        wrote = 1;
    }
    return wrote;
}

/* After every visit of LEVEL is durable (on the GPU: by the grid's last
 * block): where the new frontier ends, then the count, each persisted;
 * the counters reset for the next level. Returns the new frontier's size. */
GPM_HD uint32_t bfs_seal(const struct bfs_kern *k, uint32_t level, uint32_t next_base)
{
    uint32_t next = bfs_fetch_add(&k->ctr[BFS_CTR_CLAIMS], 0u);
    if ((uint64_t)next_base + next > k->n) { /* flagged by the visits; the end stays in bounds */
        bfs_flag(&k->ctr[BFS_CTR_BAD]);
        next = (uint32_t)(k->n - next_base);
    }
    BFS_STORE_U32(k->o, &k->start[level + 2], next_base + next);
    BFS_PERSIST(k->o);
    BFS_STORE_U64(k->o, k->count, bfs_count_word(k->epoch, bfs_levels_after(level, next, k->lag)));
    BFS_PERSIST(k->o);
    k->ctr[BFS_CTR_NEXT] = next;
    k->ctr[BFS_CTR_CLAIMS] = 0;
    k->ctr[BFS_CTR_BLOCKS] = 0;
    return next;
}

#endif
