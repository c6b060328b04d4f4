/* The reduction in every mode: the descriptor the harness drives, and
 * which kernels write where. The harness gives each run its epoch and
 * keeps the run's identity; the reduction's own bookkeeping is the epoch
 * in every slot. */
#include <stdlib.h>
#include <string.h>

#include "reduce.h"

static const struct wl_param red_params[] = {
    {.flag = "n", .help = "32-bit integers to sum", .sizes = 1,
     .scale = {16ll << 16, 256ll << 20, 1024ll << 20}, .min = 1, .max = 1ll << 33},
    {.flag = "block", .help = "integers per thread block (a power of two, 128..4096)",
     .sizes = 1, .scale = {1024, 1024, 1024}, .min = 128, .max = 4096, .pow2 = 1},
    {0},
};

static const struct wl_obj_decl red_objects[] = {
    [RED_TREE] = {"tree", WL_OBJ_REGION},
    {NULL, WL_OBJ_REGION},
};

static struct red_state *S(struct wl_ctx *c) { return c->priv; }
static uint8_t *pm_host(struct wl_ctx *c) { return wl_region(c, RED_TREE)->host; }
static const uint64_t *pm_slots(struct wl_ctx *c)
{
    return (const uint64_t *)(pm_host(c) + red_slots_off());
}
static uint64_t pm_total(struct wl_ctx *c)
{
    uint64_t t;
    memcpy(&t, pm_host(c) + red_total_off(S(c)->n, S(c)->block), sizeof t);
    return t;
}

static int red_layout(struct wl_ctx *c)
{
    uint64_t n = (uint64_t)wl_int(c, "n");
    uint32_t block = (uint32_t)wl_int(c, "block");
    wl_obj_region(c, RED_TREE, red_file_bytes(n, block));
    c->data_bytes = n * 4;
    c->calib_bytes = red_file_bytes(n, block);
    /* For --kill random: on the fast side, as PS's. */
    c->expected_s = (double)c->calib_bytes / 50e9 + 0.005;
    return 0;
}

static int red_setup(struct wl_ctx *c)
{
    struct red_state *st = S(c);
    st->n = (uint64_t)wl_int(c, "n");
    st->block = (uint32_t)wl_int(c, "block");
    st->nblocks = red_nblocks(st->n, st->block);
    if (!c->m->needs_gpu) {
        if (!(st->h_in = malloc(st->n * 4)))
            return gpm_set_error("reduce: cannot allocate %llu bytes for the input: use a "
                                 "smaller --scale", (unsigned long long)st->n * 4);
        red_cpu_generate(st->h_in, st->n, wl_seed(c));
        return 0;
    }
    if (wl_dev_alloc((void **)&st->d_in, st->n * 4) != 0 ||
        red_gpu_generate(st->d_in, st->n, wl_seed(c)) != 0)
        return -1;
    if (!(st->dev = red_gpu_words(st->n, st->block, wl_sbrp(c))))
        return gpm_set_error("reduce: no device memory for the kernels' block sums and flags: "
                             "use a smaller --scale");
    if (!c->m->kernels_write_pm &&
        (wl_dev_alloc((void **)&st->d_slots, red_total_off(st->n, st->block)) != 0 ||
         wl_dev_alloc((void **)&st->d_total, sizeof *st->d_total) != 0))
        return -1;
    return 0;
}

/* The reduction of epoch c->epoch: with RESUME, blocks whose slot 0 holds
 * it are read, not computed. *COMPUTED gets the blocks computed. */
