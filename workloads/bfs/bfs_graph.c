/* The CSR graph BFS searches: allocation, the checksum that identifies it
 * (in its cache file and in the PM header of a search), and the structural
 * check that every graph passes before a kernel indexes with it. */
#include <stdlib.h>
#include <string.h>

#include "bfs_graph.h"
#include "gpm/gpm.h"
#include "gpm/hd.h"

void bfs_graph_free(struct bfs_graph *g)
{
    free(g->row);
    free(g->col);
    g->row = g->col = NULL;
    g->n = g->m = 0;
}

int bfs_graph_alloc(struct bfs_graph *g, uint64_t n, uint64_t m)
{
    g->n = n;
    g->m = m;
    g->row = malloc((n + 1) * sizeof *g->row);
    g->col = malloc((m ? m : 1) * sizeof *g->col);
    if (!g->row || !g->col) {
        bfs_graph_free(g);
        return gpm_set_error("bfs: cannot allocate a graph of %llu nodes and %llu arcs: use a "
                             "smaller --nodes or graph", (unsigned long long)n,
                             (unsigned long long)m);
    }
    return 0;
}

/* Each word mixed with its position and summed: any order of summation
 * gives the same value, so the threads need not agree on one. */
uint64_t bfs_graph_sum(const struct bfs_graph *g)
{
    uint64_t s = gpm_mix64(g->n) ^ gpm_mix64(g->m + 0x9e3779b97f4a7c15ull);
    int64_t nr = (int64_t)g->n + 1, nc = (int64_t)g->m;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < nr; i++)
        s += gpm_mix64(((uint64_t)i << 32) ^ g->row[i] ^ 0x5851f42d4c957f2dull);
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < nc; i++)
        s += gpm_mix64(((uint64_t)i << 32) ^ g->col[i] ^ 0x14057b7ef767814full);
    return s;
}

int bfs_graph_check(const struct bfs_graph *g, const char *what)
{
    uint64_t bad_row = UINT64_MAX, bad_col = UINT64_MAX;
    int64_t n = (int64_t)g->n, m = (int64_t)g->m;
    if (!g->row || !g->col || g->row[0] != 0 || g->row[g->n] != g->m)
        return gpm_set_error("%s: not a graph of %llu nodes and %llu arcs (its offsets do not "
                             "run from 0 to the arc count): rebuild it", what,
                             (unsigned long long)g->n, (unsigned long long)g->m);
#pragma omp parallel for schedule(static) reduction(min : bad_row)
    for (int64_t u = 0; u < n; u++)
        if (g->row[u] > g->row[u + 1] && (uint64_t)u < bad_row)
            bad_row = (uint64_t)u;
#pragma omp parallel for schedule(static) reduction(min : bad_col)
    for (int64_t e = 0; e < m; e++)
        if (g->col[e] >= g->n && (uint64_t)e < bad_col)
            bad_col = (uint64_t)e;
    if (bad_row != UINT64_MAX)
        return gpm_set_error("%s: the arcs of node %llu end before they begin: rebuild it", what,
                             (unsigned long long)bad_row);
    if (bad_col != UINT64_MAX)
        return gpm_set_error("%s: arc %llu leads to node %u of %llu: rebuild it", what,
                             (unsigned long long)bad_col, g->col[bad_col],
                             (unsigned long long)g->n);
    return 0;
}
