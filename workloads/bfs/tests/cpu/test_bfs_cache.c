/* The CSR cache of input graphs: built once, then hit; rebuilt when the
 * source file changes; a corrupt, truncated or foreign cache rebuilt and
 * never trusted. GPM_DATA_DIR points at a scratch directory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../bfs_graph.h"
#include "gpm/gpm.h"
#include "gpm/check.h"
#include "tests/wl_test.h"

static char dir[256], gr[300];

static int same(const struct bfs_graph *a, const struct bfs_graph *b)
{
    return a->n == b->n && a->m == b->m && a->sum == b->sum &&
           memcmp(a->row, b->row, (a->n + 1) * 4) == 0 && memcmp(a->col, b->col, a->m * 4) == 0;
}

/* Loads SPEC: the way it went (-1 on error). */
static int load(const char *spec, uint64_t nodes, uint64_t seed, struct bfs_graph *g)
{
    enum bfs_cache_how how;
    if (bfs_graph_load(spec, nodes, seed, g, &how) != 0)
        return -1;
    return (int)how;
}

static void a_generated_graph_is_built_once_then_hit(void)
{
    struct bfs_graph a, b, direct;
    char p1[512], p2[512];
    CHECKF(load("gen", 5000, 1, &a) == BFS_CACHE_BUILT, "%s", gpm_last_error());
    CHECK_EQ_INT(load("gen", 5000, 1, &b), BFS_CACHE_HIT);
    CHECK(bfs_gen(5000, 1, &direct) == 0);
    CHECK(same(&a, &b) && same(&a, &direct));
    CHECK(strcmp(b.what, "generated-lattice-71x71") == 0);
    /* Another seed or size is another cache. */
    CHECK(bfs_cache_path("gen", 5000, 1, p1, sizeof p1) == 0);
    CHECK(bfs_cache_path("gen", 5000, 2, p2, sizeof p2) == 0);
    CHECK(strcmp(p1, p2) != 0 && strncmp(p1, dir, strlen(dir)) == 0);
    CHECK(bfs_cache_path("gen", 5001, 1, p2, sizeof p2) == 0 && strcmp(p1, p2) != 0);
    bfs_graph_free(&a);
    bfs_graph_free(&b);
    bfs_graph_free(&direct);
}

static void a_file_is_rebuilt_when_it_changes(void)
{
    struct bfs_graph a, b;
    struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
    CHECK(check_write_file(gr, "p sp 3 2\na 1 2 1\na 2 3 1\n") == 0);
    CHECKF(load(gr, 0, 1, &a) == BFS_CACHE_BUILT, "%s", gpm_last_error());
    CHECK(strncmp(a.what, "file-test-bfs-cache", 19) == 0);
    CHECK_EQ_INT(load(gr, 0, 1, &b), BFS_CACHE_HIT);
    CHECK(same(&a, &b));
    bfs_graph_free(&b);
    /* The same size, another graph and another modification time. */
    CHECK(check_write_file(gr, "p sp 3 2\na 1 3 1\na 2 3 1\n") == 0);
    CHECK(utimensat(AT_FDCWD, gr, later, 0) == 0);
    CHECK_EQ_INT(load(gr, 0, 1, &b), BFS_CACHE_REBUILT);
    CHECK(!same(&a, &b) && b.col[0] == 2);
    bfs_graph_free(&b);
    CHECK_EQ_INT(load(gr, 0, 1, &b), BFS_CACHE_HIT);
    bfs_graph_free(&a);
    bfs_graph_free(&b);
}

/* Rewrites LEN bytes at OFF of the cache of gen/5000/1 with X. */
static int damage(long off, const char *x, size_t len)
{
    char path[512];
    FILE *f;
    if (bfs_cache_path("gen", 5000, 1, path, sizeof path) != 0 || !(f = fopen(path, "r+")))
        return -1;
    if (off < 0)
        fseek(f, off, SEEK_END);
    else
        fseek(f, off, SEEK_SET);
    fwrite(x, 1, len, f);
    return fclose(f);
}

static void a_corrupt_cache_is_rebuilt(void)
{
    struct bfs_graph good, g;
    char path[512], other[512], cmd[1200];
    CHECK(bfs_gen(5000, 1, &good) == 0);
    CHECK(load("gen", 5000, 1, &g) >= 0);
    bfs_graph_free(&g);
    /* A flipped arc in the payload: the checksum fails. */
    CHECK(damage(-4, "\x01\x00\x00\x00", 4) == 0);
    CHECK_EQ_INT(load("gen", 5000, 1, &g), BFS_CACHE_REBUILT);
    CHECK(same(&g, &good));
    bfs_graph_free(&g);
    /* A damaged header. */
    CHECK(damage(20, "\x7f", 1) == 0);
    CHECK_EQ_INT(load("gen", 5000, 1, &g), BFS_CACHE_REBUILT);
    CHECK(same(&g, &good));
    bfs_graph_free(&g);
    /* Truncated. */
    CHECK(bfs_cache_path("gen", 5000, 1, path, sizeof path) == 0);
    CHECK(truncate(path, 2000) == 0);
    CHECK_EQ_INT(load("gen", 5000, 1, &g), BFS_CACHE_REBUILT);
    CHECK(same(&g, &good));
    bfs_graph_free(&g);
    /* A foreign cache: another graph's, whole and valid, under this name. */
    CHECK(load("gen", 4000, 9, &g) >= 0);
    bfs_graph_free(&g);
    CHECK(bfs_cache_path("gen", 4000, 9, other, sizeof other) == 0);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", other, path);
    CHECK(system(cmd) == 0);
    CHECK_EQ_INT(load("gen", 5000, 1, &g), BFS_CACHE_REBUILT);
    CHECK(same(&g, &good));
    bfs_graph_free(&g);
    CHECK_EQ_INT(load("gen", 5000, 1, &g), BFS_CACHE_HIT);
    bfs_graph_free(&g);
    bfs_graph_free(&good);
    /* No temporary file is left behind. */
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", dir);
    CHECK(system(cmd) != 0);
}

static void a_missing_file_is_an_error(void)
{
    struct bfs_graph g;
    uint64_t n;
    CHECK_EQ_INT(load("/nonexistent/USA-road-d.USA.gr", 0, 1, &g), -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent/USA-road-d.USA.gr: cannot open the graph");
    CHECK(bfs_graph_nodes("gen", 77, &n) == 0 && n == 77);
    CHECK(bfs_graph_nodes(gr, 77, &n) == 0 && n == 3);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test-bfs-cache-%d", (int)getpid());
    snprintf(gr, sizeof gr, "%s/test-bfs-cache.gr", dir);
    mkdir(dir, 0700);
    setenv("GPM_DATA_DIR", dir, 1);
    RUN(a_generated_graph_is_built_once_then_hit);
    RUN(a_file_is_rebuilt_when_it_changes);
    RUN(a_corrupt_cache_is_rebuilt);
    RUN(a_missing_file_is_an_error);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