static int compute(struct wl_ctx *c, int resume, uint64_t *computed)
{
    struct red_state *st = S(c);
    gpm_region *r = wl_region(c, RED_TREE);
    size_t slots_off = red_slots_off(), total_off = red_total_off(st->n, st->block);
    unsigned long long k = 0;
    int kernels_on_pm = c->m->kernels_write_pm;
    uint8_t *dev = r->dev;
    /* Where the kernels store: PM, or the CAP modes' device copies. */
    uint64_t *slots = kernels_on_pm ? (uint64_t *)(dev + slots_off) : st->d_slots;
    uint64_t *total = kernels_on_pm ? (uint64_t *)(dev + total_off) : st->d_total;

    if (!c->m->needs_gpu) { /* each block's tree durable before its slot 0, as on the GPU */
        if (red_cpu_reduce(c, st, computed) != 0)
            return -1;
        wl_progress_add(c, 1); /* the total */
        return 0;
    }
    /* The DDIO bracket, where the mode has one (wl_persist_begin knows). */
    if (wl_persist_begin(c) != 0)
        return -1;
    if (red_gpu_reduce(st->d_in, slots, total, st->n, st->block, c->epoch, wl_out_of(c), resume,
                       wl_sbrp(c), st->dev, &k) != 0) {
        wl_persist_end(c);
        return -1;
    }
    if (wl_persist_end(c) != 0)
        return -1;
    *computed = k;
    if (kernels_on_pm) {
        /* gpm, gpm-eadr: persisted (and counted) in-kernel; gpm-ndp: the
         * CPU flushes what the kernels stored. */
        gpm_range all = {slots_off, red_file_bytes(st->n, st->block) - slots_off, NULL};
        if (wl_commit(c, RED_TREE, &all, 1) != 0)
            return -1;
    } else {
        /* CAP: the whole tree and the total to PM with one commit. */
        gpm_range v[2] = {{slots_off, total_off - slots_off, st->d_slots},
                          {total_off, 8, st->d_total}};
        if (wl_commit(c, RED_TREE, v, 2) != 0)
            return -1;
    }
    wl_progress_add(c, 1); /* the total */
    return 0;
}

static int red_run(struct wl_ctx *c)
{
    uint64_t computed;
    return compute(c, 0, &computed);
}

/* Resumes the epoch that was interrupted: a durable total ends it, else
 * only blocks without the epoch in slot 0 are computed, then the total. */
static int red_recover(struct wl_ctx *c)
{
    struct red_state *st = S(c);
    uint32_t threads = red_threads(st->block);
    uint64_t pending = red_count_pending(pm_slots(c), st->nblocks, threads, c->epoch);
    uint64_t computed = 0;
    c->progress.total = st->nblocks + 1;
    c->progress.durable = st->nblocks - pending;
    if (red_slot_holds(pm_total(c), c->epoch)) {
        c->progress.durable = c->progress.total;
        wl_note(c, "resumed_blocks=0,pending_blocks=%llu,total=durable",
                (unsigned long long)pending);
        return 0;
    }
    if (compute(c, 1, &computed) != 0)
        return -1;
    c->progress.redone = computed + 1;
    wl_note(c, "resumed_blocks=%llu,pending_blocks=%llu", (unsigned long long)computed,
            (unsigned long long)pending);
    return 0;
}

/* Every slot and the total; the epoch each holds is its own marker. */
static int red_verify(struct wl_ctx *c)
{
    struct red_state *st = S(c);
    struct wl_wrong w = {0};
    int rc = red_check(pm_slots(c), pm_total(c), st->n, st->block, c->epoch, wl_seed(c), &w);
    if (rc == 1)
        wl_note_wrong(c, &w);
    return rc;
}

static void red_teardown(struct wl_ctx *c)
{
    struct red_state *st = S(c);
    wl_dev_free(st->d_in); /* all NULL in cpu mode */
    wl_dev_free(st->d_slots);
    wl_dev_free(st->d_total);
    red_gpu_words_free(st->dev);
    free(st->h_in);
}

const struct wl_workload WORKLOAD = {
    .name = "reduce",
    .about = "sum of integers, every iteration's partial sums on PM (SBRP's Figure 2)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    .sbrp = 1, /* pRel/pAcq at block scope per iteration, at device scope for the total */
    .objects = red_objects,
    .params = red_params,
    .state_bytes = sizeof(struct red_state),
    .layout = red_layout,
    .setup = red_setup,
    .run = red_run,
    .recover = red_recover,
    .verify = red_verify,
    .teardown = red_teardown,
};
