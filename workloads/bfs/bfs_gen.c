/* A road-like graph from a seed: N nodes on a lattice W = ceil(sqrt(N))
 * wide, filled row by row (node v at x = v % W, y = v / W).
 *
 * - A spanning tree: every node but node 0 is joined to one earlier
 *   lattice neighbour, its left (45%), its upper (45%) or its upper-right
 *   (10%) one; node 0 has none, the first row only its left one. Each
 *   edge goes to a smaller id, so the edges form a tree and the graph is
 *   connected.
 * - Side roads: each left-right and up-down lattice pair that the tree did
 *   not join gets an edge with probability 0.2. About 1.1 N pairs remain,
 *   so about 0.22 N more edges: 2 (N - 1) + 0.44 N arcs, 2.44 per node, the
 *   ratio of USA-road-d.USA (58,333,344 arcs, 23,947,347 nodes).
 * - Planar: axis edges lie on the lattice lines, and a cell holds at most
 *   its one upper-right diagonal (its other diagonal is never an edge).
 * - Long: a step changes x + y by at most 1, so a search from node 0
 *   needs at least W + H - 2 levels: 2 sqrt(N), like a road network's
 *   thousands of levels at 24M nodes (the paper's BFS ran 6000).
 *
 * Every choice is a hash of the seed and the node (wl_hash32), so each
 * node's neighbours are computed locally, in parallel, and identically
 * from both ends of an edge. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bfs_graph.h"
#include "gpm/gpm.h"
#include "wl_hd.h"

enum { GEN_ROOT, GEN_LEFT, GEN_UP, GEN_UPRIGHT };
#define GEN_UPRIGHT_PCT 10u
#define GEN_LEFT_PCT 45u
#define GEN_SIDE_ROAD 858993459u /* 0.2 * 2^32: a side road's probability */

uint64_t bfs_gen_width(uint64_t n)
{
    uint64_t w = (uint64_t)sqrt((double)n);
    while (w * w < n)
        w++;
    while (w > 1 && (w - 1) * (w - 1) >= n)
        w--;
    return w ? w : 1;
}

/* The tree edge of V: to which earlier neighbour. */
static int parent_kind(uint64_t w, uint64_t seed, uint64_t v)
{
    uint64_t x = v % w;
    uint32_t h;
    if (v == 0)
        return GEN_ROOT;
    if (v < w)
        return GEN_LEFT;
    h = wl_hash32(seed, 4 * v) % 100u;
    if (x + 1 < w && h < GEN_UPRIGHT_PCT)
        return GEN_UPRIGHT;
    if (x == 0 || h >= GEN_UPRIGHT_PCT + GEN_LEFT_PCT)
        return GEN_UP;
    return GEN_LEFT;
}

/* Whether V and its right neighbour are joined (by the tree or a side road). */
static int has_right(uint64_t n, uint64_t w, uint64_t seed, uint64_t v)
{
    if (v % w + 1 >= w || v + 1 >= n)
        return 0;
    return parent_kind(w, seed, v + 1) == GEN_LEFT || wl_hash32(seed, 4 * v + 1) < GEN_SIDE_ROAD;
}

/* Whether V and the node below it are joined. */
static int has_down(uint64_t n, uint64_t w, uint64_t seed, uint64_t v)
{
    if (v + w >= n)
        return 0;
    return parent_kind(w, seed, v + w) == GEN_UP || wl_hash32(seed, 4 * v + 2) < GEN_SIDE_ROAD;
}

int bfs_gen_neighbors(uint64_t n, uint64_t seed, uint64_t v, uint32_t out[BFS_GEN_MAX_DEGREE])
{
    uint64_t w = bfs_gen_width(n), x = v % w;
    int k = 0;
    /* Ascending: up, up-right, left, right, down-left, down. (Up-right and
     * left, or right and down-left, are one node only when W is 2, and
     * then never both.) */
    if (v >= w && has_down(n, w, seed, v - w))
        out[k++] = (uint32_t)(v - w);
    if (parent_kind(w, seed, v) == GEN_UPRIGHT)
        out[k++] = (uint32_t)(v - w + 1);
    if (x > 0 && has_right(n, w, seed, v - 1))
        out[k++] = (uint32_t)(v - 1);
    if (has_right(n, w, seed, v))
        out[k++] = (uint32_t)(v + 1);
    if (x > 0 && v + w - 1 < n && parent_kind(w, seed, v + w - 1) == GEN_UPRIGHT)
        out[k++] = (uint32_t)(v + w - 1);
    if (has_down(n, w, seed, v))
        out[k++] = (uint32_t)(v + w);
    return k;
}

static int no_memory(struct bfs_graph *g)
{
    unsigned long long n = g->n;
    bfs_graph_free(g);
    return gpm_set_error("--nodes: cannot allocate a generated graph of %llu nodes: pass a "
                         "smaller --nodes", n);
}

int bfs_gen(uint64_t n, uint64_t seed, struct bfs_graph *g)
{
    int64_t nn = (int64_t)n;
    memset(g, 0, sizeof *g);
    if (n == 0 || n >= (1ull << 31))
        return gpm_set_error("--nodes: %llu nodes: generate 1 to 2^31 - 1",
                             (unsigned long long)n);
    g->n = n;
    g->row = malloc((n + 1) * sizeof *g->row);
    if (!g->row)
        return no_memory(g);
    g->row[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < nn; v++) {
        uint32_t nb[BFS_GEN_MAX_DEGREE];
        g->row[v + 1] = (uint32_t)bfs_gen_neighbors(n, seed, (uint64_t)v, nb);
    }
    for (uint64_t v = 0; v < n; v++) /* at most 6 n < 2^32 arcs */
        g->row[v + 1] += g->row[v];
    g->m = g->row[n];
    g->col = malloc((g->m ? g->m : 1) * sizeof *g->col);
    if (!g->col)
        return no_memory(g);
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < nn; v++)
        bfs_gen_neighbors(n, seed, (uint64_t)v, &g->col[g->row[v]]);
    g->sum = bfs_graph_sum(g);
    return 0;
}
