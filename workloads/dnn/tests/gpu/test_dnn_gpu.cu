/* DNN on the GPU: cuDNN's and cuBLAS's forward and backward passes against
 * the CPU reference, SGD steps lowering a fixed batch's loss, two trainings
 * from one seed ending with the same bits, and the whole program on a small
 * dataset the test writes: a verified run, a second run equal to it byte
 * for byte, and a run killed and recovered that ends with exactly the
 * parameters (and record) of the uninterrupted one. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cuda_runtime.h>

#include "../cpu/idx_files.h"
#include "gpm/check_gpu.h"
#include "gpm/cp_layout.h"
#include "tests/wl_test.h"

enum { NB = 8, NTRAIN = 512 };

struct batch {
    uint8_t img[NTRAIN * DNN_PIXELS], lab[NTRAIN];
    float x[NB * DNN_PIXELS];
    float *d_x, *d_p, *d_g, *d_loss;
    int32_t *d_y;
    float *p;
    struct dnn_net *net;
};

static int batch_make(struct batch *b, uint64_t seed)
{
    uint32_t idx[NB];
    int32_t y[NB];
    memset(b, 0, sizeof *b);
    for (uint32_t i = 0; i < NTRAIN; i++)
        toy_item(seed, i, b->img + (size_t)i * DNN_PIXELS, &b->lab[i]);
    for (uint32_t i = 0; i < NB; i++)
        idx[i] = i * 7 % NTRAIN, y[i] = b->lab[idx[i]];
    dnn_scale_images(b->img, idx, NB, b->x);
    b->p = (float *)malloc(DNN_NPARAM_FLOATS * sizeof(float));
    if (!b->p)
        return -1;
    dnn_init_params(seed, b->p);
    return wl_dev_alloc((void **)&b->d_x, sizeof b->x) ||
                   wl_dev_alloc((void **)&b->d_y, sizeof y) ||
                   wl_dev_alloc((void **)&b->d_p, DNN_NPARAM_FLOATS * sizeof(float)) ||
                   wl_dev_alloc((void **)&b->d_g, DNN_NPARAM_FLOATS * sizeof(float)) ||
                   wl_dev_alloc((void **)&b->d_loss, NB * sizeof(float)) ||
                   wl_dev_copy(b->d_x, b->x, sizeof b->x, 1) || wl_dev_copy(b->d_y, y, sizeof y, 1) ||
                   wl_dev_copy(b->d_p, b->p, DNN_NPARAM_FLOATS * sizeof(float), 1) ||
                   wl_dev_zero(b->d_g, DNN_NPARAM_FLOATS * sizeof(float)) ||
                   dnn_net_create(&b->net, NB)
               ? -1
               : 0;
}

static void batch_free(struct batch *b)
{
    dnn_net_destroy(b->net);
    wl_dev_free(b->d_x);
    wl_dev_free(b->d_y);
    wl_dev_free(b->d_p);
    wl_dev_free(b->d_g);
    wl_dev_free(b->d_loss);
    free(b->p);
}

static void gradients_match_the_cpu_reference(void)
{
    struct batch b;
    double *p = (double *)malloc(DNN_NPARAM_FLOATS * sizeof(double)),
           *g = (double *)malloc(DNN_NPARAM_FLOATS * sizeof(double)), pr[NB * DNN_CLASSES];
    float *gg = (float *)malloc(DNN_NPARAM_FLOATS * sizeof(float)), gp[NB * DNN_CLASSES],
          loss[NB];
    uint8_t y[NB];
    double ref_loss, gpu_loss = 0;
    NEED_GPU();
    CHECK(p && g && gg);
    CHECKF(batch_make(&b, 21) == 0, "%s", gpm_last_error());
    for (uint64_t i = 0; i < DNN_NPARAM_FLOATS; i++)
        p[i] = b.p[i];
    for (int i = 0; i < NB; i++)
        y[i] = b.lab[i * 7 % NTRAIN];
    ref_loss = dnn_ref_loss(p, b.x, y, NB, g, pr);
    CHECKF(dnn_net_gradients(b.net, b.d_p, b.d_g, b.d_x, b.d_y, b.d_loss) == 0, "%s",
           gpm_last_error());
    CHECKF(wl_dev_sync("gradients") == 0, "%s", gpm_last_error());
    CHECK(wl_dev_copy(gg, b.d_g, DNN_NPARAM_FLOATS * sizeof(float), 0) == 0);
    CHECK(wl_dev_copy(gp, dnn_net_probs(b.net), sizeof gp, 0) == 0);
    CHECK(wl_dev_copy(loss, b.d_loss, sizeof loss, 0) == 0);
    for (int i = 0; i < NB * DNN_CLASSES; i++)
        CHECKF(fabs(gp[i] - pr[i]) < 1e-5, "probability %d: GPU %.7g, CPU %.7g", i, gp[i], pr[i]);
    for (int i = 0; i < NB; i++)
        gpu_loss += loss[i];
    CHECKF(fabs(gpu_loss / NB - ref_loss) < 1e-5 * (1 + ref_loss), "loss GPU %.7g, CPU %.7g",
           gpu_loss / NB, ref_loss);
    for (int t = 0; t < DNN_NTENSORS; t++) {
        uint64_t off = dnn_tensor_off(t), n = dnn_tensor_count(t);
        double big = 0;
        for (uint64_t i = 0; i < n; i++)
            big = fabs(g[off + i]) > big ? fabs(g[off + i]) : big;
        CHECKF(big > 0, "tensor %d has no gradient", t);
        /* Float against double: sums of up to a few thousand products, each
         * within a few ulps; 1e-4 of the tensor's largest gradient. */
        for (uint64_t i = 0; i < n; i++)
            CHECKF(fabs(gg[off + i] - g[off + i]) <= 1e-4 * big,
                   "tensor %d element %llu: GPU %.7g, CPU %.7g (largest %.3g)", t,
                   (unsigned long long)i, gg[off + i], g[off + i], big);
    }
    batch_free(&b);
    free(p);
    free(g);
    free(gg);
}

