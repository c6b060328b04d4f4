/* Each input graph is parsed or generated once: its CSR is kept in the
 * dataset directory (wl_data_dir) as bfs-<hash of the source>.csr,
 *
 *   [header: 1024 bytes][row: (n + 1) x u32][col: m x u32]
 *
 * whose header holds the key of what it was made from (the generator's
 * version, node count and seed; or the file's real path, size and
 * modification time), the sizes, the graph's checksum and its own. A cache
 * whose key differs (the source changed), whose checksums fail or whose
 * CSR is malformed is rebuilt, never trusted; one is written to a
 * temporary file and renamed into place, so a reader sees a whole cache or
 * none. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bfs_graph.h"
#include "bfs_layout.h"
#include "gpm/gpm.h"
#include "gpm/hd.h"
#include "wl.h"

#define CACHE_MAGIC "GPMBFSG\n"
#define CACHE_VERSION 1u

struct cache_hdr {
    char magic[8];
    uint32_t version;
    uint32_t hdr_bytes;
    uint64_t n, m, sum;
    char key[976];     /* NUL-terminated */
    uint64_t hdr_sum;  /* of the bytes before it */
};
_Static_assert(sizeof(struct cache_hdr) == 1024, "the cache header is 1024 bytes");

const char *bfs_cache_how_name(enum bfs_cache_how how)
{
    return how == BFS_CACHE_HIT ? "hit" : how == BFS_CACHE_BUILT ? "built" : "rebuilt";
}

