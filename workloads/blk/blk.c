/* BLK in every mode: pricing iterations with the accumulators checkpointed
 * every K iterations through the harness's checkpoint engine (gpmcp, or its
 * CAP-fs twin), and recovery from the last consistent checkpoint. */
#include <stdlib.h>
#include <string.h>

#include "blk.h"

static const struct wl_param blk_params[] = {
    {"options", "options priced per iteration", {1ll << 20, 32ll << 20, 256ll << 20}, 1,
     1ll << 31, 1},
    {"iters", "pricing iterations (one week apart)", {4, 8, 8}, 1, 1000000, 0},
    {"checkpoint-every", "checkpoint after every K iterations (and after the last)", {1, 1, 1},
     1, 1000000, 0},
    {NULL, NULL, {0, 0, 0}, 0, 0, 0},
};

static struct blk_state *S(struct wl_ctx *c) { return c->priv; }

static size_t acc_bytes(const struct blk_state *st) { return st->n * sizeof(float); }

static int blk_layout(struct wl_ctx *c)
{
    uint64_t n = (uint64_t)c->p[0], iters = (uint64_t)c->p[1], k = (uint64_t)c->p[2];
    c->data_bytes = 2 * n * sizeof(float);
    c->calib_bytes = c->data_bytes;
    /* For --crash-after random: on the fast side (a checkpoint at about
     * 45 GB/s dominates each iteration), so a random kill lands inside the
     * run in the fast modes and in its first part in slower ones. */
    c->expected_s = (double)((iters + k - 1) / k) * (double)c->data_bytes / 45e9 + 0.005;
    return 0;
}

static int save(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    if (wl_dev_copy(st->d_meta, &st->meta, sizeof st->meta, 1) != 0 || wl_cp_checkpoint(c) != 0)
        return -1;
    st->checkpoints++;
    return 0;
}

static void reset_meta(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    memset(&st->meta, 0, sizeof st->meta);
    st->meta.magic = BLK_META_MAGIC;
    st->meta.n = st->n;
    st->meta.seed = c->opt.seed;
    st->meta.iters = st->iters;
}

static int zero_state(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    reset_meta(c);
    return wl_dev_zero(st->d_call, acc_bytes(st)) || wl_dev_zero(st->d_put, acc_bytes(st)) ? -1
                                                                                              : 0;
}

static int blk_setup(struct wl_ctx *c)
{
    struct blk_state *st = calloc(1, sizeof *st);
    if (!st)
        return gpm_set_error("blk: out of memory");
    c->priv = st;
    st->n = (uint64_t)c->p[0];
    st->iters = (uint64_t)c->p[1];
    st->every = (uint64_t)c->p[2];
    if (wl_dev_alloc((void **)&st->d_s, acc_bytes(st)) || wl_dev_alloc((void **)&st->d_x, acc_bytes(st)) ||
        wl_dev_alloc((void **)&st->d_t, acc_bytes(st)) ||
        wl_dev_alloc((void **)&st->d_call, acc_bytes(st)) ||
        wl_dev_alloc((void **)&st->d_put, acc_bytes(st)) ||
        wl_dev_alloc((void **)&st->d_meta, sizeof(blk_meta)) ||
        blk_gpu_generate(st->d_s, st->d_x, st->d_t, st->n, c->opt.seed))
        return -1;
    if (wl_cp_open(c, 2 * acc_bytes(st) + sizeof(blk_meta), 3) != 0 ||
        wl_cp_register(c, st->d_call, acc_bytes(st)) != 0 ||
        wl_cp_register(c, st->d_put, acc_bytes(st)) != 0 ||
        wl_cp_register(c, st->d_meta, sizeof(blk_meta)) != 0)
        return -1;
    /* A fresh run seals its iteration-0 state first, so that a crash before
     * its first checkpoint never resumes from an older run's. */
    if (c->fresh && (zero_state(c) != 0 || save(c) != 0))
        return -1;
    return 0;
}

static int blk_prepare(struct wl_ctx *c)
{
    return zero_state(c);
}

