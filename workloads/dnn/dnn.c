/* DNN in every mode: LeNet trained by SGD with cuDNN and cuBLAS, its
 * weights and biases and a record checkpointed every K iterations through
 * the harness's checkpoint object (gpmcp, the mode's way), and recovery
 * from the last consistent checkpoint. BLK is the model; this file differs
 * in what an iteration does and in what the verification checks. */
#include <stdlib.h>
#include <string.h>

#include "dnn.h"

/* Test images per forward pass of the accuracy check. */
#define DNN_EVAL_BATCH 1000u
/* Per-sample losses kept between two checkpoints, at most. */
#define DNN_MAX_LOSSES (1ull << 26)
#define NO_EPOCH UINT64_MAX

static const struct wl_param dnn_params[] = {
    {.flag = "iterations", .help = "SGD iterations (forward and backward passes of a batch)",
     .scale = {50, 1000, 10000}, .min = 2, .max = 100000000},
    {.flag = "batch", .help = "images per iteration", .scale = {64, 64, 64}, .min = 1,
     .max = 8192},
    {.flag = "checkpoint-every", .help = "checkpoint after every K iterations (and after the "
     "last)", .scale = {10, 10, 10}, .min = 1, .max = 100000000},
    {.flag = "lr", .help = "base learning rate of Caffe's inv policy", .type = WL_FLOAT,
     .fscale = {0.05, 0.05, 0.05}, .fmin = 1e-6, .fmax = 10},
    {.flag = "dataset", .help = "fashion (Debian's dataset-fashion-mnist), mnist (datasets/"
     "fetch.sh), or a directory of MNIST-format IDX files", .type = WL_STR,
     .sscale = {"fashion", "fashion", "fashion"}},
    {0},
};

static const struct wl_obj_decl dnn_objects[] = {
    [DNN_CP] = {"params", WL_OBJ_CHECKPOINT},
    {NULL, WL_OBJ_REGION},
};

struct dnn_state {
    uint64_t iters, batch, every, steps_per_epoch;
    double lr;
    struct dnn_files files;
    struct dnn_data data;          /* host: test labels (the images are freed once uploaded) */
    uint8_t *d_train_x, *d_train_y, *d_test_x, *d_test_y;
    uint32_t *perm, *d_perm;       /* the batch order of epoch perm_epoch */
    uint64_t perm_epoch;
    float *d_x;                    /* a batch: images as floats, labels */
    int32_t *d_y;
    float *init, *d_params, *d_grads, *h_params;
    float *losses, *d_losses;      /* per-sample losses since the last checkpoint */
    float *h_probs;
    dnn_meta meta;                 /* host copy */
    struct dnn_net *net;
};

static struct dnn_state *S(struct wl_ctx *c) { return c->priv; }

static size_t param_bytes(void) { return DNN_NPARAM_FLOATS * sizeof(float); }

static uint64_t chunk_iters(uint64_t every, uint64_t iters) { return every < iters ? every : iters; }

static int dnn_layout(struct wl_ctx *c)
{
    uint64_t iters = (uint64_t)wl_int(c, "iterations"), batch = (uint64_t)wl_int(c, "batch");
    uint64_t every = (uint64_t)wl_int(c, "checkpoint-every");
    struct dnn_files f;
    uint32_t ntrain, ntest;
    if (dnn_dataset_find(wl_str(c, "dataset"), dnn_fashion_dirs(), &f) != 0 ||
        dnn_dataset_check(&f, &ntrain, &ntest) != 0)
        return -1;
    if (batch > ntrain)
        return gpm_set_error("--batch: %llu images per batch, but %s has %u training images: "
                             "pass a smaller --batch", (unsigned long long)batch, f.name, ntrain);
    if (chunk_iters(every, iters) * batch > DNN_MAX_LOSSES)
        return gpm_set_error("--checkpoint-every: %llu iterations of %llu images between "
                             "checkpoints keep too many losses: pass a smaller one",
                             (unsigned long long)every, (unsigned long long)batch);
    wl_obj_checkpoint(c, DNN_CP, param_bytes() + sizeof(dnn_meta), 2);
    c->data_bytes = param_bytes();
    c->calib_bytes = c->data_bytes;
    /* For --kill random: on the fast side (an iteration of a batch
     * of 64 takes about 0.25 ms on a recent GPU; the paper's took 0.83 ms),
     * so that a random kill lands inside the run. */
    c->expected_s = (double)iters * (0.15e-3 + (double)batch * 1.5e-6) +
                    (double)((iters + every - 1) / every) * (param_bytes() / 45e9 + 20e-6) +
                    0.005;
    return 0;
}

