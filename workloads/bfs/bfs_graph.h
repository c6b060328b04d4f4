/* BFS's input: a directed graph in CSR form, read from a 9th DIMACS
 * Challenge shortest-path file or generated (a road-like planar lattice),
 * and kept as a binary cache in the dataset directory (wl_data_dir) so
 * that each input is parsed or generated once.
 *
 * Host code (C11, OpenMP). Functions return 0 / -1 with a one-line message
 * in gpm_last_error() that names the file (and line) or flag and the fix.
 * A bfs_graph owns its arrays: bfs_graph_free releases them (a zeroed
 * graph is fine). Not thread-safe: one caller at a time per graph. */
#ifndef BFS_GRAPH_H
#define BFS_GRAPH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bfs_graph {
    uint64_t n, m;   /* nodes, arcs */
    uint32_t *row;   /* n + 1 offsets into col: the arcs of u are col[row[u] .. row[u+1]) */
    uint32_t *col;   /* m arc heads, each < n */
    uint64_t sum;    /* checksum of row and col (bfs_graph_sum) */
    char what[192];  /* what it is, for the row: "generated-lattice-256x256", "file-NY.gr" */
};

void bfs_graph_free(struct bfs_graph *g);
/* Allocates row (n + 1) and col (m); -1 with the message if it cannot. */
int bfs_graph_alloc(struct bfs_graph *g, uint64_t n, uint64_t m);
/* An order-independent checksum of row and col (OpenMP). */
uint64_t bfs_graph_sum(const struct bfs_graph *g);
/* Whether G is a well-formed CSR (row ascending from 0 to m, every head
 * < n): 0, or -1 with a message naming WHAT. */
int bfs_graph_check(const struct bfs_graph *g, const char *what);

/* ---- 9th DIMACS Challenge shortest-path files (bfs_dimacs.c) ----
 * "c ..." comments, one "p sp N M", then M lines "a U V W": ids 1..N, the
 * arc directed from U to V, its weight W (an integer, ignored by BFS).
 * Blank lines are skipped. Each error names PATH and the line. */
int bfs_dimacs_read(const char *path, struct bfs_graph *g);
/* N of PATH's problem line, reading no further than it. */
int bfs_dimacs_nodes(const char *path, uint64_t *n);
/* Largest N and M the reader takes (32-bit ids, offsets and positions). */
#define BFS_DIMACS_MAX_ARCS 0xffffffffull

/* ---- the road-like generator (bfs_gen.c) ----
 * N nodes on a lattice W = ceil(sqrt(N)) wide, filled row by row. Every
 * node but the first is joined to one earlier lattice neighbour (left, up,
 * or up-right: a spanning tree, so the graph is connected), and about a
 * fifth of the other left-right and up-down lattice pairs get an edge too:
 * planar, about 2.44 arcs per node like USA-road-d.USA, and a BFS from a
 * corner needs at least W + H - 2 levels. Each edge is two arcs. The same
 * N and SEED give the same graph. */
#define BFS_GEN_MAX_DEGREE 6 /* the six lattice directions an edge can take */
#define BFS_GEN_VERSION 1
uint64_t bfs_gen_width(uint64_t n);
/* The neighbours of V (ascending), written to OUT; returns their count. */
int bfs_gen_neighbors(uint64_t n, uint64_t seed, uint64_t v, uint32_t out[BFS_GEN_MAX_DEGREE]);
int bfs_gen(uint64_t n, uint64_t seed, struct bfs_graph *g);

/* ---- loading through the cache (bfs_cache.c) ---- */
enum bfs_cache_how {
    BFS_CACHE_HIT,     /* a valid cache of this very input was read */
    BFS_CACHE_BUILT,   /* there was none: parsed or generated, then cached */
    BFS_CACHE_REBUILT  /* there was one, stale (the source changed) or corrupt: rebuilt */
};
const char *bfs_cache_how_name(enum bfs_cache_how how);
/* The graph of SPEC: "gen" (NODES nodes, SEED) or the path of a DIMACS
 * file. The cache file (bfs-<hash>.csr in wl_data_dir()) is keyed by the
 * generator's version, NODES and SEED, or by the file's real path, size
 * and modification time; one that does not match, or fails its checksums
 * or its CSR check, is rebuilt. Written atomically (a temporary file, then
 * rename). *HOW says which happened. */
int bfs_graph_load(const char *spec, uint64_t nodes, uint64_t seed, struct bfs_graph *g,
                   enum bfs_cache_how *how);
/* The node count of SPEC without loading it (for sizing the PM layout). */
int bfs_graph_nodes(const char *spec, uint64_t nodes, uint64_t *n);
/* The cache file SPEC would use, written to OUT (LEN bytes). */
int bfs_cache_path(const char *spec, uint64_t nodes, uint64_t seed, char *out, unsigned len);

#ifdef __cplusplus
}
#endif

#endif
