/* BFS on the CPU: the reference (a sequential queue BFS) that verifies
 * every mode, and the check of a search's PM layout against it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"

int bfs_ref(const struct bfs_graph *g, uint32_t src, uint32_t *cost, uint32_t *levels)
{
    uint32_t *queue = malloc((g->n ? g->n : 1) * sizeof *queue);
    uint64_t head = 0, tail = 0;
    if (!queue)
        return gpm_set_error("bfs: out of memory for the reference search of %llu nodes",
                             (unsigned long long)g->n);
    memset(cost, 0xff, g->n * sizeof *cost);
    cost[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++) {
            uint32_t v = g->col[e];
            if (cost[v] == BFS_UNVISITED) {
                cost[v] = cost[u] + 1;
                queue[tail++] = v;
            }
        }
    }
    *levels = cost[queue[tail - 1]] + 1; /* the queue holds the levels in order */
    free(queue);
    return 0;
}

/* Sets the message of a mismatch; returns 1. */
static int wrong(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int wrong(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gpm_set_error("%s", msg);
    return 1;
}

/* The sequence: level L holds exactly the nodes of reference cost L, each
 * once. REF is consumed (each node seen is marked off). */
static int check_sequence(uint64_t n, const uint32_t *seq, const uint32_t *start,
                          uint32_t levels, uint32_t *ref)
{
    uint32_t *size = calloc((size_t)levels + 1, sizeof *size);
    int rc = 0;
    if (!size) {
        gpm_set_error("bfs: out of memory for verification");
        return -1;
    }
    for (uint64_t v = 0; v < n; v++)
        if (ref[v] != BFS_UNVISITED)
            size[ref[v]]++;
    if (start[0] != 0)
        rc = wrong("bfs: level 0 starts at sequence position %u, not 0", start[0]);
    for (uint32_t l = 0; l < levels && rc == 0; l++)
        if (start[l + 1] < start[l] || start[l + 1] - start[l] != size[l])
            rc = wrong("bfs: level %u of the search sequence holds %u nodes, expected %u", l,
                       start[l + 1] - start[l], size[l]);
    for (uint32_t l = 0; l < levels && rc == 0; l++)
        for (uint32_t i = start[l]; i < start[l + 1] && rc == 0; i++) {
            uint32_t v = seq[i];
            if (v >= n || ref[v] != l)
                rc = wrong("bfs: search sequence position %u holds node %u, which is not a "
                           "node of level %u (or appears twice)", i, v, l);
            else
                ref[v] = BFS_UNVISITED;
        }
    free(size);
    return rc;
}

/* The nodes whose cost is right (the reference's, REF) but which their
 * level's part of the search sequence does not hold once: a wrong search
 * result as much as a wrong cost. */
static uint64_t misplaced(uint64_t n, const uint32_t *cost, const uint32_t *seq,
                          const uint32_t *start, uint32_t levels, const uint32_t *ref)
{
    uint8_t *placed = calloc(n ? n : 1, 1);
    uint64_t bad = 0;
    if (!placed)
        return 0;
    for (uint32_t l = 0; l < levels; l++)
        for (uint64_t i = start[l]; i < start[l + 1] && i < n; i++)
            if (seq[i] < n && ref[seq[i]] == l)
                placed[seq[i]] = 1;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (uint64_t v = 0; v < n; v++)
        bad += cost[v] == ref[v] && ref[v] != BFS_UNVISITED && !placed[v];
    free(placed);
    return bad;
}

int bfs_check(const struct bfs_graph *g, uint32_t src, const uint8_t *pm, uint32_t epoch,
              struct wl_wrong *w)
{
    uint64_t n = g->n;
    const uint32_t *cost = (const uint32_t *)(pm + bfs_cost_off());
    const uint32_t *seq = (const uint32_t *)(pm + bfs_seq_off(n));
    const uint32_t *start = (const uint32_t *)(pm + bfs_start_off(n));
    uint32_t got = bfs_durable_levels(*(const uint64_t *)(pm + bfs_count_off()), epoch);
    uint32_t *ref = malloc(n * sizeof *ref), levels;
    struct wl_wrong local = {0};
    int rc;
    if (!w)
        w = &local;
    if (!ref || bfs_ref(g, src, ref, &levels) != 0) {
        free(ref);
        return gpm_set_error("bfs: out of memory for verification");
    }
    /* The measure first, whatever the count says: every node. */
    w->units = "nodes";
    rc = wl_check_u32("bfs: cost of node", cost, ref, n, w);
    w->bad += misplaced(n, cost, seq, start, levels, ref);
    w->marks++;
    w->marks_bad += got != levels;
    if (got != levels)
        rc = wrong("bfs: the durable count says %u levels, the search from node %u has %u", got,
                   src, levels);
    if (rc == 0)
        rc = check_sequence(n, seq, start, levels, ref);
    free(ref);
    return rc;
}
