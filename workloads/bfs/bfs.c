/* BFS in every mode: the descriptor the harness drives. The search itself
 * is bfs_gpu.c (six GPU modes) and bfs_cpu.c (the CPU counterpart); the PM
 * layout and the resume rule are bfs_layout.h. Progress units are levels:
 * a recovery finds K durable, expands level K - 1 again and goes on, and
 * counts the levels it computed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"

static const struct wl_param bfs_params[] = {
    {.flag = "nodes", .help = "nodes of the generated road-like graph (--graph gen)", .sizes = 1,
     .scale = {65536, 1048576, 23947347}, .min = 1, .max = 1ll << 28},
    {.flag = "graph", .help = "gen, a generated road-like graph, or the path of a DIMACS "
     "shortest-path .gr file (gunzipped)", .type = WL_STR, .sizes = 1,
     .sscale = {"gen", "gen", "gen"}},
    {.flag = "source", .help = "the node the search starts from (0-based: a DIMACS id - 1)",
     .scale = {0, 0, 0}, .min = 0, .max = (long long)BFS_MAX_NODES - 2},
    {0},
};

static const struct wl_obj_decl bfs_objects[] = {
    [BFS_PM] = {"search", WL_OBJ_REGION},
    {NULL, WL_OBJ_REGION},
};

static struct bfs_state *S(struct wl_ctx *c) { return c->priv; }
static int is_cpu(const struct wl_ctx *c) { return !c->m->needs_gpu; }
static const uint8_t *pm(struct wl_ctx *c) { return wl_region(c, BFS_PM)->host; }

static int bfs_layout(struct wl_ctx *c)
{
    const char *graph = wl_str(c, "graph");
    uint64_t n, src = (uint64_t)wl_int(c, "source");
    if (strcmp(graph, "gen") != 0 && wl_given(c, "nodes"))
        return gpm_set_error("--nodes: the graph file %s sets the node count: drop --nodes "
                             "(it sizes --graph gen)", graph);
    if (bfs_graph_nodes(graph, (uint64_t)wl_int(c, "nodes"), &n) != 0)
        return -1;
    if (src >= n)
        return gpm_set_error("--source: node %llu of a graph of %llu nodes: pass 0 to %llu",
                             (unsigned long long)src, (unsigned long long)n,
                             (unsigned long long)n - 1);
    wl_obj_region(c, BFS_PM, bfs_file_bytes(n));
    c->data_bytes = bfs_file_bytes(n);
    c->calib_bytes = n * 4; /* the largest commit: the CAP modes' cost array */
    /* For --kill random: on the fast side, about 2.5 sqrt(n) levels
     * (the generator's from a corner) of 25 us each. */
    c->expected_s = 2.5 * sqrt((double)n) * 25e-6 + (double)n * 8 / 20e9 + 0.005;
    return 0;
}

int bfs_write_meta(struct wl_ctx *c, uint32_t cost_epoch)
{
    struct bfs_state *st = S(c);
    struct bfs_meta m;
    memset(&m, 0, sizeof m);
    m.graph_sum = st->g.sum;
    m.nodes = st->n;
    m.source = st->src;
    m.cost_epoch = cost_epoch;
    return wl_pm_write(c, BFS_PM, bfs_meta_off(), &m, sizeof m);
}

/* The row's note: what was searched, and EXTRA. */
static void set_note(struct wl_ctx *c, const char *extra)
{
    struct bfs_state *st = S(c);
    wl_note(c, "graph_nodes=%llu,arcs=%llu,levels=%u,graph_cache=%s,input=%.64s%s%s",
            (unsigned long long)st->n, (unsigned long long)st->g.m, st->levels,
            bfs_cache_how_name(st->how), st->g.what, *extra ? "," : "", extra);
}

static int bfs_setup(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    st->src = (uint32_t)wl_int(c, "source");
    if (bfs_graph_load(wl_str(c, "graph"), (uint64_t)wl_int(c, "nodes"), wl_seed(c), &st->g,
                       &st->how) != 0)
        return -1;
    st->n = st->g.n;
    if (bfs_file_bytes(st->n) != wl_obj_bytes(c, BFS_PM) || st->src >= st->n)
        return gpm_set_error("%s: changed while the run started (now %llu nodes): run again",
                             wl_str(c, "graph"), (unsigned long long)st->n);
    return is_cpu(c) ? bfs_cpu_setup(c) : bfs_gpu_setup(c);
}

