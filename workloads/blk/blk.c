/* BLK in every mode: pricing iterations with the accumulators checkpointed
 * every K iterations through the harness's checkpoint object (gpmcp, the
 * mode's way), and recovery from the last consistent checkpoint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blk.h"

static const struct wl_param blk_params[] = {
    {.flag = "options", .help = "options priced per iteration", .sizes = 1,
     .scale = {1ll << 20, 32ll << 20, 256ll << 20}, .min = 1, .max = 1ll << 31},
    {.flag = "iters", .help = "pricing iterations (one week apart)", .scale = {4, 8, 1024},
     .min = 1, .max = 1000000},
    {.flag = "checkpoint-every", .help = "checkpoint after every K iterations (and after the "
     "last)", .scale = {1, 1, 10}, .min = 1, .max = 1000000},
    {0},
};

static const struct wl_obj_decl blk_objects[] = {
    [BLK_PRICES] = {"prices", WL_OBJ_CHECKPOINT},
    {NULL, WL_OBJ_REGION},
};

static struct blk_state *S(struct wl_ctx *c) { return c->priv; }

static size_t acc_bytes(uint64_t n) { return n * sizeof(float); }

static int blk_layout(struct wl_ctx *c)
{
    uint64_t n = (uint64_t)wl_int(c, "options"), iters = (uint64_t)wl_int(c, "iters");
    uint64_t k = (uint64_t)wl_int(c, "checkpoint-every");
    wl_obj_checkpoint(c, BLK_PRICES, 2 * acc_bytes(n) + sizeof(blk_meta), 3);
    c->data_bytes = 2 * acc_bytes(n);
    c->calib_bytes = c->data_bytes;
    /* For --kill random: on the fast side (pricing at about 10 ps
     * an option, checkpoints at about 45 GB/s), so a random kill lands
     * inside the run in the fast modes and in its first part in slower ones. */
    c->expected_s = (double)iters * (double)n * 1e-11 +
                    (double)((iters + k - 1) / k) * (double)c->data_bytes / 45e9 + 0.005;
    return 0;
}

static int zero_state(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    memset(&st->meta, 0, sizeof st->meta);
    st->meta.magic = BLK_META_MAGIC;
    st->meta.n = st->n;
    st->meta.seed = wl_seed(c);
    st->meta.iters = st->iters;
    return wl_dev_zero(st->d_call, acc_bytes(st->n)) || wl_dev_zero(st->d_put, acc_bytes(st->n))
               ? -1
               : 0;
}

static int blk_setup(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    size_t b;
    st->n = (uint64_t)wl_int(c, "options");
    st->iters = (uint64_t)wl_int(c, "iters");
    st->every = (uint64_t)wl_int(c, "checkpoint-every");
    b = acc_bytes(st->n);
    if (wl_dev_alloc((void **)&st->d_s, b) || wl_dev_alloc((void **)&st->d_x, b) ||
        wl_dev_alloc((void **)&st->d_t, b) || wl_dev_alloc((void **)&st->d_call, b) ||
        wl_dev_alloc((void **)&st->d_put, b) ||
        wl_dev_alloc((void **)&st->d_bad, sizeof *st->d_bad) ||
        blk_gpu_generate(st->d_s, st->d_x, st->d_t, st->n, wl_seed(c)))
        return -1;
    return wl_cp_register(c, BLK_PRICES, st->d_call, b) ||
                   wl_cp_register(c, BLK_PRICES, st->d_put, b) ||
                   wl_cp_register_record(c, BLK_PRICES, &st->meta, sizeof st->meta)
               ? -1
               : 0;
}

static int blk_prepare(struct wl_ctx *c)
{
    return zero_state(c);
}

/* One pricing iteration, one week after the last. */
static int price(struct wl_ctx *c, uint64_t it)
{
    struct blk_state *st = S(c);
    return blk_gpu_price(st->d_s, st->d_x, st->d_t, st->d_call, st->d_put, st->n, it);
}

