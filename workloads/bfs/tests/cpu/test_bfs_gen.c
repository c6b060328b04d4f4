/* The road-like generator: deterministic for a seed, a planar lattice
 * graph with every edge in both directions, connected, about 2.44 arcs per
 * node, and a search depth that grows like the square root of the node
 * count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../bfs.h"
#include "gpm/check.h"

static void deterministic_for_a_seed(void)
{
    struct bfs_graph a, b, c;
    CHECK(bfs_gen(10000, 7, &a) == 0);
    CHECK(bfs_gen(10000, 7, &b) == 0);
    CHECK(bfs_gen(10000, 8, &c) == 0);
    CHECK(a.m == b.m && a.sum == b.sum);
    CHECK(memcmp(a.row, b.row, (a.n + 1) * 4) == 0 && memcmp(a.col, b.col, a.m * 4) == 0);
    CHECK(a.sum != c.sum);
    CHECK(bfs_graph_check(&a, "generated") == 0);
    bfs_graph_free(&a);
    bfs_graph_free(&b);
    bfs_graph_free(&c);
}

/* Whether u -> v has its v -> u. */
static int has_arc(const struct bfs_graph *g, uint32_t u, uint32_t v)
{
    for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++)
        if (g->col[e] == v)
            return 1;
    return 0;
}

/* Every arc joins lattice neighbours (left, right, up, down, or the
 * up-right / down-left diagonal: never the other one, so no two edges
 * cross), has its reverse, and none repeats or loops. */
static void planar_lattice_edges_both_ways(void)
{
    static const uint64_t sizes[] = {1, 2, 3, 5, 17, 1000, 4097};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct bfs_graph g;
        uint64_t n = sizes[s], w = bfs_gen_width(n);
        CHECK(w * w >= n && (w - 1) * (w - 1) < n);
        CHECK(bfs_gen(n, 3, &g) == 0);
        CHECK(bfs_graph_check(&g, "generated") == 0);
        for (uint32_t u = 0; u < n; u++) {
            CHECK(g.row[u + 1] - g.row[u] <= BFS_GEN_MAX_DEGREE);
            for (uint32_t e = g.row[u]; e < g.row[u + 1]; e++) {
                uint32_t v = g.col[e];
                long dx = (long)(v % w) - (long)(u % w), dy = (long)(v / w) - (long)(u / w);
                CHECKF(labs(dx) + labs(dy) == 1 || (dx == 1 && dy == -1) || (dx == -1 && dy == 1),
                       "n=%llu: arc %u -> %u is not between lattice neighbours",
                       (unsigned long long)n, u, v);
                CHECKF(has_arc(&g, v, u), "n=%llu: arc %u -> %u has no reverse",
                       (unsigned long long)n, u, v);
                CHECK(e == g.row[u] || g.col[e - 1] < v); /* ascending: no repeats */
            }
        }
        CHECK(n > 1 || g.m == 0);
        bfs_graph_free(&g);
    }
}

/* Levels of a search from node 0 (connected: every node reached). */
static int levels_from_corner(uint64_t n, uint64_t seed, uint32_t *levels, double *degree)
{
    struct bfs_graph g;
    uint32_t *cost = NULL;
    int ok = 0;
    if (bfs_gen(n, seed, &g) != 0 || !(cost = malloc(n * 4)) || bfs_ref(&g, 0, cost, levels) != 0)
        goto out;
    ok = 1;
    for (uint64_t v = 0; v < n; v++)
        ok &= cost[v] != BFS_UNVISITED;
    *degree = (double)g.m / (double)n;
out:
    free(cost);
    bfs_graph_free(&g);
    return ok;
}

static void connected_with_road_degree(void)
{
    static const uint64_t sizes[] = {1000, 10007, 65536, 250000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            uint32_t levels;
            double degree;
            CHECKF(levels_from_corner(sizes[s], seed, &levels, &degree),
                   "n=%llu seed=%llu: not every node is reached from node 0",
                   (unsigned long long)sizes[s], (unsigned long long)seed);
            CHECKF(degree >= 2.2 && degree <= 2.7, "n=%llu: %.3f arcs per node",
                   (unsigned long long)sizes[s], degree);
        }
}

/* At least W + H - 1 levels from a corner, and four times the nodes at
 * least doubles them: the depth grows like sqrt(n) or faster. */
static void long_diameter(void)
{
    uint32_t prev = 0;
    for (uint64_t n = 4096; n <= 262144; n *= 4) {
        uint64_t w = bfs_gen_width(n), h = (n + w - 1) / w;
        uint32_t levels;
        double degree;
        CHECK(levels_from_corner(n, 5, &levels, &degree));
        CHECKF(levels >= w + h - 1, "n=%llu: %u levels, fewer than %llu",
               (unsigned long long)n, levels, (unsigned long long)(w + h - 1));
        CHECKF(levels >= sqrt((double)n), "n=%llu: %u levels", (unsigned long long)n, levels);
        CHECKF(prev == 0 || levels >= 2 * prev - 2, "n=%llu: %u levels after %u",
               (unsigned long long)n, levels, prev);
        prev = levels;
    }
}

int main(void)
{
    RUN(deterministic_for_a_seed);
    RUN(planar_lattice_edges_both_ways);
    RUN(connected_with_road_degree);
    RUN(long_diameter);
    CHECK_EXIT();
}
