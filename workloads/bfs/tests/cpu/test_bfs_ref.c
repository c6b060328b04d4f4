/* BFS on the CPU: the reference against hand-checked levels, the PM
 * layout and resume bookkeeping the kernels share (bfs_layout.h), and the
 * verification of a search's PM image. */
#include <stdlib.h>
#include <string.h>

#include "../../bfs.h"
#include "gpm/check.h"

/* A CSR of N nodes from M arcs (tail, head), built here rather than by the
 * code under test. */
static int make_graph(struct bfs_graph *g, uint32_t n, const uint32_t (*arcs)[2], uint32_t m)
{
    if (bfs_graph_alloc(g, n, m) != 0)
        return -1;
    memset(g->row, 0, (n + 1) * sizeof *g->row);
    for (uint32_t k = 0; k < m; k++)
        g->row[arcs[k][0] + 1]++;
    for (uint32_t u = 0; u < n; u++)
        g->row[u + 1] += g->row[u];
    for (uint32_t u = 0, k = 0; u < n; u++)
        for (uint32_t a = 0; a < m; a++)
            if (arcs[a][0] == u)
                g->col[k++] = arcs[a][1];
    g->sum = bfs_graph_sum(g);
    return 0;
}

#define U BFS_UNVISITED

static void reference_on_a_path(void)
{
    /* 0 - 1 - 2 - 3 - 4, both directions. */
    static const uint32_t arcs[][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 2}, {3, 4}, {4, 3}};
    static const uint32_t from0[5] = {0, 1, 2, 3, 4}, from2[5] = {2, 1, 0, 1, 2};
    struct bfs_graph g = {0};
    uint32_t cost[5], levels;
    CHECK(make_graph(&g, 5, arcs, 8) == 0);
    CHECK(bfs_ref(&g, 0, cost, &levels) == 0);
    CHECK(memcmp(cost, from0, sizeof cost) == 0);
    CHECK_EQ_INT(levels, 5);
    CHECK(bfs_ref(&g, 2, cost, &levels) == 0);
    CHECK(memcmp(cost, from2, sizeof cost) == 0);
    CHECK_EQ_INT(levels, 3);
    bfs_graph_free(&g);
}

static void reference_on_a_grid(void)
{
    /* 3 x 3, 4-neighbour, both directions: from a corner the level is the
     * Manhattan distance; from the centre 1 for the sides, 2 the corners. */
    uint32_t arcs[24][2], m = 0, cost[9], levels;
    static const uint32_t centre[9] = {2, 1, 2, 1, 0, 1, 2, 1, 2};
    struct bfs_graph g = {0};
    for (uint32_t v = 0; v < 9; v++) {
        if (v % 3 < 2) {
            arcs[m][0] = v, arcs[m++][1] = v + 1;
            arcs[m][0] = v + 1, arcs[m++][1] = v;
        }
        if (v < 6) {
            arcs[m][0] = v, arcs[m++][1] = v + 3;
            arcs[m][0] = v + 3, arcs[m++][1] = v;
        }
    }
    CHECK_EQ_INT(m, 24);
    CHECK(make_graph(&g, 9, (const uint32_t(*)[2])arcs, m) == 0);
    CHECK(bfs_ref(&g, 0, cost, &levels) == 0);
    for (uint32_t v = 0; v < 9; v++)
        CHECK_EQ_INT(cost[v], v % 3 + v / 3);
    CHECK_EQ_INT(levels, 5);
    CHECK(bfs_ref(&g, 4, cost, &levels) == 0);
    CHECK(memcmp(cost, centre, sizeof cost) == 0);
    CHECK_EQ_INT(levels, 3);
    bfs_graph_free(&g);
}

static void unreachable_nodes_keep_the_sentinel(void)
{
    /* Two components {0, 1, 2} and {3, 4}; the arc 1 -> 5 is one-way. */
    static const uint32_t arcs[][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {3, 4}, {4, 3}, {1, 5}};
    static const uint32_t want0[6] = {0, 1, 2, U, U, 2}, want5[6] = {U, U, U, U, U, 0};
    struct bfs_graph g = {0};
    uint32_t cost[6], levels;
    CHECK(make_graph(&g, 6, arcs, 7) == 0);
    CHECK(bfs_ref(&g, 0, cost, &levels) == 0);
    CHECK(memcmp(cost, want0, sizeof cost) == 0);
    CHECK_EQ_INT(levels, 3);
    /* From 5 nothing is reachable: the arc leads into it, not out. */
    CHECK(bfs_ref(&g, 5, cost, &levels) == 0);
    CHECK(memcmp(cost, want5, sizeof cost) == 0);
    CHECK_EQ_INT(levels, 1);
    bfs_graph_free(&g);
}