static double mean_loss(struct batch *b)
{
    float l[NB];
    double s = 0;
    if (wl_dev_copy(l, b->d_loss, sizeof l, 0) != 0)
        return NAN;
    for (int i = 0; i < NB; i++)
        s += l[i];
    return s / NB;
}

static void training_steps_lower_a_fixed_batchs_loss(void)
{
    struct batch b;
    double first, last = 0;
    NEED_GPU();
    CHECKF(batch_make(&b, 22) == 0, "%s", gpm_last_error());
    CHECK(dnn_net_train_step(b.net, b.d_p, b.d_g, b.d_x, b.d_y, 0.05f, b.d_loss) == 0);
    first = mean_loss(&b);
    for (int s = 1; s < 6; s++) {
        CHECKF(dnn_net_train_step(b.net, b.d_p, b.d_g, b.d_x, b.d_y, 0.05f, b.d_loss) == 0, "%s",
               gpm_last_error());
        last = mean_loss(&b);
    }
    CHECKF(last < 0.8 * first, "loss %.4f after 5 steps, %.4f at the first", last, first);
    batch_free(&b);
}

/* STEPS iterations over the toy set (batches from the production order)
 * from seed SEED's initialisation; the parameters into OUT (host). */
static int train(uint64_t seed, int steps, float *out)
{
    struct batch b;
    uint8_t *d_img = NULL, *d_lab = NULL;
    uint32_t perm[NTRAIN], *d_perm = NULL;
    int rc = batch_make(&b, seed);
    rc = rc || wl_dev_alloc((void **)&d_img, sizeof b.img) ||
         wl_dev_alloc((void **)&d_lab, sizeof b.lab) ||
         wl_dev_alloc((void **)&d_perm, sizeof perm) || wl_dev_copy(d_img, b.img, sizeof b.img, 1) ||
         wl_dev_copy(d_lab, b.lab, sizeof b.lab, 1);
    for (int it = 0; rc == 0 && it < steps; it++) {
        uint64_t e, first;
        dnn_batch_of((uint64_t)it, dnn_steps_per_epoch(NTRAIN, NB), NB, &e, &first);
        dnn_perm(seed, e, NTRAIN, perm);
        rc = wl_dev_copy(d_perm, perm, sizeof perm, 1) ||
             dnn_gpu_gather(d_img, d_lab, d_perm, first, NB, b.d_x, b.d_y) ||
             dnn_net_train_step(b.net, b.d_p, b.d_g, b.d_x, b.d_y, dnn_lr(0.05, (uint64_t)it),
                                b.d_loss);
    }
    rc = rc || wl_dev_copy(out, b.d_p, DNN_NPARAM_FLOATS * sizeof(float), 0);
    wl_dev_free(d_img);
    wl_dev_free(d_lab);
    wl_dev_free(d_perm);
    batch_free(&b);
    return rc ? -1 : 0;
}