/* The record of this run at iteration 0 (what a checkpoint must match). */
static void fresh_meta(struct wl_ctx *c, dnn_meta *m)
{
    struct dnn_state *st = S(c);
    dnn_meta_init(m, st->iters, st->batch, st->every, wl_seed(c), st->lr, st->data.fingerprint,
                  st->data.ntrain, st->data.ntest);
}

/* The state at iteration 0: the initial parameters, no iteration done. */
static int initial_state(struct wl_ctx *c)
{
    struct dnn_state *st = S(c);
    fresh_meta(c, &st->meta);
    st->perm_epoch = NO_EPOCH;
    return wl_dev_copy(st->d_params, st->init, param_bytes(), 1) != 0 ||
                   wl_dev_zero(st->d_grads, param_bytes()) != 0
               ? -1
               : 0;
}

static int upload_data(struct dnn_state *st)
{
    struct dnn_idx *p = st->data.part;
    size_t tx = (size_t)st->data.ntrain * DNN_PIXELS, vx = (size_t)st->data.ntest * DNN_PIXELS;
    if (wl_dev_alloc((void **)&st->d_train_x, tx) || wl_dev_alloc((void **)&st->d_train_y,
                                                                  st->data.ntrain) ||
        wl_dev_alloc((void **)&st->d_test_x, vx) ||
        wl_dev_alloc((void **)&st->d_test_y, st->data.ntest) ||
        wl_dev_copy(st->d_train_x, p[DNN_TRAIN_IMAGES].data, tx, 1) ||
        wl_dev_copy(st->d_train_y, p[DNN_TRAIN_LABELS].data, st->data.ntrain, 1) ||
        wl_dev_copy(st->d_test_x, p[DNN_TEST_IMAGES].data, vx, 1) ||
        wl_dev_copy(st->d_test_y, p[DNN_TEST_LABELS].data, st->data.ntest, 1))
        return -1;
    dnn_idx_free(&p[DNN_TRAIN_IMAGES]);
    dnn_idx_free(&p[DNN_TEST_IMAGES]);
    dnn_idx_free(&p[DNN_TRAIN_LABELS]);
    return 0;
}

static int alloc_state(struct dnn_state *st)
{
    uint64_t maxb = st->batch > DNN_EVAL_BATCH ? st->batch : DNN_EVAL_BATCH;
    uint64_t nloss = chunk_iters(st->every, st->iters) * st->batch;
    st->perm = malloc(st->data.ntrain * sizeof *st->perm);
    st->init = malloc(param_bytes());
    st->h_params = malloc(param_bytes());
    st->losses = malloc(nloss * sizeof *st->losses);
    st->h_probs = malloc(DNN_EVAL_BATCH * DNN_CLASSES * sizeof *st->h_probs);
    if (!st->perm || !st->init || !st->h_params || !st->losses || !st->h_probs)
        return gpm_set_error("dnn: out of memory");
    return wl_dev_alloc((void **)&st->d_perm, st->data.ntrain * sizeof *st->d_perm) ||
                   wl_dev_alloc((void **)&st->d_x, maxb * DNN_PIXELS * sizeof(float)) ||
                   wl_dev_alloc((void **)&st->d_y, maxb * sizeof(int32_t)) ||
                   wl_dev_alloc((void **)&st->d_params, param_bytes()) ||
                   wl_dev_alloc((void **)&st->d_grads, param_bytes()) ||
                   wl_dev_alloc((void **)&st->d_losses, nloss * sizeof(float)) ||
                   dnn_net_create(&st->net, (uint32_t)maxb) ||
                   dnn_net_set_batch(st->net, (uint32_t)st->batch)
               ? -1
               : 0;
}

/* Epoch EPOCH's order on the GPU (computed here, once an epoch). */
static int load_perm(struct dnn_state *st, uint64_t epoch)
{
    if (st->perm_epoch == epoch)
        return 0;
    dnn_perm(st->meta.seed, epoch, st->data.ntrain, st->perm);
    if (wl_dev_copy(st->d_perm, st->perm, st->data.ntrain * sizeof *st->perm, 1) != 0)
        return -1;
    st->perm_epoch = epoch;
    return 0;
}

/* One iteration IT: its batch, forward, backward, SGD step; the batch's
 * per-sample losses go to LOSSES (device). */