static void a_source_without_edges_is_one_level(void)
{
    static const uint32_t arcs[][2] = {{0, 1}, {1, 0}};
    struct bfs_graph g = {0};
    uint32_t cost[3], levels;
    CHECK(make_graph(&g, 3, arcs, 2) == 0);
    CHECK(bfs_ref(&g, 2, cost, &levels) == 0);
    CHECK(cost[0] == U && cost[1] == U && cost[2] == 0);
    CHECK_EQ_INT(levels, 1);
    bfs_graph_free(&g);
}

static void layout_offsets(void)
{
    CHECK_EQ_INT(bfs_count_off(), 0);
    CHECK_EQ_INT(bfs_meta_off(), 64);
    CHECK(bfs_meta_off() + sizeof(struct bfs_meta) <= BFS_HDR_BYTES);
    CHECK_EQ_INT(bfs_cost_off(), 128);
    CHECK_EQ_INT(bfs_seq_off(1000), 128 + 4096);
    CHECK_EQ_INT(bfs_start_off(1000), 128 + 2 * 4096);
    CHECK_EQ_INT(bfs_file_bytes(1000), 128 + 2 * 4096 + 4096); /* 1002 starts */
    CHECK_EQ_INT(bfs_file_bytes(1022), 128 + 2 * 4096 + 4096);
    CHECK_EQ_INT(bfs_file_bytes(1023), 128 + 2 * 4096 + 4096 + 128);
    CHECK_EQ_INT(bfs_seq_off(23947347) % 128, 0);
    CHECK_EQ_INT(bfs_start_off(23947347) % 128, 0);
    /* The USA network's 24M nodes: 12 bytes a node, 287 MB. */
    CHECK(bfs_file_bytes(23947347) < 23947347ull * 12 + 1024);
}

static void count_word_and_lag(void)
{
    uint64_t w = bfs_count_word(7, 1234);
    CHECK_EQ_INT(bfs_durable_levels(w, 7), 1234);
    CHECK_EQ_INT(bfs_durable_levels(w, 6), 0); /* another run's count */
    CHECK_EQ_INT(bfs_durable_levels(0, 1), 0); /* a zeroed region */
    CHECK_EQ_INT(bfs_durable_levels(bfs_count_word(0xffffffffu, 5), 0xffffffffu), 5);
    /* In-kernel persistence counts the new frontier; the one-commit modes
     * count what the previous commit made durable. */
    CHECK_EQ_INT(bfs_levels_at_start(0), 1);
    CHECK_EQ_INT(bfs_levels_at_start(1), 0);
    CHECK_EQ_INT(bfs_levels_after(0, 3, 0), 2);
    CHECK_EQ_INT(bfs_levels_after(0, 3, 1), 1);
    CHECK_EQ_INT(bfs_levels_after(9, 0, 0), 10); /* the last expansion finds nothing */
    CHECK_EQ_INT(bfs_levels_after(9, 0, 1), 10);
}

static void level_of_a_sequence_position(void)
{
    static const uint32_t start[] = {0, 1, 3, 4, 9};
    static const uint32_t want[] = {0, 1, 1, 2, 3, 3, 3, 3, 3};
    for (uint32_t i = 0; i < 9; i++)
        CHECK_EQ_INT(bfs_level_of(start, 4, i), want[i]);
    CHECK_EQ_INT(bfs_level_of(start, 1, 0), 0);
    CHECK(bfs_starts_ok(start, 4, 9));
    CHECK(bfs_starts_ok(start, 2, 3));
    CHECK(!bfs_starts_ok(start, 4, 8));  /* more nodes than the graph */
    CHECK(!bfs_starts_ok(start, 0, 9));
    {
        static const uint32_t empty_level[] = {0, 1, 1, 3};
        static const uint32_t not_at_0[] = {1, 2};
        CHECK(!bfs_starts_ok(empty_level, 3, 9));
        CHECK(!bfs_starts_ok(not_at_0, 1, 9));
    }
}