static void two_trainings_from_one_seed_are_identical(void)
{
    float *a = (float *)malloc(DNN_NPARAM_FLOATS * sizeof(float)),
          *b = (float *)malloc(DNN_NPARAM_FLOATS * sizeof(float));
    NEED_GPU();
    CHECK(a && b);
    CHECKF(train(5, 100, a) == 0, "%s", gpm_last_error());
    CHECKF(train(5, 100, b) == 0, "%s", gpm_last_error());
    for (uint64_t i = 0; i < DNN_NPARAM_FLOATS; i++)
        CHECKF(memcmp(&a[i], &b[i], 4) == 0, "float %llu: %.9g then %.9g",
               (unsigned long long)i, a[i], b[i]);
    CHECKF(train(6, 100, b) == 0, "%s", gpm_last_error());
    CHECK(memcmp(a, b, DNN_NPARAM_FLOATS * sizeof(float)) != 0);
    free(a);
    free(b);
}

/* ---- the whole program on a dataset the test writes ---- */

static char data_dir[4200], errf[4200];

/* The one checkpoint file in DIR: its saved parameters and record. */
static int saved_state(const char *dir, float *params, dnn_meta *m)
{
    char path[8400] = "";
    struct dirent *e;
    DIR *d = opendir(dir);
    const uint8_t *p;
    uint64_t n;
    gpmcp *cp;
    int rc;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "dnn-", 4) == 0 && strstr(e->d_name, ".params"))
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    if (!path[0] || !(cp = gpmcp_open_flags(path, GPM_HOST_ONLY)))
        return gpm_set_error("no checkpoint file in %s", dir);
    rc = dnn_cp_saved(cp, 0, &p, &n) || n != DNN_NPARAM_FLOATS * sizeof(float);
    if (rc == 0)
        memcpy(params, p, n);
    rc = rc || dnn_cp_saved(cp, 1, &p, &n) || n != sizeof *m;
    if (rc == 0)
        memcpy(m, p, n);
    gpmcp_close(cp);
    return rc ? -1 : 0;
}

/* The program on the test's dataset, 400 iterations of 16 images, files
 * kept in PM_DIR, with up to two more flags. */
static int run_dnn(const char *pm_dir, const char *flag, const char *val)
{
    const char *args[] = {"dnn", "--mode", "gpm", "--dataset", data_dir, "--iterations", "400",
                          "--batch", "16", "--reps", "1", "--keep", "--pm-dir", pm_dir};
    char *argv[20];
    int argc = 0;
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        argv[argc++] = (char *)args[i];
    if (flag)
        argv[argc++] = (char *)flag;
    if (val)
        argv[argc++] = (char *)val;
    argv[argc] = NULL;
    return wl_test_run(&WORKLOAD, argv, argc, errf);
}

