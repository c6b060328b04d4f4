/* BFS's PM layout and the bookkeeping that lets a crashed search resume
 * from its last durable level, shared by the kernels, the CPU counterpart,
 * recovery, verification and the CPU tests.
 *
 *   [count: u64 | meta][cost: n x u32][seq: n x u32][start: (n+2) x u32]
 *   (the header is 128 bytes; each array starts 128-aligned)
 *
 * seq    the search sequence: the frontier of level 0 (the source), then
 *        that of level 1, ..., each a list of node ids; start[L] is where
 *        level L begins, start[L+1] where it ends
 * cost   each node's level, BFS_UNVISITED where the search has not (yet)
 *        reached it
 * count  (epoch << 32) | K: the frontiers of levels 0..K-1 are durable in
 *        seq, start[0..K] too, and so (see cost_epoch) their nodes' costs.
 *        It is written only after what it counts is durable, so a crash in
 *        the middle of level K leaves K: recovery rebuilds the visited set
 *        from seq[0, start[K]) and expands level K-1 again. The redone
 *        expansion claims exactly the nodes the killed one was claiming
 *        (the frontier as a set is determined), so it rewrites any cost or
 *        seq entry the killed attempt left, with the same values.
 * meta   what the search was of (the graph's checksum, its node count, the
 *        source), so that recovery refuses another graph; and cost_epoch,
 *        the epoch in which the cost array holds, node by node, the cost of
 *        every node of the durable frontiers and BFS_UNVISITED or the next
 *        level elsewhere (the modes that store costs as they discover nodes
 *        set it after resetting the array; the CAP modes, which write the
 *        whole array at the end, clear it).
 *
 * The epoch is the harness's (a new one for every run, recorded in the
 * run's identity before the run starts), so a count of an earlier run
 * never counts and seq/start need no clearing. */
#ifndef BFS_LAYOUT_H
#define BFS_LAYOUT_H

#include <stdint.h>

#include "gpm/hd.h"

#define BFS_UNVISITED 0xffffffffu
#define BFS_HDR_BYTES 128u
/* Nodes the layout and the kernels can index with 32-bit ids, sequence
 * positions and level numbers (BFS_UNVISITED stays free). */
#define BFS_MAX_NODES (1ull << 31)

struct bfs_meta {
    uint64_t graph_sum;  /* the searched graph's checksum */
    uint64_t nodes;
    uint32_t source;
    uint32_t cost_epoch; /* see above; 0: none */
};

GPM_HD uint64_t bfs_align(uint64_t x) { return (x + 127u) & ~(uint64_t)127u; }
GPM_HD uint64_t bfs_count_off(void) { return 0; }
GPM_HD uint64_t bfs_meta_off(void) { return 64; }
GPM_HD uint64_t bfs_cost_off(void) { return BFS_HDR_BYTES; }
GPM_HD uint64_t bfs_seq_off(uint64_t n) { return bfs_cost_off() + bfs_align(n * 4); }
GPM_HD uint64_t bfs_start_off(uint64_t n) { return bfs_seq_off(n) + bfs_align(n * 4); }
/* start has n + 2 entries: a search of n levels writes start[n + 1] when
 * its last expansion finds nothing new. */
GPM_HD uint64_t bfs_file_bytes(uint64_t n) { return bfs_start_off(n) + bfs_align((n + 2) * 4); }

GPM_HD uint64_t bfs_count_word(uint32_t epoch, uint32_t levels)
{
    return ((uint64_t)epoch << 32) | levels;
}

/* The levels a count word holds for the run of EPOCH (0 for another run's). */
GPM_HD uint32_t bfs_durable_levels(uint64_t word, uint32_t epoch)
{
    return (uint32_t)(word >> 32) == epoch ? (uint32_t)word : 0u;
}

/* The count a mode writes after expanding level LEVEL found NEXT new nodes.
 * Modes that persist in-kernel (gpm, gpm-eadr, cpu) write it after the new
 * frontier is durable: it counts that frontier. Modes whose one commit per
 * level makes the frontier and the count durable together (gpm-ndp and the
 * CAP modes: one drain or one fsync, whose writes may reach PM in any
 * order) write the count LAG behind: it counts only what the previous
 * commit made durable. */
GPM_HD uint32_t bfs_levels_after(uint32_t level, uint32_t next, int lag)
{
    return lag ? level + 1 : (next ? level + 2 : level + 1);
}

/* The same for the search's start (level 0 written). */
GPM_HD uint32_t bfs_levels_at_start(int lag) { return lag ? 0u : 1u; }

/* The level of sequence position I among LEVELS levels: the last L with
 * START[L] <= I (START ascending, START[0] == 0 <= I < START[LEVELS]). */
GPM_HD uint32_t bfs_level_of(const uint32_t *start, uint32_t levels, uint32_t i)
{
    uint32_t lo = 0, hi = levels; /* START[lo] <= i < START[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (start[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Whether START[0..LEVELS] can be a durable sequence of N nodes: starts
 * at 0, every level non-empty, at most N nodes in all. */
GPM_HD int bfs_starts_ok(const uint32_t *start, uint32_t levels, uint64_t n)
{
    if (levels == 0 || start[0] != 0 || levels > n)
        return 0;
    for (uint32_t l = 0; l < levels; l++)
        if (start[l + 1] <= start[l])
            return 0;
    return (uint64_t)start[levels] <= n;
}

#endif