/* The checkpoint's record must be this run's. */
static int record_check(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    const blk_meta *m = &st->meta;
    if (blk_meta_matches(m, st->n, wl_seed(c), st->iters))
        return 0;
    return gpm_set_error("%s: checkpoint of another run (options=%llu seed=%llu iters=%llu): "
                         "pass the same --options, --seed and --iters to recover it",
                         wl_obj_path(c, BLK_PRICES), (unsigned long long)m->n,
                         (unsigned long long)m->seed, (unsigned long long)m->iters);
}

static struct wl_steps steps(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    struct wl_steps s = {.cp = BLK_PRICES, .total = st->iters, .every = st->every,
                         .done = &st->meta.iters_done, .unit = "iteration", .step = price,
                         .record_check = record_check};
    return s;
}

static int blk_run(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    return wl_steps_run(c, &s, 0);
}

/* Units of progress are iterations; the durable ones are those the last
 * checkpoint holds. */
static int blk_recover(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    return wl_steps_recover(c, &s, zero_state);
}

/* Options x iterations up to which a wrong result is measured: the GPU
 * check finds the first wrong option, and the CPU prices every option
 * again to count them (small scale: about 2^28 prices, seconds). */
#define BLK_CPU_COUNT_MAX (1ull << 28)

/* After the GPU check failed: the measure, counted on the CPU where that
 * is quick (beyond, the row has no wrong_units); the GPU's message kept. */
static void note_wrong(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    struct wl_wrong w = {.marks = 1}; /* the last checkpoint's record: right here */
    char why[1024];
    float *call = NULL, *put = NULL;
    snprintf(why, sizeof why, "%s", gpm_last_error());
    if (st->n * st->iters <= BLK_CPU_COUNT_MAX && (call = malloc(st->n * sizeof *call)) &&
        (put = malloc(st->n * sizeof *put)) &&
        wl_dev_copy(call, st->d_call, st->n * sizeof *call, 0) == 0 &&
        wl_dev_copy(put, st->d_put, st->n * sizeof *put, 0) == 0)
        blk_check(call, put, st->n, wl_seed(c), st->iters, &w);
    free(call);
    free(put);
    wl_note_wrong(c, &w);
    gpm_set_error("%s", why);
}

/* Verifies what is on PM: the last checkpoint must hold the finished run. */
static int blk_verify(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    struct wl_steps s = steps(c);
    int rc = wl_steps_final(c, &s);
    if (rc != 0)
        return rc;
    if (wl_check_digest(c, st->d_call, st->n * sizeof(float), 1) != 0 ||
        wl_check_digest(c, st->d_put, st->n * sizeof(float), 1) != 0)
        return -1;
    if ((rc = wl_check_known(c)) != 0)
        return rc < 0 ? -1 : 0; /* these prices passed the check before */
    rc = blk_gpu_check(st->d_call, st->d_put, st->n, wl_seed(c), st->iters, st->d_bad);
    if (rc == 1)
        note_wrong(c);
    return rc == 0 ? wl_check_passed(c) : rc;
}

static void blk_teardown(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    wl_dev_free(st->d_s);
    wl_dev_free(st->d_x);
    wl_dev_free(st->d_t);
    wl_dev_free(st->d_call);
    wl_dev_free(st->d_put);
    wl_dev_free(st->d_bad);
}

const struct wl_workload WORKLOAD = {
    .name = "blk",
    .about = "Black-Scholes pricing iterations with checkpointed prices (paper Table 1)",
    .modes = WL_MODES_GPU,
    .progress_by = WL_BY_COMMITS, /* a checkpoint is durable in every mode */
    .objects = blk_objects,
    .params = blk_params,
    .state_bytes = sizeof(struct blk_state),
    .layout = blk_layout,
    .setup = blk_setup,
    .prepare = blk_prepare,
    .run = blk_run,
    .recover = blk_recover,
    .verify = blk_verify,
    .teardown = blk_teardown,
};