static int train_iteration(struct dnn_state *st, uint64_t it, float *losses)
{
    uint64_t epoch, first;
    dnn_batch_of(it, st->steps_per_epoch, (uint32_t)st->batch, &epoch, &first);
    if (load_perm(st, epoch) != 0 ||
        dnn_gpu_gather(st->d_train_x, st->d_train_y, st->d_perm, first, (uint32_t)st->batch,
                       st->d_x, st->d_y) != 0)
        return -1;
    return dnn_net_train_step(st->net, st->d_params, st->d_grads, st->d_x, st->d_y,
                              dnn_lr(st->lr, it), losses);
}

static int dnn_setup(struct wl_ctx *c)
{
    struct dnn_state *st = S(c);
    st->iters = (uint64_t)wl_int(c, "iterations");
    st->batch = (uint64_t)wl_int(c, "batch");
    st->every = (uint64_t)wl_int(c, "checkpoint-every");
    st->lr = wl_float(c, "lr");
    if (dnn_dataset_find(wl_str(c, "dataset"), dnn_fashion_dirs(), &st->files) != 0 ||
        dnn_dataset_load(&st->files, &st->data) != 0 || upload_data(st) != 0 ||
        alloc_state(st) != 0)
        return -1;
    st->steps_per_epoch = dnn_steps_per_epoch(st->data.ntrain, (uint32_t)st->batch);
    dnn_init_params(wl_seed(c), st->init);
    /* One iteration, untimed, so that cuDNN and cuBLAS load their kernels
     * and any error shows here; prepare() (or recover()) sets the state. */
    if (initial_state(c) != 0 || train_iteration(st, 0, st->d_losses) != 0 ||
        wl_dev_sync("dnn: the warm-up iteration") != 0 || initial_state(c) != 0)
        return -1;
    return wl_cp_register(c, DNN_CP, st->d_params, param_bytes()) ||
                   wl_cp_register_record(c, DNN_CP, &st->meta, sizeof st->meta)
               ? -1
               : 0;
}

static int dnn_prepare(struct wl_ctx *c)
{
    return initial_state(c);
}

/* Books iterations FROM..TO-1, whose per-sample losses are in d_losses,
 * into the record. */
static int book_losses(struct dnn_state *st, uint64_t from, uint64_t to)
{
    uint64_t n = (to - from) * st->batch;
    if (wl_dev_copy(st->losses, st->d_losses, n * sizeof(float), 0) != 0)
        return -1;
    for (uint64_t it = from; it < to; it++)
        dnn_meta_add_loss(&st->meta, it,
                          dnn_batch_loss(st->losses + (it - from) * st->batch,
                                         (uint32_t)st->batch));
    return 0;
}

/* One training iteration; its per-sample losses wait in d_losses, at the
 * iteration's place since the last checkpoint (a multiple of every). */
static int train(struct wl_ctx *c, uint64_t it)
{
    struct dnn_state *st = S(c);
    return train_iteration(st, it, st->d_losses + (it % st->every) * st->batch);
}

static int book(struct wl_ctx *c, uint64_t from, uint64_t to)
{
    return book_losses(S(c), from, to);
}

static int check_restored(struct wl_ctx *c);

/* The checkpoint's record must be this run's. */
static int record_check(struct wl_ctx *c)
{
    dnn_meta want, m = S(c)->meta;
    fresh_meta(c, &want);
    if (dnn_meta_matches(&m, &want))
        return 0;
    return gpm_set_error("%s: checkpoint of another run (%llu iterations of %llu images, "
                         "every %llu, seed %llu, dataset %016llx): pass the same "
                         "--iterations, --batch, --checkpoint-every, --lr, --dataset and "
                         "--seed to recover it", wl_obj_path(c, DNN_CP),
                         (unsigned long long)m.iters, (unsigned long long)m.batch,
                         (unsigned long long)m.every, (unsigned long long)m.seed,
                         (unsigned long long)m.data_fp);
}

static struct wl_steps steps(struct wl_ctx *c)
{
    struct dnn_state *st = S(c);
    struct wl_steps s = {.cp = DNN_CP, .total = st->iters, .every = st->every,
                         .done = &st->meta.iters_done, .unit = "iteration", .step = train,
                         .before_checkpoint = book, .record_check = record_check,
                         .after_restore = check_restored};
    return s;
}

static int dnn_run(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    return wl_steps_run(c, &s, 0);
}

/* The restored parameters and record against the bytes of the checkpoint
 * on PM: 0 the same, 1 different (message set), -1 error. The batch order
 * is then rebuilt for the epoch the run resumes in. */