/* The PM image of a finished search from the reference, as the kernels
 * leave it: costs, each level's nodes in the sequence, starts, count. */
static uint8_t *image(const struct bfs_graph *g, uint32_t src, uint32_t epoch)
{
    uint8_t *pm = calloc(1, bfs_file_bytes(g->n));
    uint32_t *cost = (uint32_t *)(pm + bfs_cost_off());
    uint32_t *seq = (uint32_t *)(pm + bfs_seq_off(g->n));
    uint32_t *start = (uint32_t *)(pm + bfs_start_off(g->n)), levels, k = 0;
    if (!pm || bfs_ref(g, src, cost, &levels) != 0)
        return NULL;
    for (uint32_t l = 0; l < levels; l++) {
        start[l] = k;
        for (uint32_t v = (uint32_t)g->n; v-- > 0;) /* any order within a level */
            if (cost[v] == l)
                seq[k++] = v;
    }
    start[levels] = start[levels + 1] = k;
    *(uint64_t *)(pm + bfs_count_off()) = bfs_count_word(epoch, levels);
    return pm;
}

static void check_accepts_a_search_and_names_what_is_wrong(void)
{
    static const uint32_t arcs[][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {0, 3}, {3, 0}, {4, 4}};
    struct bfs_graph g = {0};
    uint8_t *pm;
    uint32_t *cost, *seq, *start;
    struct wl_wrong w = {0};
    CHECK(make_graph(&g, 5, arcs, 7) == 0);
    pm = image(&g, 0, 3);
    CHECK(pm);
    cost = (uint32_t *)(pm + bfs_cost_off());
    seq = (uint32_t *)(pm + bfs_seq_off(5));
    start = (uint32_t *)(pm + bfs_start_off(5));
    CHECKF(bfs_check(&g, 0, pm, 3, &w) == 0, "%s", gpm_last_error());
    CHECK(w.bad == 0 && w.total == 5 && w.marks_bad == 0 && w.marks == 1);
    /* Levels {0}, {1, 3}, {2}; node 4 unreachable. */
    CHECK(start[1] == 1 && start[2] == 3 && start[3] == 4 && cost[4] == U);
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(bfs_check(&g, 0, pm, 4, &w), 1); /* another epoch's count */
    CHECK_MSG(gpm_last_error(), "count says 0 levels");
    CHECK(w.bad == 0 && w.total == 5 && w.marks_bad == 1 && w.marks == 1); /* the costs are right */
    cost[4] = 2;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(bfs_check(&g, 0, pm, 3, &w), 1);
    CHECK_MSG(gpm_last_error(), "cost of node: element 4 is 2, expected 4294967295");
    CHECK(w.bad == 1 && w.total == 5 && w.marks_bad == 0 && !strcmp(w.units, "nodes"));
    /* Both: the count is named, and the wrong cost still counted. */
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(bfs_check(&g, 0, pm, 4, &w), 1);
    CHECK_MSG(gpm_last_error(), "count says 0 levels");
    CHECK(w.bad == 1 && w.marks_bad == 1);
    cost[4] = U;
    seq[2] = seq[1]; /* node twice in level 1: the other one is missing */
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(bfs_check(&g, 0, pm, 3, &w), 1);
    CHECK_MSG(gpm_last_error(), "position 2");
    CHECK(w.bad == 1 && w.total == 5);
    free(pm);
    pm = image(&g, 0, 3);
    CHECK(pm);
    start = (uint32_t *)(pm + bfs_start_off(5));
    start[2] = 2; /* level 1 one node short: that node is in level 2's part */
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(bfs_check(&g, 0, pm, 3, &w), 1);
    CHECK_MSG(gpm_last_error(), "level 1 of the search sequence holds 1 nodes, expected 2");
    CHECK(w.bad == 1 && w.total == 5);
    free(pm);
    bfs_graph_free(&g);
}

int main(void)
{
    RUN(reference_on_a_path);
    RUN(reference_on_a_grid);
    RUN(unreachable_nodes_keep_the_sentinel);
    RUN(a_source_without_edges_is_one_level);
    RUN(layout_offsets);
    RUN(count_word_and_lag);
    RUN(level_of_a_sequence_position);
    RUN(check_accepts_a_search_and_names_what_is_wrong);
    CHECK_EXIT();
}