static uint64_t hash_bytes(const void *p, size_t len)
{
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then mixed */
    for (size_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return gpm_mix64(h);
}

static int is_gen(const char *spec) { return strcmp(spec, "gen") == 0; }

/* IDENT names the source (it names the cache file); KEY adds what changes
 * when the source does. */
static int source_key(const char *spec, uint64_t nodes, uint64_t seed, char *ident,
                      size_t ilen, char *key, size_t klen)
{
    char real[PATH_MAX];
    struct stat st;
    int n;
    if (is_gen(spec)) {
        n = snprintf(ident, ilen, "gen:lattice:v%d:nodes=%llu:seed=%llu", BFS_GEN_VERSION,
                     (unsigned long long)nodes, (unsigned long long)seed);
        snprintf(key, klen, "%s", ident);
        return n > 0 && (size_t)n < ilen ? 0 : gpm_set_error("--graph: key too long");
    }
    if (!realpath(spec, real) || stat(real, &st) != 0)
        return gpm_set_error("%s: cannot open the graph (%s): pass the path of an uncompressed "
                             "DIMACS .gr file (gunzip the .gr.gz first), or --graph gen", spec,
                             strerror(errno));
    if (!S_ISREG(st.st_mode))
        return gpm_set_error("%s: not a regular file: pass a DIMACS .gr file, or --graph gen",
                             spec);
    snprintf(ident, ilen, "dimacs:%s", real);
    n = snprintf(key, klen, "%s:size=%lld:mtime=%lld.%09ld", ident, (long long)st.st_size,
                 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
    if (n < 0 || (size_t)n >= klen)
        return gpm_set_error("%s: the path is too long to key a graph cache: move the file "
                             "to a shorter path", spec);
    return 0;
}

int bfs_cache_path(const char *spec, uint64_t nodes, uint64_t seed, char *out, unsigned len)
{
    char ident[PATH_MAX + 64], key[sizeof ((struct cache_hdr *)0)->key];
    const char *dir;
    int n;
    if (source_key(spec, nodes, seed, ident, sizeof ident, key, sizeof key) != 0 ||
        !(dir = wl_data_dir()))
        return -1;
    n = snprintf(out, len, "%s/bfs-%016llx.csr", dir,
                 (unsigned long long)hash_bytes(ident, strlen(ident)));
    return n > 0 && (unsigned)n < len ? 0 : gpm_set_error("%s: path too long for a graph cache: "
                                                          "set GPM_DATA_DIR to a shorter one", dir);
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t k = read(fd, p, len);
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static uint64_t payload_bytes(uint64_t n, uint64_t m) { return 4 * (n + 1) + 4 * m; }

/* 0: G holds the valid cache of KEY at PATH; 1: there is none that can be
 * trusted (*EXISTS says whether a file was there). */
static int read_cache(const char *path, const char *key, struct bfs_graph *g, int *exists)
{
    struct cache_hdr h;
    struct stat st;
    int fd = open(path, O_RDONLY), ok = 0;
    *exists = fd >= 0 || errno != ENOENT;
    if (fd < 0)
        return 1;
    memset(g, 0, sizeof *g);
    if (fstat(fd, &st) != 0 || read_all(fd, &h, sizeof h) != 0 ||
        memcmp(h.magic, CACHE_MAGIC, 8) != 0 || h.version != CACHE_VERSION ||
        h.hdr_bytes != sizeof h || h.hdr_sum != hash_bytes(&h, offsetof(struct cache_hdr, hdr_sum)) ||
        h.key[sizeof h.key - 1] != '\0' || strcmp(h.key, key) != 0 || h.n == 0 ||
        h.n >= BFS_MAX_NODES || h.m > BFS_DIMACS_MAX_ARCS ||
        (uint64_t)st.st_size != sizeof h + payload_bytes(h.n, h.m))
        goto out;
    if (bfs_graph_alloc(g, h.n, h.m) != 0 ||
        read_all(fd, g->row, (h.n + 1) * sizeof *g->row) != 0 ||
        read_all(fd, g->col, h.m * sizeof *g->col) != 0)
        goto out;
    g->sum = bfs_graph_sum(g);
    ok = g->sum == h.sum && bfs_graph_check(g, path) == 0;
out:
    close(fd);
    if (!ok)
        bfs_graph_free(g);
    return ok ? 0 : 1;
}

static int write_cache(const char *path, const char *key, const struct bfs_graph *g)
{
    struct cache_hdr h;
    char tmp[PATH_MAX + 128];
    int fd, err;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.version = CACHE_VERSION;
    h.hdr_bytes = sizeof h;
    h.n = g->n;
    h.m = g->m;
    h.sum = g->sum;
    snprintf(h.key, sizeof h.key, "%s", key);
    h.hdr_sum = hash_bytes(&h, offsetof(struct cache_hdr, hdr_sum));
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return gpm_set_error("%s: cannot write the graph cache (%s): set GPM_DATA_DIR to a "
                             "writable directory", tmp, strerror(errno));
    err = write_all(fd, &h, sizeof h) || write_all(fd, g->row, (g->n + 1) * sizeof *g->row) ||
          write_all(fd, g->col, g->m * sizeof *g->col) || fsync(fd);
    if (close(fd) != 0)
        err = 1;
    if (!err && rename(tmp, path) == 0)
        return 0;
    gpm_set_error("%s: cannot write the graph cache (%s): free space there or set GPM_DATA_DIR "
                  "to another directory", path, strerror(errno));
    unlink(tmp);
    return -1;
}

/* What the row's params say the graph is (no ',', '=' or blanks). */
static void describe(struct bfs_graph *g, const char *spec)
{
    const char *base = strrchr(spec, '/');
    if (is_gen(spec)) {
        uint64_t w = bfs_gen_width(g->n);
        snprintf(g->what, sizeof g->what, "generated-lattice-%llux%llu", (unsigned long long)w,
                 (unsigned long long)((g->n + w - 1) / w));
        return;
    }
    snprintf(g->what, sizeof g->what, "file-%s", base ? base + 1 : spec);
    for (char *s = g->what; *s; s++)
        if (*s == ',' || *s == '=' || *s == '\t' || *s == ' ' || *s == '\n')
            *s = '_';
}

int bfs_graph_load(const char *spec, uint64_t nodes, uint64_t seed, struct bfs_graph *g,
                   enum bfs_cache_how *how)
{
    char ident[PATH_MAX + 64], key[sizeof ((struct cache_hdr *)0)->key], path[PATH_MAX + 64];
    int exists;
    memset(g, 0, sizeof *g);
    if (source_key(spec, nodes, seed, ident, sizeof ident, key, sizeof key) != 0 ||
        bfs_cache_path(spec, nodes, seed, path, sizeof path) != 0)
        return -1;
    if (read_cache(path, key, g, &exists) == 0) {
        *how = BFS_CACHE_HIT;
    } else {
        if ((is_gen(spec) ? bfs_gen(nodes, seed, g) : bfs_dimacs_read(spec, g)) != 0)
            return -1;
        if (bfs_graph_check(g, spec) != 0 || write_cache(path, key, g) != 0) {
            bfs_graph_free(g);
            return -1;
        }
        *how = exists ? BFS_CACHE_REBUILT : BFS_CACHE_BUILT;
    }
    describe(g, spec);
    return 0;
}

int bfs_graph_nodes(const char *spec, uint64_t nodes, uint64_t *n)
{
    if (is_gen(spec)) {
        *n = nodes;
        return 0;
    }
    return bfs_dimacs_nodes(spec, n);
}
