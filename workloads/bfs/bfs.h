/* BFS, breadth-first search with native persistence (paper section 4.3,
 * Table 1): a level-synchronous search whose costs and search sequence
 * (bfs_layout.h) are persisted as nodes are discovered, so that a crashed
 * search resumes from its last durable level. */
#ifndef BFS_H
#define BFS_H

#include <stddef.h>
#include <stdint.h>

#include "bfs_graph.h"
#include "bfs_layout.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BFS_PM }; /* the one PM object: the region "search" of bfs_layout.h */

/* What the kernels of one search write, and where (bfs_kernels.cu). In
 * gpm, gpm-ndp and gpm-eadr COST_OUT, SEQ_OUT, START and COUNT are in the
 * PM mapping; in the CAP modes the first two are NULL (the device arrays
 * CLAIM and DSEQ are the results) and the last two device mirrors that the
 * CAP engine copies. */
struct bfs_kern {
    const uint32_t *row, *col; /* the graph (device) */
    uint32_t *claim;           /* device: each node's level, BFS_UNVISITED: the visited set */
    uint32_t *dseq;            /* device: the search sequence, which kernels read */
    uint32_t *cost_out;        /* PM costs, or NULL */
    uint32_t *seq_out;         /* PM search sequence, or NULL */
    uint32_t *start;           /* level starts: PM, or the device mirror */
    uint64_t *count;           /* the count word: PM, or the device mirror */
    uint32_t *ctr;             /* device, 4 words: claims, blocks done, the level's new nodes, overflow */
    uint64_t n;
    uint32_t epoch;
    int lag;                   /* bfs_levels_after's LAG */
    wl_out o;
};

/* What one CPU thread discovered in a level, and the ranges it persists. */
struct bfs_cpu_buf {
    uint32_t *v;
    gpm_range *r;
    size_t n, cap;
};

struct bfs_state {
    struct bfs_graph g;
    enum bfs_cache_how how;
    uint64_t n;
    uint32_t src;
    uint32_t levels;           /* of the last search */
    /* GPU modes */
    uint32_t *d_row, *d_col, *d_claim, *d_seq, *d_start, *d_ctr;
    uint64_t *d_count;
    gpm_range *ranges;         /* gpm-ndp: a level's commit */
    size_t ranges_cap;
    /* cpu mode */
    uint32_t *h_claim;         /* the visited set, in DRAM */
    struct bfs_cpu_buf *bufs;  /* one per OpenMP thread */
    int nbufs;
};

/* Kernels (bfs_kernels.cu); each waits for its launch and reports errors. */
int bfs_gpu_reset(uint32_t *claim, uint64_t n, uint32_t *ctr);
int bfs_gpu_start(const struct bfs_kern *k, uint32_t src);
/* Expands LEVEL, whose frontier is dseq[BASE, BASE + SIZE); *NEXT gets
 * the nodes it discovered (the frontier of LEVEL + 1). */
int bfs_gpu_expand(const struct bfs_kern *k, uint32_t level, uint32_t base, uint32_t size,
                   uint32_t *next);
/* CLAIM from the durable frontiers seq[0, start[LEVELS]) (device copies). */
int bfs_gpu_rebuild(uint32_t *claim, const uint32_t *seq, const uint32_t *start,
                    uint32_t levels, uint64_t n, uint32_t *ctr);

/* The ranges of the region that one commit makes durable where kernels
 * do not persist in-kernel (bfs_commit.c). After the start (START_AT 0,
 * START_WORDS 2) or the expansion of a level (START_AT level + 2, 1 word),
 * whose NEXT new nodes are at seq[BASE, BASE + NEXT): that frontier; in
 * gpm-ndp (CAP 0: flushes of what the kernels stored, no source) each new
 * node's cost, read from PM_SEQ; the level starts; in the CAP modes (CAP 1:
 * copies from K's device arrays and mirrors) the cost array when FINAL;
 * and the count, last. V has room for NEXT + 4; returns the count. */
int bfs_commit_ranges(const struct bfs_kern *k, int cap, const uint32_t *pm_seq, uint32_t base,
                      uint32_t next, uint32_t start_at, int start_words, int final,
                      gpm_range *v);

/* The search in the GPU modes (bfs_gpu.c). */
int bfs_gpu_setup(struct wl_ctx *c);
int bfs_gpu_fresh(struct wl_ctx *c);
int bfs_gpu_restore(struct wl_ctx *c, uint32_t durable);
int bfs_gpu_search(struct wl_ctx *c, uint32_t durable, uint32_t *levels, uint32_t *computed);
void bfs_gpu_teardown(struct bfs_state *st);

/* The CPU counterpart (bfs_cpu.c): OpenMP, persisting through libpmem
 * with the same layout and resume rule as gpm mode. */
int bfs_cpu_setup(struct wl_ctx *c);
int bfs_cpu_fresh(struct wl_ctx *c);
int bfs_cpu_restore(struct wl_ctx *c, uint32_t durable);
int bfs_cpu_search(struct wl_ctx *c, uint32_t durable, uint32_t *levels, uint32_t *computed);
void bfs_cpu_teardown(struct bfs_state *st);

/* Shared by both (bfs.c): the PM header's meta. */
int bfs_write_meta(struct wl_ctx *c, uint32_t cost_epoch);

/* The reference (bfs_ref.c): a sequential queue BFS from SRC. COST gets
 * each node's level or BFS_UNVISITED, *LEVELS the number of levels (the
 * largest cost + 1). -1 if out of memory. */
int bfs_ref(const struct bfs_graph *g, uint32_t src, uint32_t *cost, uint32_t *levels);
/* Checks the search of EPOCH in the PM layout PM (bfs_layout.h) against
 * the reference: every cost, the count, and each level's part of the
 * search sequence (its size, and each node in it once, of that level).
 * 0 right, 1 wrong (message set: the count first, then the first wrong
 * cost, then the sequence), -1 error. Adds to W (NULL: not wanted) the
 * measure of verify: of the N nodes, those whose cost is wrong or that
 * their level's part of the sequence does not hold, and the durable count
 * as one marker. */
int bfs_check(const struct bfs_graph *g, uint32_t src, const uint8_t *pm, uint32_t epoch,
              struct wl_wrong *w);

#ifdef __cplusplus
}
#endif

#endif