/* A run of the program must exit 0; if not, its first error line says why. */
#define CHECK_RUN(call)                                                                      \
    do {                                                                                     \
        char why_[512] = "";                                                                 \
        int rc_ = (call);                                                                    \
        if (rc_ != 0)                                                                        \
            wl_test_line(errf, 0, why_, sizeof why_);                                        \
        CHECKF(rc_ == 0, "%s exited %d: %s", #call, rc_, why_);                              \
    } while (0)

/* The program runs in forked children, which can use CUDA only if this
 * process has not initialised it: main runs this case first, and it asks
 * the children, not CUDA, whether there is a GPU. */
static void runs_are_verified_repeatable_and_recover_exactly(void)
{
    char base[4096], a[8400], b[8400], k[8400];
    float *pa = (float *)malloc(DNN_NPARAM_FLOATS * sizeof(float)),
          *pb = (float *)malloc(DNN_NPARAM_FLOATS * sizeof(float));
    dnn_meta ma, mb;
    int rc;
    CHECK(pa && pb);
    /* The runs' PM files go under the PM directory, as every program's
     * do: CUDA cannot register the page cache of a file elsewhere (/tmp on
     * an overlay filesystem, say). */
    snprintf(base, sizeof base, "%s/dnn-gpu-%d", gpm_pm_dir(), (int)getpid());
    snprintf(a, sizeof a, "%s/a", base);
    snprintf(b, sizeof b, "%s/b", base);
    snprintf(k, sizeof k, "%s/k", base);
    CHECK(mkdir(base, 0700) == 0 && mkdir(a, 0700) == 0 && mkdir(b, 0700) == 0 &&
          mkdir(k, 0700) == 0);
    CHECK_RUN(run_dnn(a, NULL, NULL));
    CHECKF(saved_state(a, pa, &ma) == 0, "%s", gpm_last_error());
    CHECK(ma.iters_done == 400 && ma.window == 40);
    CHECK_RUN(run_dnn(b, NULL, NULL));
    CHECKF(saved_state(b, pb, &mb) == 0, "%s", gpm_last_error());
    CHECK(memcmp(pa, pb, DNN_NPARAM_FLOATS * sizeof(float)) == 0);
    CHECK(memcmp(&ma, &mb, sizeof ma) == 0);
    /* Killed 20 ms in (mid-work, or before or after the work where the
     * GPU is much slower or faster): the recovery ends where the
     * uninterrupted run did, bit for bit. */
    rc = run_dnn(k, "--kill", "time:0.02");
    CHECKF(rc == 128 + 9 || rc == 0, "the run to kill exited %d", rc);
    CHECK_RUN(run_dnn(k, "--recover", NULL));
    CHECKF(saved_state(k, pb, &mb) == 0, "%s", gpm_last_error());
    for (uint64_t i = 0; i < DNN_NPARAM_FLOATS; i++)
        CHECKF(memcmp(&pa[i], &pb[i], 4) == 0, "float %llu: %.9g uninterrupted, %.9g recovered",
               (unsigned long long)i, pa[i], pb[i]);
    CHECKF(memcmp(&ma, &mb, sizeof ma) == 0, "records differ: losses %.9g / %.9g",
           ma.last_sum, mb.last_sum);
    free(pa);
    free(pb);
    snprintf(a, sizeof a, "rm -rf '%s'", base);
    CHECK(system(a) == 0);
}

int main(void)
{
    if (test_dir_make("dnn-gpu") != 0) {
        printf("not ok - setup: cannot make a scratch directory\n");
        return 1;
    }
    snprintf(data_dir, sizeof data_dir, "%s/data", test_dir);
    snprintf(errf, sizeof errf, "%s/stderr", test_dir);
    if (mkdir(data_dir, 0700) != 0 || put_toy_dataset(data_dir, "", 6000, 1000, 1) != 0) {
        printf("not ok - setup: cannot write the dataset\n");
        return 1;
    }
    RUN(runs_are_verified_repeatable_and_recover_exactly);
    test_dir_remove();
    RUN(gradients_match_the_cpu_reference);
    RUN(training_steps_lower_a_fixed_batchs_loss);
    RUN(two_trainings_from_one_seed_are_identical);
    CHECK_EXIT();
}