/* Iterations FROM..iters-1, checkpointing when due. */
static int iterate(struct wl_ctx *c, uint64_t from)
{
    struct blk_state *st = S(c);
    st->checkpoints = 0;
    for (uint64_t it = from; it < st->iters; it++) {
        if (blk_gpu_price(st->d_s, st->d_x, st->d_t, st->d_call, st->d_put, st->n, it) != 0)
            return -1;
        st->meta.iters_done = it + 1;
        if (blk_checkpoint_due(it + 1, st->iters, st->every) && save(c) != 0)
            return -1;
    }
    return 0;
}

static int blk_run(struct wl_ctx *c)
{
    int rc = iterate(c, 0);
    snprintf(c->note, sizeof c->note, "checkpoints=%llu",
             (unsigned long long)S(c)->checkpoints);
    return rc;
}

/* Restores the last consistent checkpoint into the device buffers and
 * checks that it belongs to this run: 0, or 1 when there is none. */
static int restore(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    blk_meta m;
    int rc = wl_cp_restore(c);
    if (rc != 0)
        return rc;
    if (wl_dev_copy(&m, st->d_meta, sizeof m, 0) != 0)
        return -1;
    if (!blk_meta_matches(&m, st->n, c->opt.seed, st->iters))
        return gpm_set_error("%s: checkpoint of another run (options=%llu seed=%llu iters=%llu): "
                             "pass the same --options, --seed and --iters to recover it",
                             c->pm_name, (unsigned long long)m.n, (unsigned long long)m.seed,
                             (unsigned long long)m.iters);
    st->meta = m;
    return 0;
}

static int blk_recover(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    double t0 = wl_now();
    uint64_t from;
    int rc = restore(c);
    if (rc < 0)
        return -1;
    if (rc == 1 && zero_state(c) != 0) /* crashed before any checkpoint */
        return -1;
    c->restore_s = wl_now() - t0;
    from = st->meta.iters_done;
    rc = iterate(c, from);
    snprintf(c->note, sizeof c->note, "resumed_from_iter=%llu,checkpoints=%llu",
             (unsigned long long)from, (unsigned long long)st->checkpoints);
    return rc;
}

/* Verifies what is on PM: the last checkpoint must hold the finished run. */
static int blk_verify(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    float *call = malloc(acc_bytes(st)), *put = malloc(acc_bytes(st));
    int rc = -1;
    if (!call || !put) {
        gpm_set_error("blk: out of host memory for verification");
        goto out;
    }
    rc = restore(c);
    if (rc == 1) {
        gpm_set_error("%s: holds no checkpoint", c->pm_name);
        goto out;
    }
    if (rc != 0)
        goto out;
    if (st->meta.iters_done != st->iters) {
        gpm_set_error("blk: the last checkpoint is of iteration %llu of %llu",
                      (unsigned long long)st->meta.iters_done, (unsigned long long)st->iters);
        rc = 1;
        goto out;
    }
    rc = -1;
    if (wl_dev_copy(call, st->d_call, acc_bytes(st), 0) != 0 ||
        wl_dev_copy(put, st->d_put, acc_bytes(st), 0) != 0)
        goto out;
    rc = blk_check(call, put, st->n, c->opt.seed, st->iters);
out:
    free(call);
    free(put);
    return rc;
}

static void blk_teardown(struct wl_ctx *c)
{
    struct blk_state *st = S(c);
    if (!st)
        return;
    wl_dev_free(st->d_s);
    wl_dev_free(st->d_x);
    wl_dev_free(st->d_t);
    wl_dev_free(st->d_call);
    wl_dev_free(st->d_put);
    wl_dev_free(st->d_meta);
    free(st);
    c->priv = NULL;
}

const struct wl_workload WORKLOAD = {
    .name = "blk",
    .about = "Black-Scholes pricing iterations with checkpointed prices (paper Table 1)",
    .modes = WL_MODES_GPU,
    .pm_kind = WL_PM_CHECKPOINT,
    .params = blk_params,
    .layout = blk_layout,
    .setup = blk_setup,
    .prepare = blk_prepare,
    .run = blk_run,
    .recover = blk_recover,
    .verify = blk_verify,
    .teardown = blk_teardown,
};