static int check_restored(struct wl_ctx *c)
{
    struct dnn_state *st = S(c);
    int rc;
    st->perm_epoch = NO_EPOCH;
    if (wl_dev_copy(st->h_params, st->d_params, param_bytes(), 0) != 0)
        return -1;
    rc = dnn_cp_compare(wl_checkpoint(c, DNN_CP), 0, st->h_params, param_bytes(), "parameters");
    return rc != 0 ? rc : dnn_cp_compare(wl_checkpoint(c, DNN_CP), 1, &st->meta, sizeof st->meta,
                                         "record");
}

/* Units of progress are iterations; the durable ones are those the last
 * checkpoint holds. */
static int dnn_recover(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    return wl_steps_recover(c, &s, initial_state);
}

/* The accuracy of the parameters in d_params on the test set. */
static int test_accuracy(struct dnn_state *st, double *acc, uint64_t *right)
{
    uint64_t correct = 0;
    const uint8_t *labels = st->data.part[DNN_TEST_LABELS].data;
    for (uint32_t first = 0; first < st->data.ntest; first += DNN_EVAL_BATCH) {
        uint32_t nb = st->data.ntest - first < DNN_EVAL_BATCH ? st->data.ntest - first
                                                               : DNN_EVAL_BATCH;
        if (dnn_net_set_batch(st->net, nb) != 0 ||
            dnn_gpu_gather(st->d_test_x, st->d_test_y, NULL, first, nb, st->d_x, st->d_y) ||
            dnn_net_forward(st->net, st->d_params, st->d_x) != 0 ||
            wl_dev_copy(st->h_probs, dnn_net_probs(st->net),
                        (size_t)nb * DNN_CLASSES * sizeof(float), 0) != 0)
            return -1;
        correct += dnn_count_correct(st->h_probs, labels + first, nb, DNN_CLASSES);
    }
    *acc = (double)correct / st->data.ntest;
    *right = correct;
    return dnn_net_set_batch(st->net, (uint32_t)st->batch);
}

/* Verifies what is on PM: the last checkpoint, restored and compared with
 * its bytes, must hold the finished run, whose loss fell and whose
 * parameters classify the test set well enough. */
static int dnn_verify(struct wl_ctx *c)
{
    struct dnn_state *st = S(c);
    struct wl_steps s = steps(c);
    struct wl_wrong w = {0};
    uint64_t right;
    double acc;
    int rc = wl_steps_final(c, &s);
    if (rc != 0)
        return rc;
    if (test_accuracy(st, &acc, &right) != 0)
        return -1;
    wl_note(c, "loss=%.4f,loss_first%llu=%.4f,loss_last%llu=%.4f,test_accuracy=%.4f,%s",
            st->meta.loss_last, (unsigned long long)st->meta.window,
            dnn_meta_first_mean(&st->meta), (unsigned long long)st->meta.window,
            dnn_meta_last_mean(&st->meta), acc, dnn_net_about(st->net));
    rc = dnn_check_training(&st->meta, st->files.kind, acc);
    if (rc == 1) {
        dnn_training_wrong(&st->meta, right, st->data.ntest, &w);
        wl_note_wrong(c, &w);
    }
    return rc;
}

static void dnn_teardown(struct wl_ctx *c)
{
    struct dnn_state *st = S(c);
    dnn_net_destroy(st->net);
    dnn_dataset_free(&st->data);
    wl_dev_free(st->d_train_x);
    wl_dev_free(st->d_train_y);
    wl_dev_free(st->d_test_x);
    wl_dev_free(st->d_test_y);
    wl_dev_free(st->d_perm);
    wl_dev_free(st->d_x);
    wl_dev_free(st->d_y);
    wl_dev_free(st->d_params);
    wl_dev_free(st->d_grads);
    wl_dev_free(st->d_losses);
    free(st->perm);
    free(st->init);
    free(st->h_params);
    free(st->losses);
    free(st->h_probs);
}

const struct wl_workload WORKLOAD = {
    .name = "dnn",
    .about = "LeNet trained with cuDNN on MNIST-format data, weights and biases checkpointed "
             "(paper Table 1)",
    .modes = WL_MODES_GPU,
    .progress_by = WL_BY_COMMITS, /* a checkpoint is durable in every mode */
    .objects = dnn_objects,
    .params = dnn_params,
    .state_bytes = sizeof(struct dnn_state),
    .layout = dnn_layout,
    .setup = dnn_setup,
    .prepare = dnn_prepare,
    .run = dnn_run,
    .recover = dnn_recover,
    .verify = dnn_verify,
    .teardown = dnn_teardown,
};