static int fresh(struct wl_ctx *c)
{
    return is_cpu(c) ? bfs_cpu_fresh(c) : bfs_gpu_fresh(c);
}

static int search(struct wl_ctx *c, uint32_t durable, uint32_t *computed)
{
    struct bfs_state *st = S(c);
    return is_cpu(c) ? bfs_cpu_search(c, durable, &st->levels, computed)
                     : bfs_gpu_search(c, durable, &st->levels, computed);
}

static int bfs_prepare(struct wl_ctx *c)
{
    return fresh(c);
}

static int bfs_run(struct wl_ctx *c)
{
    uint32_t computed;
    int rc = search(c, 0, &computed);
    set_note(c, "");
    return rc;
}

/* The levels durable on PM for this run, after checking that what is
 * there is a search of this graph from this source. */
static int durable_levels(struct wl_ctx *c, uint32_t *levels)
{
    struct bfs_state *st = S(c);
    const struct bfs_meta *meta = (const struct bfs_meta *)(pm(c) + bfs_meta_off());
    const uint32_t *start = (const uint32_t *)(pm(c) + bfs_start_off(st->n));
    uint32_t k = bfs_durable_levels(*(const uint64_t *)(pm(c) + bfs_count_off()), c->epoch);
    *levels = k;
    if (k == 0)
        return 0;
    if (meta->graph_sum != st->g.sum || meta->nodes != st->n || meta->source != st->src)
        return gpm_set_error("%s: holds a search of another graph or source (%llu nodes, from "
                             "node %u): pass the crashed run's --graph, --nodes, --source and "
                             "--seed, or run without --recover", wl_obj_path(c, BFS_PM),
                             (unsigned long long)meta->nodes, meta->source);
    if (!bfs_starts_ok(start, k, st->n))
        return gpm_set_error("%s: its %u durable levels do not form a search sequence: run "
                             "without --recover", wl_obj_path(c, BFS_PM), k);
    return 0;
}

/* Resumes the interrupted search: the levels whose frontier and count
 * were durable are reused, the visited set rebuilt from them (the
 * restoration), and the search goes on from the last one. */
static int bfs_recover(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    double t0 = wl_now();
    uint32_t k, computed = 0;
    char extra[64];
    if (durable_levels(c, &k) != 0)
        return -1;
    if (k == 0 ? fresh(c) : is_cpu(c) ? bfs_cpu_restore(c, k) : bfs_gpu_restore(c, k))
        return -1;
    c->restore_s = wl_now() - t0;
    if (search(c, k, &computed) != 0)
        return -1;
    /* Total: the levels the search has, counted by where it ended, not by
     * what this recovery did, so a recovery that started over fails the
     * harness's check (it would redo more than total - durable). */
    c->progress.durable = k;
    c->progress.total = st->levels;
    c->progress.redone = computed;
    snprintf(extra, sizeof extra, "resumed_from_level=%u", k);
    set_note(c, extra);
    return 0;
}

static int bfs_verify(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    struct wl_wrong w = {0};
    int rc = bfs_check(&st->g, st->src, pm(c), c->epoch, &w);
    if (rc == 1)
        wl_note_wrong(c, &w);
    return rc;
}

static void bfs_teardown(struct wl_ctx *c)
{
    struct bfs_state *st = S(c);
    if (is_cpu(c))
        bfs_cpu_teardown(st);
    else
        bfs_gpu_teardown(st);
    bfs_graph_free(&st->g);
}

const struct wl_workload WORKLOAD = {
    .name = "bfs",
    .about = "level-synchronous BFS of a road network, costs and search sequence persisted "
             "per level with resume (paper 4.3, Figures 1b and 9)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    /* Every mode persists each level as it goes (the CAP and NDP modes with
     * one commit per level), so every mode resumes. */
    .progress_by = WL_BY_COMMITS,
    .objects = bfs_objects,
    .params = bfs_params,
    .state_bytes = sizeof(struct bfs_state),
    .layout = bfs_layout,
    .setup = bfs_setup,
    .prepare = bfs_prepare,
    .run = bfs_run,
    .recover = bfs_recover,
    .verify = bfs_verify,
    .teardown = bfs_teardown,
};
