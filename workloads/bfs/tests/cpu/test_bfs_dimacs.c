/* The DIMACS shortest-path reader: a good file read into the CSR it
 * describes, and each kind of bad file refused with one line that names
 * the file and the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../bfs_graph.h"
#include "gpm/gpm.h"
#include "gpm/check.h"

static char path[256];

/* Reads TEXT: 0, or -1 with the message in gpm_last_error(). */
static int read_text(const char *text, struct bfs_graph *g)
{
    if (check_write_file(path, text) != 0)
        return gpm_set_error("%s: cannot write the test file", path);
    return bfs_dimacs_read(path, g);
}

static void a_good_file(void)
{
    struct bfs_graph g;
    static const uint32_t row[5] = {0, 2, 3, 3, 5}, col[5] = {1, 3, 0, 0, 1};
    uint64_t n = 0;
    CHECKF(read_text("c 9th DIMACS Implementation Challenge: Shortest Paths\n"
                     "c a comment\n"
                     "p sp 4 5\n"
                     "c arcs in any order, 1-based\n"
                     "a 1 2 803\n"
                     "a 4 1 -7\n"
                     "\n"
                     "a 2 1 803\r\n"
                     "a 1 4 12\n"
                     "a 4 2 5",
                     &g) == 0,
           "%s", gpm_last_error());
    CHECK_EQ_INT(g.n, 4);
    CHECK_EQ_INT(g.m, 5);
    /* Each node's arcs in the file's order; node 3 has none. */
    CHECK(memcmp(g.row, row, sizeof row) == 0);
    CHECK(memcmp(g.col, col, sizeof col) == 0);
    CHECK(g.sum == bfs_graph_sum(&g) && g.sum != 0);
    CHECK(bfs_graph_check(&g, path) == 0);
    bfs_graph_free(&g);
    CHECK(bfs_dimacs_nodes(path, &n) == 0);
    CHECK_EQ_INT(n, 4);
}

/* TEXT is refused with a message that has "PATH:LINE: " and WHAT. */
static int refused(const char *text, int line, const char *what)
{
    struct bfs_graph g;
    char want[300];
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    if (read_text(text, &g) == 0) {
        bfs_graph_free(&g);
        printf("# accepted: %s\n", text);
        return 0;
    }
    if (!strstr(gpm_last_error(), want) || !strstr(gpm_last_error(), what)) {
        printf("# message: %s\n", gpm_last_error());
        return 0;
    }
    return !g.row && !g.col;
}

static void a_truncated_file_names_where_it_ends(void)
{
    CHECK(refused("p sp 3 4\na 1 2 1\na 2 3 1\n", 3, "truncated: the file ends after 2 of the 4 arcs"));
    /* Cut in the middle of a line: that line is malformed. */
    CHECK(refused("p sp 3 2\na 1 2 1\na 2 3", 3, "malformed arc line"));
    CHECK(refused("c only comments\n", 1, "no problem line"));
    CHECK(refused("", 0, "no problem line"));
}

static void a_malformed_line_is_named(void)
{
    CHECK(refused("p sp 3 2\na 1 x 1\na 2 3 1\n", 2, "malformed arc line"));
    CHECK(refused("p sp 3 2\na 1 2\na 2 3 1\n", 2, "malformed arc line"));
    CHECK(refused("p sp 3 2\na 1 2 1.5\na 2 3 1\n", 2, "malformed arc line"));
    CHECK(refused("p sp 3 2\na 1 2 1 9\na 2 3 1\n", 2, "malformed arc line"));
    CHECK(refused("p sp 3 2\na 1 2 1\nx 2 3 1\n", 3, "malformed line"));
    CHECK(refused("c\np max 3 2\n", 2, "problem line of another type"));
    CHECK(refused("p sp 3\n", 1, "malformed problem line"));
    CHECK(refused("p sp 3 1\np sp 3 1\na 1 2 1\n", 2, "a second problem line (the first is line 1)"));
    CHECK(refused("c\na 1 2 1\np sp 3 1\n", 2, "arc before the problem line"));
    CHECK(refused("p sp 0 0\n", 1, "0 nodes"));
    CHECK(refused("p sp 99999999999999999999 1\n", 1, "malformed problem line"));
}

static void an_id_out_of_range_is_named(void)
{
    CHECK(refused("p sp 3 2\na 1 2 1\na 2 4 1\n", 3, "node id 4 out of range: ids run from 1 to 3"));
    CHECK(refused("p sp 3 2\na 0 2 1\na 2 3 1\n", 2, "node id 0 out of range"));
}

static void an_arc_count_other_than_m_is_named(void)
{
    CHECK(refused("p sp 3 1\na 1 2 1\na 2 3 1\n", 3, "more arcs than the 1 the problem line (line 1) declares"));
    CHECK(refused("c x\np sp 3 3\na 1 2 1\nc end\n", 4, "after 1 of the 3 arcs its problem line (line 2)"));
}

/* A generated graph written out as DIMACS text reads back the same. */
static void a_generated_graph_round_trips(void)
{
    struct bfs_graph g, h;
    FILE *f;
    CHECK(bfs_gen(5000, 4, &g) == 0);
    f = fopen(path, "w");
    CHECK(f);
    fprintf(f, "c generated\np sp %llu %llu\n", (unsigned long long)g.n, (unsigned long long)g.m);
    for (uint64_t u = 0; u < g.n; u++)
        for (uint32_t e = g.row[u]; e < g.row[u + 1]; e++)
            fprintf(f, "a %llu %u %u\n", (unsigned long long)u + 1, g.col[e] + 1, e % 977);
    CHECK(fclose(f) == 0);
    CHECKF(bfs_dimacs_read(path, &h) == 0, "%s", gpm_last_error());
    CHECK(h.n == g.n && h.m == g.m && h.sum == g.sum);
    CHECK(memcmp(h.row, g.row, (g.n + 1) * 4) == 0 && memcmp(h.col, g.col, g.m * 4) == 0);
    bfs_graph_free(&g);
    bfs_graph_free(&h);
}

static void a_missing_file_says_to_gunzip(void)
{
    struct bfs_graph g;
    uint64_t n;
    CHECK(bfs_dimacs_read("/nonexistent/USA-road-d.NY.gr", &g) == -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent/USA-road-d.NY.gr: cannot open the graph");
    CHECK_MSG(gpm_last_error(), "gunzip");
    CHECK(bfs_dimacs_nodes("/nonexistent/x.gr", &n) == -1);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/test-bfs-dimacs-%d.gr", (int)getpid());
    RUN(a_good_file);
    RUN(a_truncated_file_names_where_it_ends);
    RUN(a_malformed_line_is_named);
    RUN(an_id_out_of_range_is_named);
    RUN(an_arc_count_other_than_m_is_named);
    RUN(a_generated_graph_round_trips);
    RUN(a_missing_file_says_to_gunzip);
    unlink(path);
    CHECK_EXIT();
}
